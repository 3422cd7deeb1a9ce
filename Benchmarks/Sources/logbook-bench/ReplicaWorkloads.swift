import Foundation
import Logbook
import Synchronization

/// The replica's rows (issue 37, "Performance"), over loopback TCP to the scratch PostgreSQL
/// server of `.ci/postgres` (`bash .ci/postgres swift run -c release --package-path Benchmarks
/// logbook-bench replica`): without its environment (`LOGBOOK_TEST_PSQL`,
/// `LOGBOOK_TEST_PG_PORT`) the rows are skipped with a note, never failed.
///
/// - `sync-up`: N Employees inserted in saves of 1,000 into a store already joined to an empty
///   database, then one ``PostgreSQLReplica/sync()`` timed: N changes sent, one PostgreSQL
///   transaction per save. Target ≥ 20,000 changes/s.
/// - `sync-down`: a second, empty store joins the same database and one `sync()` applies those
///   N changes (the same transactions, one save each). Target ≥ 20,000 changes/s.
/// - `sync-notify-latency`: both replicas running in the background; one Employee updated and
///   saved in the first, timed until the second's observer sees the save (up, PostgreSQL's
///   `NOTIFY`, down). Median of R rounds; target ≤ 50 ms.
///
/// Every wait has a deadline: a sync that does not finish, or a save that does not arrive,
/// fails its row with the time it waited instead of hanging the suite.
enum ReplicaWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "replica-sync", group: "replica",
                summary:
                    "PostgreSQL sync (needs .ci/postgres): up and down throughput of N changes, "
                    + "save-to-other-replica latency through NOTIFY"
            ) { context in
                let n = context.options.quick ? 500 : (context.options.num ?? 100_000)
                let rounds = context.options.quick ? 5 : 100
                guard let server = PostgreSQLServer.fromEnvironment() else {
                    context.reporter.note(
                        "replica: skipped, no PostgreSQL server (run under .ci/postgres, which "
                            + "sets LOGBOOK_TEST_PSQL and LOGBOOK_TEST_PG_PORT)")
                    for row in ["sync-up", "sync-down", "sync-notify-latency"] {
                        context.reporter.unavailable(
                            row, engine: "logbook", reason: "no PostgreSQL server")
                    }
                    return
                }
                context.reporter.note(
                    "replica: N=\(n) Employees inserted in saves of "
                        + "\(context.options.quick ? 100 : batch) into a store joined "
                        + "to an empty database on 127.0.0.1:\(server.port) (TCP, trust, "
                        + "fsync=off), sent by one sync() (sync-up); a second empty store "
                        + "applies them by one sync() (sync-down); then both replicas running, "
                        + "\(rounds) single-Employee saves timed until the other's observer "
                        + "sees them (sync-notify-latency, median); load "
                        + (Reporter.loadAverage() ?? "unknown"))
                try ScratchDirectory.with("replica") { directory in
                    let database = try server.makeDatabase()
                    defer { server.drop(database) }
                    try run(
                        context, server: server, database: database, directory: directory,
                        n: n, rounds: rounds)
                }
            }
        ]
    }

    /// Issue 37's figures.
    static let targets = [
        Target(
            name: "replica: sync up ≥ 20,000 changes/s", workload: "sync-up",
            rule: .operationsPerSecondAtLeast(20_000)),
        Target(
            name: "replica: sync down ≥ 20,000 changes/s", workload: "sync-down",
            rule: .operationsPerSecondAtLeast(20_000)),
        Target(
            name: "replica: a save reaches another replica through NOTIFY ≤ 50 ms (median)",
            workload: "sync-notify-latency", rule: .millisecondsAtMost(50)),
    ]

    /// Employees per save in `sync-up`.
    static let batch = 1000

    static func run(
        _ context: BenchContext, server: PostgreSQLServer, database: String, directory: String,
        n: Int, rounds: Int
    ) throws {
        let deadline = context.options.quick ? 60.0 : max(300, Double(n) / 500)
        let url = server.url(database: database)
        let first = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: directory + "/a.logbook"))
        defer { try? first.close() }
        var options = PostgreSQLReplica.Options(name: "bench-a")
        options.pollInterval = 1
        let up = try PostgreSQLReplica(container: first, url: url, options: options)
        defer { up.stop() }
        // Joins the database (tables, triggers, the origin) before anything is timed.
        _ = try Deadline.run("the first replica's join", seconds: deadline, cancel: up.stop) {
            try up.sync()
        }

        let second = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: directory + "/b.logbook"))
        defer { try? second.close() }
        options.name = "bench-b"
        let down = try PostgreSQLReplica(container: second, url: url, options: options)
        defer { down.stop() }
        _ = try Deadline.run("the second replica's join", seconds: deadline, cancel: down.stop) {
            try down.sync()
        }

        let rows = EmployeeData.generate(count: n)
        let batch = context.options.quick ? 100 : Self.batch
        let model = ModelContext(first)
        for start in stride(from: 0, to: n, by: batch) {
            for row in rows[start..<min(start + batch, n)] { model.insert(Employee(row)) }
            try model.save()
        }
        var sent: ReplicaStatus?
        let upSeconds = try measure {
            sent = try Deadline.run("sync-up of \(n) changes", seconds: deadline, cancel: up.stop) {
                try up.sync()
            }
        }
        guard let sent, sent.pendingSaves == 0, sent.changesSent == n else {
            throw BenchError.setup(
                "sync-up: \(sent?.changesSent ?? 0) changes sent of \(n), "
                    + "\(sent?.pendingSaves ?? -1) saves pending")
        }
        let inDatabase = try server.scalar(database, "SELECT count(*) FROM \"Employee\"")
        try context.expect("sync-up", "logbook", "rows in PostgreSQL", inDatabase, equals: "\(n)")
        context.reporter.timing(
            "sync-up", engine: "logbook", operations: n, bytes: payload(rows), seconds: upSeconds,
            note: "\((n + batch - 1) / batch) transactions; load " + (Reporter.loadAverage() ?? "?")
        )

        var applied: ReplicaStatus?
        let downSeconds = try measure {
            applied = try Deadline.run(
                "sync-down of \(n) changes", seconds: deadline, cancel: down.stop
            ) { try down.sync() }
        }
        let count = try ModelContext(second).fetchCount(FetchDescriptor<Employee>())
        try context.expect("sync-down", "logbook", "Employees in the store", count, equals: n)
        context.reporter.timing(
            "sync-down", engine: "logbook", operations: n, bytes: payload(rows),
            seconds: downSeconds,
            note: "\(applied?.transactionsApplied ?? 0) transactions; load "
                + (Reporter.loadAverage() ?? "?"))

        try latency(context, first, up, second, down, rounds: rounds)
    }

    /// `sync-notify-latency`: both replicas in the background, an Employee of the first store
    /// updated `rounds` times, each save timed until the second store's observer sees it.
    static func latency(
        _ context: BenchContext, _ first: ModelContainer, _ up: PostgreSQLReplica,
        _ second: ModelContainer, _ down: PostgreSQLReplica, rounds: Int
    ) throws {
        var descriptor = FetchDescriptor<Employee>()
        descriptor.fetchLimit = 1
        let model = ModelContext(first)
        guard let employee = try model.fetch(descriptor).first else {
            throw BenchError.setup("sync-notify-latency: no Employee to update")
        }
        let id = employee.persistentModelID
        let arrived = DispatchSemaphore(value: 0)
        let observation = second.observeChanges { changes in
            if changes.updated[id] != nil { arrived.signal() }
        }
        defer { observation.cancel() }
        up.start()
        down.start()
        // Both connected and idle before the first round.
        let stopBoth: @Sendable () -> Void = {
            up.stop()
            down.stop()
        }
        try Deadline.run("the replicas' start", seconds: 30, cancel: stopBoth) {
            try up.sync()
            try down.sync()
        }
        var samples: [Double] = []
        for round in 1...rounds {
            employee.salary = 1_000_000 + Int64(round)
            let start = ContinuousClock.now
            try model.save()
            guard arrived.wait(timeout: .now() + 10) == .success else {
                throw BenchError.setup(
                    "sync-notify-latency: round \(round)'s save did not reach the other replica "
                        + "in 10 s (first store: \(up.status.lastError ?? "no error"); second: "
                        + "\(down.status.lastError ?? "no error"))")
            }
            let elapsed = ContinuousClock.now - start
            samples.append(
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            Thread.sleep(forTimeInterval: 0.02)
        }
        let value = try ModelContext(second).model(for: id, as: Employee.self)?.salary
        try context.expect(
            "sync-notify-latency", "logbook", "the salary in the second store", value,
            equals: 1_000_000 + Int64(rounds))
        samples.sort()
        let median = samples[samples.count / 2]
        let p95 = samples[min(samples.count - 1, samples.count * 95 / 100)]
        context.reporter.timing(
            "sync-notify-latency", engine: "logbook", operations: 1, bytes: 0, seconds: median,
            note: String(
                format: "median of %d saves; min %.1f ms, p95 %.1f ms, max %.1f ms; load %@",
                samples.count, samples[0] * 1000, p95 * 1000, samples.last! * 1000,
                Reporter.loadAverage() ?? "?"))
    }

    static func payload(_ rows: [EmployeeRow]) -> Int {
        rows.reduce(0) { $0 + $1.payloadBytes }
    }
}

