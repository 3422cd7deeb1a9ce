import Foundation
import LogStore
import Synchronization

/// LogStore's segment size in the engine workloads; 0 keeps the engine's default. `--quick`
/// makes it small, so CI's small stores still roll over, reopen and compact several segments.
let benchSegmentSize = Atomic<Int>(0)

/// The engine workloads' view of a store: batches of puts and deletes, point reads, a full scan.
/// Every engine implements it (LogStore, SQLite and the peers of ``Peers``), so every workload
/// is written once and runs the same operations in the same order on each. Not thread-safe.
protocol KeyValueEngine: AnyObject {
    /// The name in the output: `logstore`, `sqlite`, `lmdb`, `leveldb` or `rocksdb`.
    static var label: String { get }
    /// What durability means for this engine, and its settings, for the output.
    static func durabilitySummary(durable: Bool) -> String
    /// What ``compact()`` does, for the output.
    static var compaction: String { get }
    /// Bytes of the store's files in `directory`, after ``close()``.
    static func fileBytes(under directory: String) -> Int64

    /// Opens (or creates) the store in `directory`, in files or a directory named after the
    /// engine, so engines can share one. `durable` makes every commit wait for stable storage
    /// (LogStore `.sync`, SQLite `synchronous=FULL`, LMDB's default sync, LevelDB and RocksDB
    /// `sync = true`); otherwise commits reach the OS (a crashed process loses none of them)
    /// without waiting for the disk.
    init(directory: String, durable: Bool) throws

    func beginBatch() throws
    func put(_ key: [UInt8], _ value: [UInt8]) throws
    func delete(_ key: [UInt8]) throws
    func commitBatch() throws

    /// Brackets a run of reads (SQLite reads inside one transaction, as apps batch them).
    func beginReads() throws
    func endReads() throws

    /// Calls `body` with the value of `key` (or `nil`), valid during the call.
    func get(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) -> Void) throws
    /// Calls `body` with every live record, in any order.
    func forEachRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws
    /// Calls `body` with up to `count` records from `first` in key order (YCSB's scan).
    func scan(from first: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws
    func count() throws -> Int
    func close() throws
    /// The engine's own compaction of its files (``compaction`` says what it runs).
    func compact() throws
}

extension KeyValueEngine {
    static func fileBytes(under directory: String) -> Int64 {
        ScratchDirectory.bytes(under: directory)
    }
}

/// An engine whose store many threads may commit to at once (`fillsync-threads`).
protocol ConcurrentPuts: KeyValueEngine, Sendable {
    /// One put committed on its own, with the durability the engine was opened with; safe to
    /// call from any thread.
    func putConcurrently(_ key: [UInt8], _ value: [UInt8]) throws
}

/// LogStore, keyspace `kv`.
class LogStoreEngine: KeyValueEngine {
    static let label = "logstore"
    static let keyspace = "kv"
    static func durabilitySummary(durable: Bool) -> String {
        (durable ? "LogStore .sync" : "LogStore .buffered") + ", automatic compaction off"
    }

    /// Whether `kv` is an ordered keyspace (``OrderedLogStoreEngine``), which scans iterate.
    class var ordered: Bool { false }

    /// For A/B runs of the key directory file (its mapped table against the anonymous one a
    /// rebuild makes): LOGBOOK_BENCH_NO_KEYS_DIR=1 never writes it. Read once: building
    /// `ProcessInfo.environment` costs tens of µs, which `reopen` timed with every open.
    static let withoutKeyDirectoryFile =
        ProcessInfo.processInfo.environment["LOGBOOK_BENCH_NO_KEYS_DIR"] == "1"

    let store: LogStore
    private let durability: Durability
    private var batch = WriteBatch()

    required init(directory: String, durable: Bool) throws {
        durability = durable ? .sync : .buffered
        var options = LogStoreOptions()
        if Self.ordered { options.orderedKeyspaces = [Self.keyspace] }
        options.durability = durability
        options.autoCompactionDeadFraction = nil
        let segmentSize = benchSegmentSize.load(ordering: .relaxed)
        if segmentSize > 0 { options.segmentSize = segmentSize }
        if Self.withoutKeyDirectoryFile { options.keyDirectoryFileMinimumKeys = nil }
        store = try LogStore(path: directory + "/kv.logstore", options: options)
    }

