import Foundation
import LogStore
import Logbook

/// The history group (issue 15): reading saves back from the log, and fetching a past state.
///
/// - `history-read`: 100,000 saves (one Employee inserted or updated each, `.buffered` durability so
///   the setup is quick; history reads the same bytes either way), then `history(after:)` from
///   the first token. Target ≥ 1M saves/s. `history-read-cpu` is the same read in the reading
///   thread's CPU time, which a busy machine does not inflate.
/// - `history-asof-fetch`: N Employees in one save, N/10 updated in a second; then the engineers
///   fetched (`designation == "Engineer"`, sorted by salary) in a current context and in a
///   `context(asOf:)` of the first save; `history-asof-open` is the cost of making that context
///   (it replays the log up to the token). Target: the asOf fetch within 2× the current one.
enum HistoryWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "history", group: "history",
                summary: "history(after:) over 100,000 saves; context(asOf:) fetch vs current"
            ) { context in
                try read(context)
                try asOf(context)
            }
        ]
    }

    private static func read(_ context: BenchContext) throws {
        let saves = context.options.quick ? 2_000 : 100_000
        try ScratchDirectory.with("history") { directory in
            var options = LogStoreOptions()
            options.durability = .buffered
            let container = try ModelContainer(
                for: [Employee.self], at: URL(fileURLWithPath: directory + "/h.logbook"),
                options: options)
            let main = container.mainContext
            let start = try container.currentHistoryToken
            var employees: [Employee] = []
            for i in 0..<saves {
                if i % 2 == 0 || employees.isEmpty {
                    let e = Employee()
                    e.name = "e\(i)"
                    e.designation = i % 3 == 0 ? "Engineer" : "Manager"
                    e.salary = Int64(i)
                    main.insert(e)
                    employees.append(e)
                } else {
                    employees[i % employees.count].salary += 1
                }
                try main.save()
            }
            var read = 0
            for _ in 0..<3 {
                var count = 0
                let cpuStart = threadCPUSeconds()
                let seconds = try measure { count = try container.history(after: start).count }
                let cpu = threadCPUSeconds() - cpuStart
                try context.expect("history-read", "logbook", "saves", count, equals: saves)
                read = count
                context.reporter.timing(
                    "history-read", engine: "logbook", operations: read, bytes: 0,
                    seconds: seconds, note: "saves read back")
                // On a busy machine the wall time counts the time the reader waits for a core.
                context.reporter.timing(
                    "history-read-cpu", engine: "logbook", operations: read, bytes: 0,
                    seconds: cpu, note: "the same, in the reading thread's CPU time")
            }
            try container.close()
        }
    }

    private static func asOf(_ context: BenchContext) throws {
        let n = context.sizes.employees
        let rows = EmployeeData.generate(count: n)
        try ScratchDirectory.with("history-asof") { directory in
            let container = try ModelContainer(
                for: [Employee.self], at: URL(fileURLWithPath: directory + "/a.logbook"))
            let insert = ModelContext(container)
            for row in rows { insert.insert(Employee(row)) }
            try insert.save()
            let token = try container.currentHistoryToken
            let update = ModelContext(container)
            let all = try update.fetch(FetchDescriptor<Employee>())
            for e in all.prefix(max(n / 10, 1)) { e.salary += 1 }
            try update.save()
            let descriptor = FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Engineer" },
                sortBy: [SortDescriptor(\.salary)])
            for _ in 0..<3 {
                var current = 0
                var past = 0
                let currentSeconds = try measure {
                    current = try ModelContext(container).fetch(descriptor).count
                }
                var then: ModelContext?
                let openSeconds = try measure { then = try container.context(asOf: token) }
                let pastSeconds = try measure { past = try then!.fetch(descriptor).count }
                try context.expect(
                    "history-asof-fetch", "logbook", "engineers", past, equals: current)
                context.reporter.timing(
                    "history-current-fetch", engine: "logbook", operations: current, bytes: 0,
                    seconds: currentSeconds, note: "engineers of \(n), sorted, current context")
                context.reporter.timing(
                    "history-asof-fetch", engine: "logbook", operations: past, bytes: 0,
                    seconds: pastSeconds, note: "the same, in context(asOf:) of the first save")
                context.reporter.timing(
                    "history-asof-open", engine: "logbook", operations: 1, bytes: 0,
                    seconds: openSeconds, note: "context(asOf:): replays the log to the token")
                context.reporter.figure(
                    "history-asof-ratio", engine: "logbook", value: pastSeconds / currentSeconds,
                    unit: "× the current fetch (target ≤ 2)")
            }
            try container.close()
        }
    }
}

/// The calling thread's CPU time, in seconds.
private func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
