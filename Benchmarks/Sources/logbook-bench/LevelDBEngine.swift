import CLevelDB
import Foundation

/// LevelDB (the system library, through its C API), in the directory `kv.leveldb`. A Bloom
/// filter of 10 bits a key and an LRU block cache the size of SQLite's page cache; everything
/// else LevelDB's defaults (snappy compression, 4 MiB write buffer). A batch is one
/// `WriteBatch`; buffered commits are written to the log without a sync (a crashed process loses
/// nothing, a crashed machine may), durable ones with `sync = true`.
final class LevelDBEngine: ConcurrentPuts, KeyOrderWalk, @unchecked Sendable {
    static let label = "leveldb"
    static let bloomBitsPerKey: Int32 = 10

    static func durabilitySummary(durable: Bool) -> String {
        "LevelDB \(version) sync=\(durable), Bloom filter \(bloomBitsPerKey) bits/key, "
            + "\(SQLiteSettings.cacheKiB >> 10) MiB LRU block cache, defaults otherwise "
            + "(snappy), a WriteBatch per batch"
    }

    static var version: String { "\(leveldb_major_version()).\(leveldb_minor_version())" }

    private let options: OpaquePointer
    private let filter: OpaquePointer
    private let cache: OpaquePointer
    private let readOptions: OpaquePointer
    private let writeOptions: OpaquePointer
    private let batch: OpaquePointer
    private var db: OpaquePointer?

    init(directory: String, durable: Bool) throws {
        options = leveldb_options_create()
        filter = leveldb_filterpolicy_create_bloom(Self.bloomBitsPerKey)
        cache = leveldb_cache_create_lru(SQLiteSettings.cacheKiB << 10)
        leveldb_options_set_create_if_missing(options, 1)
        leveldb_options_set_filter_policy(options, filter)
        leveldb_options_set_cache(options, cache)
        readOptions = leveldb_readoptions_create()
        writeOptions = leveldb_writeoptions_create()
        leveldb_writeoptions_set_sync(writeOptions, durable ? 1 : 0)
        batch = leveldb_writebatch_create()
        var error: UnsafeMutablePointer<CChar>?
        db = leveldb_open(options, directory + "/kv.leveldb", &error)
        try check(error, "leveldb_open")
    }

    deinit {
        if let db { leveldb_close(db) }
        leveldb_writebatch_destroy(batch)
        leveldb_writeoptions_destroy(writeOptions)
        leveldb_readoptions_destroy(readOptions)
        leveldb_options_destroy(options)
        leveldb_cache_destroy(cache)
        leveldb_filterpolicy_destroy(filter)
    }

    func beginBatch() { leveldb_writebatch_clear(batch) }

    func put(_ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                leveldb_writebatch_put(batch, chars(key), key.count, chars(value), value.count)
            }
        }
    }

    func delete(_ key: [UInt8]) {
        key.withUnsafeBytes { leveldb_writebatch_delete(batch, chars($0), $0.count) }
    }

    func commitBatch() throws {
        var error: UnsafeMutablePointer<CChar>?
        leveldb_write(db, writeOptions, batch, &error)
        try check(error, "leveldb_write")
    }

    func beginReads() {}
    func endReads() {}

    /// LevelDB's C API returns a copy of the value in memory of its own (`malloc`), freed after
    /// `body`: the only point read it offers.
    func get(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) -> Void) throws {
        var error: UnsafeMutablePointer<CChar>?
        var length = 0
        let value = key.withUnsafeBytes { key in
            leveldb_get(db, readOptions, chars(key), key.count, &length, &error)
        }
        try check(error, "leveldb_get")
        body(value.map { UnsafeRawBufferPointer(start: $0, count: length) })
        leveldb_free(value)
    }

    func walk(
        from key: UnsafeRawBufferPointer?,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
    ) throws {
        let iterator = leveldb_create_iterator(db, readOptions)
        defer { leveldb_iter_destroy(iterator) }
        if let key {
            leveldb_iter_seek(iterator, chars(key), key.count)
        } else {
            leveldb_iter_seek_to_first(iterator)
        }
        while leveldb_iter_valid(iterator) != 0 {
            var keyLength = 0
            var valueLength = 0
            let k = leveldb_iter_key(iterator, &keyLength)
            let v = leveldb_iter_value(iterator, &valueLength)
            guard
                body(
                    UnsafeRawBufferPointer(start: k, count: keyLength),
                    UnsafeRawBufferPointer(start: v, count: valueLength))
            else { break }
            leveldb_iter_next(iterator)
        }
        var error: UnsafeMutablePointer<CChar>?
        leveldb_iter_get_error(iterator, &error)
        try check(error, "leveldb_iter")
    }

    func close() {
        if let db { leveldb_close(db) }
        db = nil
    }

    static let compaction = "leveldb_compact_range over every key"

    func compact() { leveldb_compact_range(db, nil, 0, nil, 0) }

    /// One put of its own from any thread (LevelDB groups concurrent writers into one log write,
    /// and one sync when durable).
    func putConcurrently(_ key: [UInt8], _ value: [UInt8]) throws {
        var error: UnsafeMutablePointer<CChar>?
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                leveldb_put(
                    db, writeOptions, chars(key), key.count, chars(value), value.count, &error)
            }
        }
        try check(error, "leveldb_put")
    }

    private func check(_ error: UnsafeMutablePointer<CChar>?, _ call: String) throws {
        guard let error else { return }
        let message = String(cString: error)
        leveldb_free(error)
        throw PeerError(engine: "LevelDB", call: call, message: message)
    }
}

/// `bytes` as the `const char *` the C APIs take.
func chars(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<CChar>? {
    bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
}
