import CLMDB
import Foundation

/// LMDB (the system library), one unnamed database in the environment directory `kv.lmdb`.
/// Buffered: `MDB_NOSYNC | MDB_WRITEMAP` (commits write into the shared map, the kernel writes
/// them back: a crashed process loses nothing, a crashed machine may). Durable: LMDB's default,
/// which syncs the data and then the meta page on every commit. `MDB_NOTLS` lets the one read
/// transaction (reset between reads, renewed for the next) live beside write transactions.
final class LMDBEngine: ConcurrentPuts, KeyOrderWalk, @unchecked Sendable {
    static let label = "lmdb"
    /// The map: the most the store may grow to. Address space only; with `MDB_WRITEMAP` LMDB
    /// sizes the file to it, sparsely (``fileBytes(under:)`` counts the blocks written).
    static let mapSize = 64 << 30

    static func durabilitySummary(durable: Bool) -> String {
        "LMDB \(version) "
            + (durable
                ? "default sync (data, then meta page, synced at every commit)"
                : "MDB_NOSYNC|MDB_WRITEMAP") + ", MDB_NOTLS, map \(mapSize >> 30) GiB, "
            + "a write transaction per batch, a renewed read transaction per run of reads"
    }

    static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    private let path: String
    private let flags: UInt32
    private var environment: OpaquePointer?
    private var database = MDB_dbi()
    private var writer: OpaquePointer?
    /// The read transaction, reset between uses; ``readsOpen`` while renewed.
    private var reader: OpaquePointer?
    private var cursor: OpaquePointer?
    private var readsOpen = false

    init(directory: String, durable: Bool) throws {
        path = directory + "/kv.lmdb"
        flags = UInt32(MDB_NOTLS) | (durable ? 0 : UInt32(MDB_NOSYNC) | UInt32(MDB_WRITEMAP))
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try open()
    }

    deinit { shut() }