/// Runs work on a thread of its own and waits for it at most a given time.
enum Deadline {
    /// Runs `body` and returns its result, or, once `seconds` have passed, calls `cancel`, waits
    /// at most 10 s more for `body` to stop, and throws ``BenchError/setup(_:)`` naming `what`.
    static func run<T: Sendable>(
        _ what: String, seconds: Double, cancel: @escaping @Sendable () -> Void,
        _ body: @escaping @Sendable () throws -> T
    ) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        if done.wait(timeout: .now() + seconds) == .timedOut {
            // On a thread of its own too: stopping a replica waits for its threads.
            DispatchQueue.global().async(execute: cancel)
            _ = done.wait(timeout: .now() + 10)
            throw BenchError.setup(String(format: "%@ did not finish in %g s", what, seconds))
        }
        return try outcome.withLock { $0! }.get()
    }
}

/// The scratch server of `.ci/postgres`, from the environment it sets.
struct PostgreSQLServer {
    /// psql's connection arguments (a superuser on the Unix socket).
    var psql: [String]
    var port: String

    static func fromEnvironment() -> PostgreSQLServer? {
        let environment = ProcessInfo.processInfo.environment
        guard let arguments = environment["LOGBOOK_TEST_PSQL"], !arguments.isEmpty,
            let port = environment["LOGBOOK_TEST_PG_PORT"]
        else { return nil }
        return PostgreSQLServer(
            psql: arguments.split(separator: " ").map(String.init), port: port)
    }

