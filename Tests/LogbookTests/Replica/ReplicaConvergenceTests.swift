import Foundation
import Testing

@testable import Logbook
@testable import TestSupport

// Linux only: the children are started with Glibc's posix_spawn.
#if canImport(Glibc)
    import Glibc

    private let child = builtExecutable("logbook-sync-child")
    private let serverControl = ProcessInfo.processInfo.environment["LOGBOOK_TEST_PG_CTL"]
    /// Whether a fault stops and restarts the whole server (`LOGBOOK_SYNC_STOP_SERVER=1`; run
    /// the suite alone then, as other suites share the server); by default the test's database
    /// alone goes away.
    private let stopsServer = ProcessInfo.processInfo.environment["LOGBOOK_SYNC_STOP_SERVER"] == "1"

    /// Three stores in three processes and one PostgreSQL, under random work on every store and
    /// in SQL, and random faults — a sync process killed, the database gone for a while (or
    /// PostgreSQL stopped and started), the replicas' connections cut — then healed: every store and PostgreSQL must hold the same
    /// objects, row by row. Seeded (`LOGBOOK_SEED`); `LOGBOOK_SYNC_ROUNDS` rounds (3, or 20 with
    /// `LOGBOOK_LONG_TESTS=1`); each round has random faults and one forced, of each kind in turn.
    @Suite(
        .enabled(
            if: SyncFixture.isAvailable && child != nil
                && (serverControl != nil || !stopsServer),
            "needs the server of .ci/postgres and the logbook-sync-child executable"),
        .serialized)
    struct ReplicaConvergenceTests {
        static let environment = ProcessInfo.processInfo.environment
        static let rounds =
            environment["LOGBOOK_SYNC_ROUNDS"].flatMap { Int($0) }
            ?? TestTier.pick(quick: 3, long: 20)

        /// A running child, its output going to a file. Started with `posix_spawn` and reaped
        /// with `waitpid`: Foundation's `Process` sometimes missed the end of a short-lived child
        /// here (it stayed a zombie, and `waitUntilExit` never returned), and a pipe that nobody
        /// drains stops a child that writes much.
        final class Child {
            let pid: pid_t
            let outputPath: String
            private(set) var status: Int32?

            init(_ executable: String, _ arguments: [String], output: String) throws {
                outputPath = output
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(
                    &actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
                var environment = ProcessInfo.processInfo.environment
                environment["SWIFT_BACKTRACE"] = "enable=no"
                let argv = ([executable] + arguments).map { strdup($0) } + [nil]
                let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
                defer { (argv + envp).forEach { free($0) } }
                var pid: pid_t = 0
                let error = posix_spawn(&pid, executable, &actions, nil, argv, envp)
                guard error == 0 else { throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO) }
                self.pid = pid
            }

            var isRunning: Bool {
                guard status == nil else { return false }
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
                return status == nil
            }

            /// Waits for the end; the exit status (128 + N for signal N).
            @discardableResult
            func wait() -> Int32 {
                while status == nil {
                    var raw: Int32 = 0
                    let result = waitpid(pid, &raw, 0)
                    if result == pid { status = raw } else if errno != EINTR { status = -1 }
                }
                let raw = status!
                return raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            }

            var text: String { String(decoding: readFile(outputPath), as: UTF8.self) }

            func kill() {
                guard isRunning else { return }
                Glibc.kill(pid, SIGKILL)
                wait()
            }
        }

        @Test func everyStoreAndPostgreSQLEndTheSame() throws {
            let seed = testSeed("ReplicaConvergenceTests")
            var rng = SeededGenerator(seed: seed)
            try withDatabase { database in
                let directories = (0..<3).map { _ in TemporaryDirectory("converge") }
                defer { directories.forEach { $0.remove() } }
                let stores = directories.map { $0.child("store.logbook") }
                func work(_ store: Int, steps: Int, _ rng: inout SeededGenerator) throws -> Child {
                    try Child(
                        child!,
                        [
                            "work", stores[store], database.url, "s\(store)", String(rng.next()),
                            String(steps),
                        ], output: directories[store].child("work.txt"))
                }
                func heal(_ k: Int) throws {
                    let healer = try Child(
                        child!, ["heal", stores[k], database.url, "s\(k)"],
                        output: directories[k].child("heal-\(UUID()).txt"))
                    let status = healer.wait()
                    #expect(status == 0, "store \(k): \(healer.text.suffix(2000))")
                }
                // Each store joins while empty: a store that holds objects joins only a database
                // it filled itself (their identifiers would clash).
                for k in 0..<3 { try heal(k) }
                var sql: PostgreSQLConnection?
                var faults: [String] = []
                for round in 0..<Self.rounds {
                    var children = try (0..<3).map { try work($0, steps: 40, &rng) }
                    let deadline = Date(timeIntervalSinceNow: 60)
                    var iteration = 0
                    // Random faults, and one of each kind in turn a few steps into each round.
                    while children.contains(where: \.isRunning) || iteration <= 3,
                        Date() < deadline
                    {
                        iteration += 1
                        do {
                            if sql == nil || sql!.isClosed { sql = try database.connect() }
                            try SyncWorkload.sqlStep(sql!, &rng)
                        } catch {
                            sql?.close()
                            sql = nil
                        }
                        let roll = rng.next() % 100
                        switch iteration == 3 ? [0, 3, 5][round % 3] : roll {
                        case 0..<3:
                            let k = Int(rng.next() % 3)
                            guard children[k].isRunning else { break }
                            children[k].kill()
                            faults.append("killed the process of store \(k)")
                            children[k] = try work(k, steps: 15, &rng)
                        case 3..<5 where stopsServer:
                            faults.append("stopped and started PostgreSQL")
                            sql?.close()
                            sql = nil
                            try control(
                                "stop", "-m", "fast", log: directories[0].child("pg_ctl.txt"))
                            usleep(UInt32(100_000 + rng.next() % 700_000))
                            try control("start", log: directories[0].child("pg_ctl.txt"))
                        case 3..<5:
                            // The server stays up for the other suites: this database alone
                            // goes away, its sessions ended and new ones refused for a while.
                            faults.append("took the database away for a while")
                            sql?.close()
                            sql = nil
                            let admin = try SyncFixture.adminConnection()
                            defer { admin.close() }
                            let name = "\"\(database.name)\""
                            try admin.simpleQuery("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
                            try admin.simpleQuery(
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    + "WHERE datname = '\(database.name)'")
                            usleep(UInt32(100_000 + rng.next() % 700_000))
                            try admin.simpleQuery("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
                        case 5..<9:
                            faults.append("cut the replicas' connections")
                            _ = try? sql?.simpleQuery(
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    + "WHERE application_name = 'logbook sync' "
                                    + "AND datname = '\(database.name)'")
                        default: break
                        }
                        usleep(UInt32(20_000 + rng.next() % 60_000))
                    }
                    for (k, child) in children.enumerated() {
                        if child.isRunning {
                            child.kill()
                        } else {
                            let status = child.wait()
                            #expect(status == 0, "store \(k): \(child.text.suffix(2000))")
                        }
                    }
                }
                sql?.close()
                print("ReplicaConvergenceTests: \(faults.count) faults: \(Set(faults).sorted())")
                // Heal: each store syncs until nothing moves, twice round.
                for _ in 0..<2 {
                    for k in 0..<3 { try heal(k) }
                }
                let expected = try databaseRows(database)
                #expect(expected.count > 10)
                for (k, path) in stores.enumerated() {
                    let container = try ModelContainer(
                        schema: SyncFixture.schema, at: URL(fileURLWithPath: path))
                    let rows = try storeRows(container)
                    try container.close()
                    let differing = Set(rows.keys).union(expected.keys).filter {
                        rows[$0] != expected[$0]
                    }
                    let sample = differing.sorted().prefix(5).map { key in
                        "\(key): \(rows[key].map { "\($0)" } ?? "-") ≠ "
                            + (expected[key].map { "\($0)" } ?? "-")
                    }
                    #expect(
                        differing.isEmpty,
                        "store \(k) differs from PostgreSQL in \(differing.count) objects: \(sample)"
                    )
                }
            }
        }

        /// Runs the server's control command (`.ci/postgres`'s `LOGBOOK_TEST_PG_CTL`).
        func control(_ arguments: String..., log: String) throws {
            let status = try Child(serverControl!, arguments, output: log).wait()
            #expect(
                status == 0,
                "pg_ctl \(arguments): \(String(decoding: readFile(log), as: UTF8.self))")
        }
    }
#endif
