import Foundation
import LogStore
import Synchronization

/// Durable commits (issue 6): `fillsync`, one record per commit, each waiting for stable storage;
/// `fillsync-threads`, the same from 1, 2, 4 and 8 threads at once, where LogStore's group
/// commit should let one fdatasync serve several commits. SQLite runs `synchronous=FULL`, one
/// transaction per record: in `fillsync-threads/T` with a connection per thread (the writers
/// contend for the database lock, `busy_timeout` backing off), in `fillsync-threads-shared/T`
/// with one writer connection the threads take turns on, as an app using GRDB's
/// `DatabasePool` (or any single-writer queue) does. The LogStore figure of both rows is the same
/// run.
enum SyncWorkloads {
    static let threadCounts = [1, 2, 4, 8]

    static var all: [Workload] {
        [
            Workload(name: "fillsync", group: "engine", summary: "durable single-record commits") {
                context in
                let n = context.sizes.syncCommits
                context.reporter.note(
                    "fillsync: \(n) single-record commits, each durable ("
                        + LogStoreEngine.durabilitySummary(durable: true) + "; "
                        + SQLiteEngine.durabilitySummary(durable: true) + ")")
                let (ours, theirs) = try ScratchDirectory.with("fillsync") { mine in
                    try ScratchDirectory.with("fillsync") { other in
                        try fillsync(mine, other, context)
                    }
                }
                try context.agree("fillsync", "records", logbook: ours, sqlite: theirs)
            },
            Workload(
                name: "fillsync-threads", group: "engine",
                summary:
                    "durable commits from 1, 2, 4, 8 threads (group commit); SQLite with a "
                    + "connection per thread, and with one shared writer connection"
            ) { context in
                let n = context.sizes.threadedSyncCommits
                context.reporter.note(
                    "fillsync-threads: \(n) single-record durable commits shared among T threads; "
                        + "µs/op is wall time / commits ("
                        + LogStoreEngine.durabilitySummary(durable: true) + "; "
                        + SQLiteEngine.durabilitySummary(durable: true)
                        + "; fillsync-threads/T: a SQLite connection per thread; "
                        + "fillsync-threads-shared/T: one writer connection shared by the threads, "
                        + "as GRDB's DatabasePool)")
                for threads in threadCounts {
                    let (ours, theirs) = try ScratchDirectory.with("fillsync-t") { mine in
                        try ScratchDirectory.with("fillsync-t") { other in
                            try threaded(threads, mine, other, context)
                        }
                    }
                    try context.agree(
                        "fillsync-threads/\(threads)", "records", logbook: ours, sqlite: theirs)
                }
                for engine in [LogStoreEngine.label, SQLiteEngine.label] {
                    context.reporter.speedup(
                        "fillsync-threads", engine: engine, of: "fillsync-threads/8",
                        over: "fillsync-threads/1",
                        unit: "× the 1-thread commit rate with 8 threads")
                }
                context.reporter.speedup(
                    "fillsync-threads-shared", engine: SQLiteEngine.label,
                    of: "fillsync-threads-shared/8", over: "fillsync-threads-shared/1",
                    unit: "× the 1-thread commit rate with 8 threads (one shared connection)")
            },
        ]
    }

    /// Both engines, in `rounds` alternating rounds whose times are summed: fdatasync costs on a
    /// shared disk drift over seconds, and alternating lets both engines see the same drift.
    /// A third contender in each round writes the same bytes into a preallocated plain file and
    /// calls `fdatasync`: the floor a durable commit cannot beat, which each engine is compared
    /// with (median of the per-round ratios).
    static func fillsync(_ ourDirectory: String, _ theirDirectory: String, _ context: BenchContext)
        throws -> (Int, Int)
    {
        let n = context.sizes.syncCommits
        let rounds = 8
        let perRoundCommits = n / rounds
        let engines: [any KeyValueEngine] = [
            try LogStoreEngine(directory: ourDirectory, durable: true),
            try SQLiteEngine(directory: theirDirectory, durable: true),
        ]
        let recordBytes = EngineWorkloads.recordBytes(context)
        // The floors: appending to a plain file (it grows, so each sync also flushes its size)
        // and overwriting a preallocated one (data only), each with one fdatasync per write.
        let floors = [
            try SyncedFile(path: ourDirectory + "/append.bare", preallocate: 0),
            try SyncedFile(path: ourDirectory + "/overwrite.bare", preallocate: n * recordBytes),
        ]
        var seconds = [0.0, 0.0]
        var floorSeconds = [0.0, 0.0]
        /// Per round, each engine's time over each floor's: a slow stretch of the shared disk
        /// skews a round, and the median ignores it.
        var ratios: [[[Double]]] = [[[], []], [[], []]]
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
        return (counts[0], counts[1])
    }

