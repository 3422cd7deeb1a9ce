import Foundation
import LogStore
import Synchronization

/// Durable commits (issues 6 and 36): `fillsync`, one record per commit, each waiting for stable
/// storage; `fillsync-threads`, the same from 1, 2, 4 and 8 threads at once, where LogStore's
/// group commit should let one fdatasync serve several commits (LevelDB and RocksDB group
/// concurrent writers too; LMDB's writer lock takes them one at a time). Every engine syncs every
/// commit: SQLite runs `synchronous=FULL`, one transaction per record: in `fillsync-threads/T`
/// with a connection per thread (the writers contend for the database lock, `busy_timeout`
/// backing off), in `fillsync-threads-shared/T` with one writer connection the threads take turns
/// on, as an app using GRDB's `DatabasePool` (or any single-writer queue) does. The figure of
/// LogStore and of the other peers is the same run on both rows.
enum SyncWorkloads {
    static let threadCounts = [1, 2, 4, 8]

    static var all: [Workload] {
        [
            Workload(name: "fillsync", group: "engine", summary: "durable single-record commits") {
                context in
                let n = context.sizes.syncCommits
                let engines: [any KeyValueEngine.Type] = [LogStoreEngine.self] + context.peers
                context.reporter.note(
                    "fillsync: \(n) single-record commits, each durable ("
                        + Peers.settings(engines, durable: true) + ")")
                let mark = context.reporter.mark
                let counts = try ScratchDirectory.with("fillsync") {
                    try fillsync(engines, $0, context)
                }
                for (engine, count) in zip(engines, counts).dropFirst() {
                    try context.agree(
                        "fillsync", "records", logbook: counts[0], peer: engine.label, count)
                }
                context.reporter.compareWithPeers(since: mark)
            },
            Workload(
                name: "fillsync-threads", group: "engine",
                summary:
                    "durable commits from 1, 2, 4, 8 threads (group commit); SQLite with a "
                    + "connection per thread, and with one shared writer connection"
            ) { context in
                let n = context.sizes.threadedSyncCommits
                let peers = context.peers
                context.reporter.note(
                    "fillsync-threads: \(n) single-record durable commits shared among T threads; "
                        + "µs/op is wall time / commits ("
                        + Peers.settings([LogStoreEngine.self] + peers, durable: true)
                        + "; fillsync-threads/T: a SQLite connection per thread; "
                        + "fillsync-threads-shared/T: one writer connection shared by the threads, "
                        + "as GRDB's DatabasePool)")
                let mark = context.reporter.mark
                for threads in threadCounts {
                    let counts = try ScratchDirectory.with("fillsync-t") {
                        try threaded(threads, peers, $0, context)
                    }
                    for (label, count) in counts.dropFirst() {
                        try context.agree(
                            "fillsync-threads/\(threads)", "records", logbook: counts[0].1,
                            peer: label, count)
                    }
                }
                for engine in [LogStoreEngine.label] + peers.map({ $0.label }) {
                    context.reporter.speedup(
                        "fillsync-threads", engine: engine, of: "fillsync-threads/8",
                        over: "fillsync-threads/1",
                        unit: "× the 1-thread commit rate with 8 threads")
                }
                context.reporter.speedup(
                    "fillsync-threads-shared", engine: SQLiteEngine.label,
                    of: "fillsync-threads-shared/8", over: "fillsync-threads-shared/1",
                    unit: "× the 1-thread commit rate with 8 threads (one shared connection)")
                context.reporter.compareWithPeers(since: mark)
            },
        ]
    }

