import Foundation
import LogStore
import Synchronization

/// Durable commits (issue 6): `fillsync`, one record per commit, each waiting for stable storage;
/// `fillsync-threads`, the same from 1, 2, 4 and 8 threads at once, where LogStore's group
/// commit should let one fdatasync serve several commits. SQLite runs `synchronous=FULL`, one
/// connection per thread, one transaction per record.
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
                summary: "durable commits from 1, 2, 4, 8 threads (group commit)"
            ) { context in
                let n = context.sizes.threadedSyncCommits
                context.reporter.note(
                    "fillsync-threads: \(n) single-record durable commits shared among T threads; "
                        + "µs/op is wall time / commits")
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
            },
        ]
    }

    /// Both engines, in `rounds` alternating rounds whose times are summed: fdatasync costs on a
    /// shared disk drift over seconds, and alternating lets both engines see the same drift.
    /// A third contender in each round appends the same bytes to a plain file and calls
    /// `fdatasync`: the floor a durable commit cannot beat, which each engine is compared with.
    static func fillsync(_ ourDirectory: String, _ theirDirectory: String, _ context: BenchContext)
        throws -> (Int, Int)
    {
        let n = context.sizes.syncCommits
        let rounds = 4
        let engines: [any KeyValueEngine] = [
            try LogStoreEngine(directory: ourDirectory, durable: true),
            try SQLiteEngine(directory: theirDirectory, durable: true),
        ]
        var seconds = [0.0, 0.0]
        var bare = 0.0
        let file = try AppendAndSyncFile(path: ourDirectory + "/bare.log")
        var key = BenchKey.make(0)
        var value = [UInt8](repeating: 0, count: context.sizes.valueSize)
        for round in 0..<rounds {
            bare += try measure {
                for _ in 0..<n / rounds { try file.append(count: BenchKey.size + value.count) }
            }
            for (index, engine) in engines.enumerated() {
                var rng = SeededGenerator(seed: Seed.data &+ UInt64(round))
                seconds[index] += try measure {
                    for id in (round * n / rounds + 1)...((round + 1) * n / rounds) {
                        BenchKey.write(id, into: &key)
                        valuePool.fill(&value, using: &rng)
                        try engine.beginBatch()
                        try engine.put(key, value)
                        try engine.commitBatch()
                    }
                }
            }
        }
        var counts: [Int] = []
        for (index, engine) in engines.enumerated() {
            let label = type(of: engine).label
            context.reporter.timing(
                "fillsync", engine: label, operations: n,
                bytes: n * EngineWorkloads.recordBytes(context), seconds: seconds[index],
                note: "\(rounds) rounds alternating engines")
            let count = try engine.count()
            try engine.close()
            try context.expect("fillsync", label, "records", count, equals: n)
            counts.append(count)
            let bareMicros = bare * 1e6 / Double(n / rounds * rounds)
            context.reporter.figure(
                "fillsync-vs-fdatasync", engine: label,
                value: seconds[index] / Double(n) * 1e6 / bareMicros,
                unit: String(format: "× a bare append + fdatasync (%.1f µs here)", bareMicros))
        }
        return (counts[0], counts[1])
    }

    /// `threads` threads committing durably at once: into one shared LogStore, and into one
    /// SQLite file through a connection per thread (opened before the clock starts). The engines
    /// alternate in `rounds` rounds whose times are summed, as in ``fillsync``.
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
        var seconds = [0.0, 0.0]
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
        }
        for (index, label) in [LogStoreEngine.label, SQLiteEngine.label].enumerated() {
            context.reporter.timing(
                "fillsync-threads/\(threads)", engine: label, operations: commits,
                bytes: commits * EngineWorkloads.recordBytes(context), seconds: seconds[index],
                note: "\(rounds) rounds alternating engines")
        }
        let ours = try store.count(in: LogStoreEngine.keyspace)
        try store.close()
        let theirs = try sqlite.count()
        try sqlite.close()
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

/// A value handed to exactly one thread, which alone uses it (a SQLite connection per thread).
final class OwnedByOneThread<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A plain file that each ``append(count:)`` extends and syncs: the cost of one durable write
/// with nothing else, to compare durable commits with.
final class AppendAndSyncFile {
    private let descriptor: Int32
    private let bytes: [UInt8]

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError.setup("open \(path): errno \(errno)") }
        bytes = [UInt8](repeating: 0x2A, count: 4096)
    }

    deinit { close(descriptor) }

    /// Appends `count` bytes (at most 4096) and waits for `fdatasync`.
    func append(count: Int) throws {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, count) }
        guard written == count, fdatasync(descriptor) == 0 else {
            throw BenchError.setup("append + fdatasync failed: errno \(errno)")
        }
    }
}
