import CRocksDB
import Foundation

/// RocksDB (the system library, through its C API), in the directory `kv.rocksdb`. A full
/// Bloom filter of 10 bits a key and an LRU block cache the size of SQLite's page cache;
/// everything else RocksDB's defaults (WAL on, 64 MiB memtable, snappy). A batch is one
/// `WriteBatch`; buffered commits are written to the WAL without a sync (a crashed process loses
/// nothing, a crashed machine may), durable ones with `sync = true`. Point reads pin the value
/// in place (`rocksdb_get_pinned`) rather than copy it.
final class RocksDBEngine: ConcurrentPuts, KeyOrderWalk, @unchecked Sendable {
    static let label = "rocksdb"
    static let bloomBitsPerKey = 10.0

    static func durabilitySummary(durable: Bool) -> String {
        "RocksDB \(version) sync=\(durable), WAL on, full Bloom filter "
            + "\(Int(bloomBitsPerKey)) bits/key, \(SQLiteSettings.cacheKiB >> 10) MiB LRU block "
            + "cache, defaults otherwise (snappy), a WriteBatch per batch, pinned point reads"
    }

    /// The C API has no version call; the package's pkg-config file says it.
    static let version = Machine.firstLine(of: ["pkg-config", "--modversion", "rocksdb"]) ?? "?"

    private let options: OpaquePointer
    private let cache: OpaquePointer
    private let readOptions: OpaquePointer
    private let writeOptions: OpaquePointer
    private let batch: OpaquePointer
    private var db: OpaquePointer?

    init(directory: String, durable: Bool) throws {
        options = rocksdb_options_create()
        rocksdb_options_set_create_if_missing(options, 1)
        let table = rocksdb_block_based_options_create()
        // The table options own the filter policy from here on.
        rocksdb_block_based_options_set_filter_policy(
            table, rocksdb_filterpolicy_create_bloom_full(Self.bloomBitsPerKey))
        cache = rocksdb_cache_create_lru(SQLiteSettings.cacheKiB << 10)
        rocksdb_block_based_options_set_block_cache(table, cache)
        rocksdb_options_set_block_based_table_factory(options, table)
        rocksdb_block_based_options_destroy(table)
        readOptions = rocksdb_readoptions_create()
        writeOptions = rocksdb_writeoptions_create()
        rocksdb_writeoptions_set_sync(writeOptions, durable ? 1 : 0)
        batch = rocksdb_writebatch_create()
        var error: UnsafeMutablePointer<CChar>?
        db = rocksdb_open(options, directory + "/kv.rocksdb", &error)
        try check(error, "rocksdb_open")
    }

    deinit {
        if let db { rocksdb_close(db) }
        rocksdb_writebatch_destroy(batch)
        rocksdb_writeoptions_destroy(writeOptions)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_options_destroy(options)
        rocksdb_cache_destroy(cache)
    }

    func beginBatch() { rocksdb_writebatch_clear(batch) }

    func put(_ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                rocksdb_writebatch_put(batch, chars(key), key.count, chars(value), value.count)
            }
        }
    }

    func delete(_ key: [UInt8]) {
        key.withUnsafeBytes { rocksdb_writebatch_delete(batch, chars($0), $0.count) }
    }

    func commitBatch() throws {
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write(db, writeOptions, batch, &error)
        try check(error, "rocksdb_write")
    }

    func beginReads() {}
    func endReads() {}

    func get(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) -> Void) throws {
        var error: UnsafeMutablePointer<CChar>?
        let pinned = key.withUnsafeBytes { key in
            rocksdb_get_pinned(db, readOptions, chars(key), key.count, &error)
        }
        defer { rocksdb_pinnableslice_destroy(pinned) }
        try check(error, "rocksdb_get_pinned")
        guard let pinned else { return body(nil) }
        var length = 0
        let value = rocksdb_pinnableslice_value(pinned, &length)
        body(UnsafeRawBufferPointer(start: value, count: length))
    }

    func walk(
        from key: UnsafeRawBufferPointer?,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
    ) throws {
        let iterator = rocksdb_create_iterator(db, readOptions)
        defer { rocksdb_iter_destroy(iterator) }
        if let key {
            rocksdb_iter_seek(iterator, chars(key), key.count)
        } else {
            rocksdb_iter_seek_to_first(iterator)
        }
        while rocksdb_iter_valid(iterator) != 0 {
            var keyLength = 0
            var valueLength = 0
            let k = rocksdb_iter_key(iterator, &keyLength)
            let v = rocksdb_iter_value(iterator, &valueLength)
            guard
                body(
                    UnsafeRawBufferPointer(start: k, count: keyLength),
                    UnsafeRawBufferPointer(start: v, count: valueLength))
            else { break }
            rocksdb_iter_next(iterator)
        }
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_iter_get_error(iterator, &error)
        try check(error, "rocksdb_iter")
    }

    func close() {
        if let db { rocksdb_close(db) }
        db = nil
    }

    static let compaction = "rocksdb_compact_range over every key"

    func compact() { rocksdb_compact_range(db, nil, 0, nil, 0) }

    /// One put of its own from any thread (RocksDB groups concurrent writers into one WAL
    /// write, and one sync when durable).
    func putConcurrently(_ key: [UInt8], _ value: [UInt8]) throws {
        var error: UnsafeMutablePointer<CChar>?
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                rocksdb_put(
                    db, writeOptions, chars(key), key.count, chars(value), value.count, &error)
            }
        }
        try check(error, "rocksdb_put")
    }

    private func check(_ error: UnsafeMutablePointer<CChar>?, _ call: String) throws {
        guard let error else { return }
        let message = String(cString: error)
        rocksdb_free(error)
        throw PeerError(engine: "RocksDB", call: call, message: message)
    }
}