    /// Every engine, each in a directory of its own under `directory`, in `rounds` alternating
    /// rounds whose times are summed: fdatasync costs on a shared disk drift over seconds, and
    /// alternating lets every engine see the same drift. A further contender in each round
    /// writes the same bytes into a plain file and calls `fdatasync`: the floor a durable commit
    /// cannot beat, which each engine is compared with (median of the per-round ratios). Returns
    /// each engine's count of records at the end.
    static func fillsync(
        _ types: [any KeyValueEngine.Type], _ directory: String, _ context: BenchContext
    ) throws -> [Int] {
        let n = context.sizes.syncCommits
        let rounds = 8
        let perRoundCommits = n / rounds
        let engines: [any KeyValueEngine] = try types.map { type in
            let own = directory + "/" + type.label
            try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false)
            return try type.init(directory: own, durable: true)
        }
        let recordBytes = EngineWorkloads.recordBytes(context)
        // The floors: appending to a plain file (it grows, so each sync also flushes its size)
        // and overwriting a preallocated one (data only), each with one fdatasync per write.
        let floors = [
            try SyncedFile(path: directory + "/append.bare", preallocate: 0),
            try SyncedFile(path: directory + "/overwrite.bare", preallocate: n * recordBytes),
        ]
        var seconds = [Double](repeating: 0, count: engines.count)
        var floorSeconds = [0.0, 0.0]
        /// Per round, each engine's time over each floor's: a slow stretch of the shared disk
        /// skews a round, and the median ignores it.
        var ratios = [[[Double]]](repeating: [[], []], count: engines.count)
        var key = BenchKey.make(0)
        var value = [UInt8](repeating: 0, count: context.sizes.valueSize)
        for round in 0..<rounds {
            var floorRound = [0.0, 0.0]
            for (index, floor) in floors.enumerated() {
                floorRound[index] = try measure {
                    for _ in 0..<perRoundCommits { try floor.writeAndSync(count: recordBytes) }
                }
                floorSeconds[index] += floorRound[index]
            }
            for (index, engine) in engines.enumerated() {
                var rng = SeededGenerator(seed: Seed.data &+ UInt64(round))
                let engineRound = try measure {
                    for id in (round * perRoundCommits + 1)...((round + 1) * perRoundCommits) {
                        BenchKey.write(id, into: &key)
                        valuePool.fill(&value, using: &rng)
                        try engine.beginBatch()
                        try engine.put(key, value)
                        try engine.commitBatch()
                    }
                }
                seconds[index] += engineRound
                for floor in 0..<2 { ratios[index][floor].append(engineRound / floorRound[floor]) }
            }
        }
        let commits = perRoundCommits * rounds
        var counts: [Int] = []
        for (index, engine) in engines.enumerated() {
            let label = type(of: engine).label
            context.reporter.timing(
                "fillsync", engine: label, operations: commits, bytes: commits * recordBytes,
                seconds: seconds[index], note: "\(rounds) rounds alternating engines")
            let count = try engine.count()
            try engine.close()
            try context.expect("fillsync", label, "records", count, equals: commits)
            counts.append(count)
            for (floor, name) in ["append", "overwrite"].enumerated() {
                let sorted = ratios[index][floor].sorted()
                let micros = floorSeconds[floor] * 1e6 / Double(commits)
                context.reporter.figure(
                    "fillsync-vs-\(name)-fdatasync", engine: label, value: sorted[sorted.count / 2],
                    unit: String(
                        format: "× a bare %@ + fdatasync (%.1f µs; median of %d rounds)",
                        name == "append" ? "append" : "overwrite", micros, rounds))
            }
        }
        return counts
    }

    /// One contender of ``threaded(_:_:_:_:)``: a store the threads commit to, the rows its
    /// time goes to (each with its note), and how thread `thread` commits one record.
    private struct Contender {
        var label: String
        var rows: [(workload: String, note: String)]
        var commit: @Sendable (_ thread: Int, _ key: [UInt8], _ value: [UInt8]) throws -> Void
    }

    /// `threads` threads committing durably at once: into one shared LogStore and one store of
    /// each peer but SQLite; into one SQLite file through a connection per thread (opened before
    /// the clock starts); and into another through one connection the threads take turns on,
    /// under a lock. They alternate in `rounds` rounds whose times are summed, as in
    /// ``fillsync(_:_:_:)``. Returns each store's count of records at the end, LogStore's first.
    static func threaded(
        _ threads: Int, _ peers: [any KeyValueEngine.Type], _ directory: String,
        _ context: BenchContext
    ) throws -> [(String, Int)] {
        let rounds = 4
        let perThread = max(context.sizes.threadedSyncCommits / rounds / threads, 1)
        let commits = perThread * threads * rounds
        let valueSize = context.sizes.valueSize
        let perConnection = "fillsync-threads/\(threads)"
        let sharedConnection = "fillsync-threads-shared/\(threads)"
        let alternating = "\(rounds) rounds alternating engines"
        let both = [
            (perConnection, alternating), (sharedConnection, "the run of \(perConnection)"),
        ]
        let store = try LogStoreEngine(directory: directory, durable: true).store
        var contenders = [
            Contender(label: LogStoreEngine.label, rows: both) { _, key, value in
                try store.put(value, for: key, in: LogStoreEngine.keyspace, durability: .sync)
            }
        ]
        var counts: [(String, () throws -> Int)] = [
            (LogStoreEngine.label, { try store.count(in: LogStoreEngine.keyspace) })
        ]
        var closers: [() throws -> Void] = [{ try store.close() }]
        for peer in peers {
            let own = directory + "/" + peer.label
            try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false)
            if let type = peer as? any ConcurrentPuts.Type {
                let engine = try type.init(directory: own, durable: true)
                contenders.append(
                    Contender(label: peer.label, rows: both) { _, key, value in
                        try engine.putConcurrently(key, value)
                    })
                counts.append((peer.label, engine.count))
                closers.append(engine.close)
                continue
            }
            guard peer == SQLiteEngine.self else {
                throw BenchError.setup("\(peer.label) cannot take commits from several threads")
            }
            // SQLite: a connection per thread, and one connection shared by them.
            let sqlite = try SQLiteEngine(directory: own, durable: true)
            let connections = try (0..<threads).map { _ in
                let database = try SQLiteDatabase(path: own + "/kv.sqlite", durable: true)
                let insert = try database.prepare("INSERT OR REPLACE INTO kv(k, v) VALUES (?, ?)")
                return OwnedByOneThread((database, insert))
            }
            try FileManager.default.createDirectory(
                atPath: own + "/shared", withIntermediateDirectories: false)
            let sharedSQLite = try SQLiteEngine(directory: own + "/shared", durable: true)
            let shared = try SharedConnection(path: own + "/shared/kv.sqlite")
            contenders.append(
                Contender(label: peer.label, rows: [(perConnection, alternating)]) {
                    thread, key, value in
                    let insert = connections[thread].value.1
                    try key.withUnsafeBytes { key in
                        try value.withUnsafeBytes { value in
                            insert.bind(1, blob: key)
                            insert.bind(2, blob: value)
                            try insert.run()
                        }
                    }
                })
            contenders.append(
                Contender(
                    label: peer.label,
                    rows: [
                        (sharedConnection, alternating + "; one connection shared by the threads")
                    ]
                ) { _, key, value in try shared.insert(key, value) })
            counts.append((peer.label, sqlite.count))
            closers.append(sqlite.close)
            closers.append {
                let sharedCount = try sharedSQLite.count()
                try sharedSQLite.close()
                try context.expect(
                    sharedConnection, SQLiteEngine.label, "records", sharedCount,
                    equals: commits)
            }
        }
        var seconds = [Double](repeating: 0, count: contenders.count)
        for round in 0..<rounds {
            /// Thread `thread` of round `round` writes ids `first + 1…first + perThread`.
            let firstID = { @Sendable (thread: Int) in (round * threads + thread) * perThread }
            for (index, contender) in contenders.enumerated() {
                let commit = contender.commit
                seconds[index] += try runThreads(threads) { thread in
                    var key = BenchKey.make(0)
                    var value = [UInt8](repeating: 0, count: valueSize)
                    var rng = SeededGenerator(seed: Seed.data &+ UInt64(firstID(thread)))
                    for id in firstID(thread) + 1...firstID(thread) + perThread {
                        BenchKey.write(id, into: &key)
                        valuePool.fill(&value, using: &rng)
                        try commit(thread, key, value)
                    }
                }
            }
        }
        let bytes = commits * EngineWorkloads.recordBytes(context)
        for (index, contender) in contenders.enumerated() {
            for (row, note) in contender.rows {
                context.reporter.timing(
                    row, engine: contender.label, operations: commits, bytes: bytes,
                    seconds: seconds[index], note: note)
            }
        }
        let result = try counts.map { label, count in (label, try count()) }
        for close in closers { try close() }
        return result
    }

    /// Runs `body(0)…body(threads-1)` on their own threads, started together; returns the wall
    /// time from the start signal until the last one finished, and rethrows the first error.
    static func runThreads(_ threads: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws
        -> Double
    {
        let errors = Mutex<[String]>([])
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            let thread = Thread {
                ready.signal()
                start.wait()
                do { try body(index) } catch { errors.withLock { $0.append("\(error)") } }
                done.signal()
            }
            thread.start()
        }
        for _ in 0..<threads { ready.wait() }
        let seconds = measure {
            for _ in 0..<threads { start.signal() }
            for _ in 0..<threads { done.wait() }
        }
        if let first = errors.withLock({ $0.first }) {
            throw BenchError.setup("a thread failed: \(first)")
        }
        return seconds
    }
}