    /// The URL the replicas use: TCP on the loopback, as `logbook_trust` (trust).
    func url(database: String) -> String {
        "postgresql://logbook_trust@127.0.0.1:\(port)/\(database)?connect_timeout=10"
    }

    /// A new empty database owned by `logbook_trust`.
    func makeDatabase() throws -> String {
        let name = "logbook_bench_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try run(["-c", "CREATE DATABASE \(name) OWNER logbook_trust"])
        return name
    }

    func drop(_ database: String) {
        _ = try? run(["-c", "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"])
    }

    /// The single value `sql` returns in `database`.
    func scalar(_ database: String, _ sql: String) throws -> String {
        try run(["-d", database, "-c", sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs psql with `arguments` after the connection's (a later `-d` wins), at most 60 s.
    func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql"] + psql + ["-qAtX", "-v", "ON_ERROR_STOP=1"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let timer = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: timer)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        exited.wait()
        timer.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError.setup(
                "psql \(arguments.joined(separator: " ")) failed: "
                    + String(decoding: message, as: UTF8.self).prefix(400))
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Reporter {
    /// The 1-minute load average (`/proc/loadavg`'s first field), shown beside figures taken on
    /// a shared machine.
    static func loadAverage() -> String? {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").first.map(String.init)
    }
}
