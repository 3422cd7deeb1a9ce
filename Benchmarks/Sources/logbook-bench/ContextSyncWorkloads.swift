import Foundation
import LogStore
import Logbook

/// `save-sync-contexts` (issue 14): durable saves of one Employee each, from one context on one
/// thread and from 8 contexts on 8 threads at once (each thread its own `ModelContext` of one
/// container; their `.sync` commits share fdatasyncs through the engine's group commit);
/// SQLite (`synchronous=FULL`) inserts the same rows, one transaction each, from 1 thread and
/// from 8 threads taking turns on one writer connection, as GRDB's `DatabasePool` does. The
/// engines alternate in rounds whose times are summed, as in `fillsync-threads`.
enum ContextSyncWorkloads {
    static let threadCounts = [1, 8]

    static var all: [Workload] {
        [
            Workload(
                name: "save-sync-contexts", group: "concurrency",
                summary:
                    "durable one-object saves from 1 context and from 8 contexts on 8 threads; "
                    + "SQLite from 8 threads sharing one writer connection"
            ) { context in
                let n = context.sizes.threadedSyncCommits
                context.reporter.note(
                    "save-sync-contexts: \(n) saves of one Employee each, durable "
                        + "(Logbook .sync, one ModelContext per thread; SQLite synchronous=FULL, "
                        + "one transaction per row, the threads sharing one writer connection)")
                for threads in threadCounts {
                    let (ours, theirs) = try ScratchDirectory.with("save-sync") { mine in
                        try ScratchDirectory.with("save-sync") { other in
                            try run(threads, mine, other, context)
                        }
                    }
                    try context.agree(
                        "save-sync-contexts/\(threads)", "employees", logbook: ours,
                        sqlite: theirs)
                }
                for engine in ["logbook", "sqlite"] {
                    context.reporter.speedup(
                        "save-sync-contexts", engine: engine, of: "save-sync-contexts/8",
                        over: "save-sync-contexts/1",
                        unit: "× the 1-thread save rate with 8 threads (contexts or connections)")
                }
            }
        ]
    }

    /// `threads` threads saving durably at once, each through its own context of one container,
    /// and inserting into one SQLite database through one shared connection.
    static func run(
        _ threads: Int, _ ourDirectory: String, _ theirDirectory: String, _ context: BenchContext
    ) throws -> (Int, Int) {
        let rounds = 4
        let perThread = max(context.sizes.threadedSyncCommits / rounds / threads, 1)
        let saves = perThread * threads * rounds
        var options = LogStoreOptions()
        options.durability = .sync
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: ourDirectory + "/e.logbook"),
            options: options)
        let sqlite = try SharedEmployeeConnection(directory: theirDirectory)
        let rows = EmployeeData.generate(count: saves)
        var seconds = [0.0, 0.0]
        for round in 0..<rounds {
            let first = { @Sendable (thread: Int) in (round * threads + thread) * perThread }
            seconds[0] += try SyncWorkloads.runThreads(threads) { thread in
                let own = ModelContext(container)
                for row in rows[first(thread)..<first(thread) + perThread] {
                    let e = Employee()
                    e.name = row.name
                    e.designation = row.designation
                    e.salary = row.salary
                    own.insert(e)
                    try own.save()
                }
            }
            seconds[1] += try SyncWorkloads.runThreads(threads) { thread in
                for row in rows[first(thread)..<first(thread) + perThread] {
                    try sqlite.insert(row)
                }
            }
        }
        let bytes = rows.reduce(0) { $0 + $1.payloadBytes }
        for (index, engine) in ["logbook", "sqlite"].enumerated() {
            context.reporter.timing(
                "save-sync-contexts/\(threads)", engine: engine, operations: saves, bytes: bytes,
                seconds: seconds[index],
                note: "\(rounds) rounds alternating engines"
                    + (threads > 1 && engine == "sqlite" ? "; one connection shared" : ""))
        }
        let ours = try ModelContext(container).fetchCount(FetchDescriptor<Employee>())
        try container.close()
        return (ours, try sqlite.count())
    }
}

/// One durable SQLite writer connection the threads take turns on, under a lock, inserting
/// employees (what an app's single writer queue does with its commits).
final class SharedEmployeeConnection: @unchecked Sendable {
    private let lock = NSLock()
    private let employees: SQLiteEmployees

    init(directory: String) throws { employees = try SQLiteEmployees(directory: directory) }

    /// One durable commit of `row`, once the connection is free.
    func insert(_ row: EmployeeRow) throws {
        lock.lock()
        defer { lock.unlock() }
        try employees.insertAll([row])
    }

    func count() throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        return try employees.all().count
    }
}