    /// `threads` threads committing durably at once: into one shared LogStore; into one SQLite
    /// file through a connection per thread (opened before the clock starts); and into another
    /// through one connection the threads take turns on, under a lock. The three alternate in
    /// `rounds` rounds whose times are summed, as in ``fillsync``.
    static func threaded(
        _ threads: Int, _ ourDirectory: String, _ theirDirectory: String, _ context: BenchContext
    ) throws -> (Int, Int) {
        let rounds = 4
        let perThread = max(context.sizes.threadedSyncCommits / rounds / threads, 1)
        let commits = perThread * threads * rounds
        let valueSize = context.sizes.valueSize
        let store = try LogStoreEngine(directory: ourDirectory, durable: true).store
        let sqlite = try SQLiteEngine(directory: theirDirectory, durable: true)
        let connections = try (0..<threads).map { _ in
            let database = try SQLiteDatabase(path: theirDirectory + "/kv.sqlite", durable: true)
            let insert = try database.prepare("INSERT OR REPLACE INTO kv(k, v) VALUES (?, ?)")
            return OwnedByOneThread((database, insert))
        }
        try FileManager.default.createDirectory(
            atPath: theirDirectory + "/shared", withIntermediateDirectories: false)
        let sharedSQLite = try SQLiteEngine(directory: theirDirectory + "/shared", durable: true)
        let shared = try SharedConnection(path: theirDirectory + "/shared/kv.sqlite")
        var seconds = [0.0, 0.0, 0.0]
        for round in 0..<rounds {
            /// Thread `thread` of round `round` writes ids `first + 1…first + perThread`.
            let firstID = { @Sendable (thread: Int) in (round * threads + thread) * perThread }
            seconds[0] += try runThreads(threads) { thread in
                var key = BenchKey.make(0)
                var value = [UInt8](repeating: 0, count: valueSize)
                var rng = SeededGenerator(seed: Seed.data &+ UInt64(firstID(thread)))
                for id in firstID(thread) + 1...firstID(thread) + perThread {
                    BenchKey.write(id, into: &key)
                    valuePool.fill(&value, using: &rng)
                    try store.put(value, for: key, in: LogStoreEngine.keyspace, durability: .sync)
                }
            }
            seconds[1] += try runThreads(threads) { thread in
                let insert = connections[thread].value.1
                var key = BenchKey.make(0)
                var value = [UInt8](repeating: 0, count: valueSize)
                var rng = SeededGenerator(seed: Seed.data &+ UInt64(firstID(thread)))
                for id in firstID(thread) + 1...firstID(thread) + perThread {
                    BenchKey.write(id, into: &key)
                    valuePool.fill(&value, using: &rng)
                    try key.withUnsafeBytes { key in
                        try value.withUnsafeBytes { value in
                            insert.bind(1, blob: key)
                            insert.bind(2, blob: value)
                            try insert.run()
                        }
                    }
                }
            }
            seconds[2] += try runThreads(threads) { thread in
                var key = BenchKey.make(0)
                var value = [UInt8](repeating: 0, count: valueSize)
                var rng = SeededGenerator(seed: Seed.data &+ UInt64(firstID(thread)))
                for id in firstID(thread) + 1...firstID(thread) + perThread {
                    BenchKey.write(id, into: &key)
                    valuePool.fill(&value, using: &rng)
                    try shared.insert(key, value)
                }
            }
        }
        let bytes = commits * EngineWorkloads.recordBytes(context)
        for (index, label) in [LogStoreEngine.label, SQLiteEngine.label].enumerated() {
            context.reporter.timing(
                "fillsync-threads/\(threads)", engine: label, operations: commits, bytes: bytes,
                seconds: seconds[index], note: "\(rounds) rounds alternating engines")
        }
        context.reporter.timing(
            "fillsync-threads-shared/\(threads)", engine: LogStoreEngine.label,
            operations: commits, bytes: bytes, seconds: seconds[0],
            note: "the run of fillsync-threads/\(threads)")
        context.reporter.timing(
            "fillsync-threads-shared/\(threads)", engine: SQLiteEngine.label, operations: commits,
            bytes: bytes, seconds: seconds[2],
            note: "\(rounds) rounds alternating engines; one connection shared by the threads")
        let ours = try store.count(in: LogStoreEngine.keyspace)
        try store.close()
        let theirs = try sqlite.count()
        try sqlite.close()
        let sharedCount = try sharedSQLite.count()
        try sharedSQLite.close()
        try context.expect(
            "fillsync-threads-shared/\(threads)", SQLiteEngine.label, "records", sharedCount,
            equals: theirs)
        return (ours, theirs)
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