    func beginBatch() { batch.removeAll() }
    func put(_ key: [UInt8], _ value: [UInt8]) { batch.put(value, for: key, in: Self.keyspace) }
    func delete(_ key: [UInt8]) { batch.delete(key, in: Self.keyspace) }
    func commitBatch() throws { try store.commit(batch, durability: durability) }
    func beginReads() {}
    func endReads() {}

    /// Reads the value in place (`withValue`), as SQLite's side reads its blob in place: the
    /// figure is the lookup, not an allocation and copy of the value.
    func get(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) -> Void) throws {
        let found: Bool? = try key.withUnsafeBytes { key in
            try store.withValue(forKey: key, in: Self.keyspace) { value in
                body(value)
                return true
            }
        }
        if found == nil { body(nil) }
    }

    func forEachRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws {
        try store.forEach(in: Self.keyspace) { key, value in body(key, value) }
    }

    /// In an ordered keyspace, iteration in key order from `first`; otherwise emulated by point
    /// reads of consecutive ids, which returns the same records as SQLite's range scan over this
    /// suite's dense ids.
    func scan(from first: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        var key = BenchKey.make(first)
        if Self.ordered {
            try store.forEach(in: Self.keyspace, from: key, limit: count) { _, value in
                body(value)
            }
            return
        }
        for id in first..<first + count {
            BenchKey.write(id, into: &key)
            try get(key) { value in if let value { body(value) } }
        }
    }

    func count() throws -> Int { try store.count(in: Self.keyspace) }
    func close() throws { try store.close() }

    static let compaction = "LogStore.compact()"
    func compact() throws { try store.compact() }
}

/// LogStore with `kv` declared ordered: YCSB's store, whose E scans iterate in key order.
final class OrderedLogStoreEngine: LogStoreEngine {
    override class var ordered: Bool { true }
}

/// SQLite, table `kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`.
final class SQLiteEngine: KeyValueEngine {
    static let label = "sqlite"
    static func durabilitySummary(durable: Bool) -> String {
        "SQLite " + SQLiteSettings.summary(durable: durable)
    }

    private var database: SQLiteDatabase?
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let insert: SQLiteStatement
    private let remove: SQLiteStatement
    private let select: SQLiteStatement
    private let range: SQLiteStatement

    init(directory: String, durable: Bool) throws {
        let database = try SQLiteDatabase(path: directory + "/kv.sqlite", durable: durable)
        try database.execute(
            "CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        begin = try database.prepare("BEGIN")
        commit = try database.prepare("COMMIT")
        insert = try database.prepare("INSERT OR REPLACE INTO kv(k, v) VALUES (?, ?)")
        remove = try database.prepare("DELETE FROM kv WHERE k = ?")
        select = try database.prepare("SELECT v FROM kv WHERE k = ?")
        range = try database.prepare("SELECT v FROM kv WHERE k >= ? ORDER BY k LIMIT ?")
        self.database = database
    }

    func beginBatch() throws { try begin.run() }

    func put(_ key: [UInt8], _ value: [UInt8]) throws {
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                insert.bind(1, blob: key)
                insert.bind(2, blob: value)
                try insert.run()
            }
        }
    }

    func delete(_ key: [UInt8]) throws {
        try key.withUnsafeBytes { key in
            remove.bind(1, blob: key)
            try remove.run()
        }
    }

    func commitBatch() throws { try commit.run() }
    func beginReads() throws { try begin.run() }
    func endReads() throws { try commit.run() }

    func get(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) -> Void) throws {
        try key.withUnsafeBytes { key in
            select.bind(1, blob: key)
            defer { select.reset() }
            body(try select.step() ? select.blob(0) : nil)
        }
    }

    func forEachRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws {
        guard let database else { return }
        let all = try database.prepare("SELECT k, v FROM kv")
        while try all.step() { body(all.blob(0), all.blob(1)) }
    }

    func scan(from first: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        try BenchKey.make(first).withUnsafeBytes { key in
            range.bind(1, blob: key)
            range.bind(2, Int64(count))
            defer { range.reset() }
            while try range.step() { body(range.blob(0)) }
        }
    }

    func count() throws -> Int {
        Int(try database?.integer("SELECT count(*) FROM kv") ?? 0)
    }

    /// Checkpoints the WAL into the database file and closes. Statements must be released
    /// first, so this object is unusable afterwards.
    func close() throws {
        try database?.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        database = nil
    }

    static let compaction = "VACUUM, SQLite's analogue of compaction"

    /// Rewrites the database file (VACUUM): SQLite's analogue of compaction.
    func compact() throws {
        try database?.execute("VACUUM")
        try database?.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