/// One SQLite writer connection that threads take turns on, under a lock: what an app's single
/// writer queue (GRDB's `DatabasePool` writer) does with its commits.
final class SharedConnection: @unchecked Sendable {
    private let lock = NSLock()
    private let database: SQLiteDatabase
    private let statement: SQLiteStatement

    init(path: String) throws {
        database = try SQLiteDatabase(path: path, durable: true)
        statement = try database.prepare("INSERT OR REPLACE INTO kv(k, v) VALUES (?, ?)")
    }

    /// One durable commit of `key` → `value`, once the connection is free.
    func insert(_ key: [UInt8], _ value: [UInt8]) throws {
        lock.lock()
        defer { lock.unlock() }
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                statement.bind(1, blob: key)
                statement.bind(2, blob: value)
                try statement.run()
            }
        }
    }
}

/// A value handed to exactly one thread, which alone uses it (a SQLite connection per thread).
final class OwnedByOneThread<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A plain file that each ``writeAndSync(count:)`` extends (or, if preallocated, overwrites) and
/// syncs with `fdatasync`: what one durable write costs on this disk with nothing else, to
/// compare durable commits with. Preallocated, the file's size never changes, so the sync
/// flushes data only.
final class SyncedFile {
    private let descriptor: Int32
    private let bytes = [UInt8](repeating: 0x2A, count: 4096)
    private var offset = 0

    /// Creates the file at `path` with `preallocate` bytes on stable storage.
    init(path: String, preallocate: Int) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError.setup("open \(path): errno \(errno)") }
        var filled = 0
        while filled < preallocate {
            let chunk = min(bytes.count, preallocate - filled)
            guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, chunk) }) == chunk
            else {
                throw BenchError.setup("fill \(path): errno \(errno)")
            }
            filled += chunk
        }
        guard fsync(descriptor) == 0 else {
            throw BenchError.setup("fsync \(path): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Writes the next `count` bytes (at most 4096) and waits for `fdatasync`.
    func writeAndSync(count: Int) throws {
        let written = bytes.withUnsafeBytes {
            pwrite(descriptor, $0.baseAddress, count, off_t(offset))
        }
        offset += count
        guard written == count, fdatasync(descriptor) == 0 else {
            throw BenchError.setup("write + fdatasync failed: errno \(errno)")
        }
    }
}