    private func open() throws {
        try check(mdb_env_create(&environment), "mdb_env_create")
        try check(mdb_env_set_mapsize(environment, Self.mapSize), "mdb_env_set_mapsize")
        try check(mdb_env_open(environment, path, flags, 0o644), "mdb_env_open")
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
        try check(mdb_dbi_open(transaction, nil, 0, &database), "mdb_dbi_open")
        try check(mdb_txn_commit(transaction), "mdb_txn_commit")
        try check(
            mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &reader), "mdb_txn_begin(RDONLY)")
        mdb_txn_reset(reader)
    }

    private func shut() {
        if let cursor { mdb_cursor_close(cursor) }
        if let writer { mdb_txn_abort(writer) }
        if let reader { mdb_txn_abort(reader) }
        if let environment { mdb_env_close(environment) }
        (cursor, writer, reader, environment) = (nil, nil, nil, nil)
        readsOpen = false
    }

    func beginBatch() throws {
        try check(mdb_txn_begin(environment, nil, 0, &writer), "mdb_txn_begin")
    }

    func put(_ key: [UInt8], _ value: [UInt8]) throws {
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                var k = Self.val(key)
                var v = Self.val(value)
                try check(mdb_put(writer, database, &k, &v, 0), "mdb_put")
            }
        }
    }

    func delete(_ key: [UInt8]) throws {
        try key.withUnsafeBytes { key in
            var k = Self.val(key)
            let code = mdb_del(writer, database, &k, nil)
            if code != MDB_NOTFOUND { try check(code, "mdb_del") }
        }
    }

    func commitBatch() throws {
        let transaction = writer
        writer = nil
        try check(mdb_txn_commit(transaction), "mdb_txn_commit")
    }

    func beginReads() throws {
        try check(mdb_txn_renew(reader), "mdb_txn_renew")
        readsOpen = true
    }

    func endReads() {
        mdb_txn_reset(reader)
        readsOpen = false
    }

    /// Runs `body` inside the read transaction, renewing it for the call if no run of reads
    /// is open.
    private func reading<T>(_ body: () throws -> T) throws -> T {
        if readsOpen { return try body() }
        try beginReads()
        defer { endReads() }
        return try body()
    }

    func get(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) -> Void) throws {
        try reading {
            try key.withUnsafeBytes { key in
                var k = Self.val(key)
                var v = MDB_val()
                let code = mdb_get(reader, database, &k, &v)
                if code == MDB_NOTFOUND { return body(nil) }
                try check(code, "mdb_get")
                body(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
            }
        }
    }

    /// The cursor, bound to the renewed read transaction.
    private func readCursor() throws -> OpaquePointer? {
        if cursor == nil {
            try check(mdb_cursor_open(reader, database, &cursor), "mdb_cursor_open")
        } else {
            try check(mdb_cursor_renew(reader, cursor), "mdb_cursor_renew")
        }
        return cursor
    }

    func walk(
        from key: UnsafeRawBufferPointer?,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
    ) throws {
        try reading {
            let cursor = try readCursor()
            var k = key.map(Self.val) ?? MDB_val()
            var v = MDB_val()
            var code = mdb_cursor_get(cursor, &k, &v, key == nil ? MDB_FIRST : MDB_SET_RANGE)
            while code == 0 {
                let more = body(
                    UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
                    UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                guard more else { return }
                code = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            if code != MDB_NOTFOUND { try check(code, "mdb_cursor_get") }
        }
    }

    /// LMDB keeps the count of the last committed transaction.
    func count() throws -> Int {
        var stat = MDB_stat()
        try check(mdb_env_stat(environment, &stat), "mdb_env_stat")
        return Int(stat.ms_entries)
    }

    func close() throws { shut() }

    static let compaction =
        "mdb_env_copy2(MDB_CP_COMPACT) to a new file, synced, renamed over the old"

    /// LMDB's compaction: a compacting copy of the environment (free pages left out, the tree
    /// rewritten in order), synced, moved over the old file (the directory synced too, as the
    /// other engines' compactions make their output durable), and the environment opened again.
    func compact() throws {
        let copy = path + "/compacted"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        try check(mdb_env_copy2(environment, copy, UInt32(MDB_CP_COMPACT)), "mdb_env_copy2")
        shut()
        try syncFile(copy + "/data.mdb")
        guard rename(copy + "/data.mdb", path + "/data.mdb") == 0 else {
            throw BenchError.setup("rename of LMDB's compacted copy: errno \(errno)")
        }
        try syncFile(path)
        try FileManager.default.removeItem(atPath: copy)
        try open()
    }

    /// One durable commit of its own, from any thread: LMDB's writer lock serialises them.
    func putConcurrently(_ key: [UInt8], _ value: [UInt8]) throws {
        var transaction: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                var k = Self.val(key)
                var v = Self.val(value)
                let code = mdb_put(transaction, database, &k, &v, 0)
                if code != 0 { mdb_txn_abort(transaction) }
                try check(code, "mdb_put")
            }
        }
        try check(mdb_txn_commit(transaction), "mdb_txn_commit")
    }

    /// The file's written blocks rather than its length: with `MDB_WRITEMAP` the length is the
    /// whole map, almost all of it a hole.
    static func fileBytes(under directory: String) -> Int64 {
        var total: Int64 = 0
        for name in ["data.mdb", "lock.mdb"] {
            var info = stat()
            guard stat(directory + "/kv.lmdb/" + name, &info) == 0 else { continue }
            total += min(Int64(info.st_size), Int64(info.st_blocks) * 512)
        }
        return total
    }

    private static func val(_ bytes: UnsafeRawBufferPointer) -> MDB_val {
        MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }

    private func check(_ code: Int32, _ call: String) throws {
        guard code == 0 else {
            throw PeerError(
                engine: "LMDB", call: call, message: String(cString: mdb_strerror(code)))
        }
    }
}

/// `fsync` of the file or directory at `path`.
private func syncFile(_ path: String) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw BenchError.setup("open \(path): errno \(errno)") }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw BenchError.setup("fsync \(path): errno \(errno)") }
}

/// A failed call into a peer's C library, with the library's own message.
struct PeerError: Error, CustomStringConvertible {
    var engine: String
    var call: String
    var message: String

    var description: String { "\(engine) error in \(call): \(message)" }
}
