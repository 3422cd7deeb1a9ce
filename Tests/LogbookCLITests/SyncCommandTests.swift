import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `logbook sync PATH URL`: `--once` brings both sides up to date, `--status` reports, the
/// command refuses a store an app has open, and without `--once` it applies what PostgreSQL
/// commits until SIGTERM, logging JSON lines when not on a terminal.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct SyncCommandTests {
    /// A store of ``SyncFixture/schema`` at `path` with one Company, `Acme`.
    static func makeStore(_ path: String) throws {
        let container = try ModelContainer(
            schema: SyncFixture.schema, at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        try context.insert(entity: "Company", values: ["name": "Acme", "city": "Pune"])
        try context.save()
        try container.close()
    }

    /// A new database, and a store made by ``makeStore(_:)`` in a new directory (at `path`).
    static func scene() throws -> (SyncFixture.Database, TemporaryDirectory, String) {
        let database = try SyncFixture.makeDatabase()
        let dir = TemporaryDirectory()
        let path = dir.child("store")
        try makeStore(path)
        return (database, dir, path)
    }

    static func clean(_ database: SyncFixture.Database, _ dir: TemporaryDirectory) {
        database.drop()
        dir.remove()
    }

    /// The companies' names in the store at `path`, and the authors of its saves.
    static func read(_ path: String) throws -> (names: Set<String>, authors: [String?]) {
        var options = LogStoreOptions()
        options.readOnly = true
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: path), options: options)
        defer { try? container.close() }
        let context = ModelContext(container)
        let names = try context.fetch(entity: "Company").compactMap { $0["name"] as? String }
        return (Set(names), try container.history().map(\.author))
    }

    @Test func onceSendsAndAppliesAndStatusReportsNothingPending() throws {
        let (database, dir, path) = try Self.scene()
        defer { Self.clean(database, dir) }

        let before = try CLI.run(["sync", path, database.url, "--status"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.hasPrefix("not synced yet\n"), "\(before.stdout)")
        #expect(before.stdout.contains("up: 1 save pending"), "\(before.stdout)")

        let first = try CLI.run(["sync", path, database.url, "--once", "--name", "cli"])
        #expect(first.status == 0, "\(first.stderr)")
        // The first sync joins: the store's objects go up with the database's tables.
        let connection = try database.connect()
        defer { connection.close() }
        let uploaded = try connection.query("SELECT name FROM \"Company\"").rows.map {
            try $0.decode(0, as: String.self)
        }
        #expect(uploaded == ["Acme"])
        try connection.simpleQuery("INSERT INTO \"Company\" (name) VALUES ('Globex')")

        let second = try CLI.run(["sync", path, database.url, "--once"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("applied 1 transaction (1 change)"), "\(second.stdout)")
        let (names, authors) = try Self.read(path)
        #expect(names == ["Acme", "Globex"])
        #expect(authors.last == "sql:postgres")

        let status = try CLI.run(["sync", path, database.url, "--status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasPrefix("replica 1 of database "), "\(status.stdout)")
        #expect(status.stdout.contains("up: 0 saves pending"), "\(status.stdout)")
        #expect(status.stdout.contains("down: 0 changes behind"), "\(status.stdout)")
        #expect(status.stdout.contains("last error: none"), "\(status.stdout)")
    }

    @Test func refusesAStoreAnAppHasOpenWithALockError() throws {
        let (database, dir, path) = try Self.scene()
        defer { Self.clean(database, dir) }
        let app = try ModelContainer(schema: SyncFixture.schema, at: URL(fileURLWithPath: path))
        defer { try? app.close() }

        for mode in [["--once"], []] {
            let run = try CLI.run(["sync", path, database.url] + mode)
            #expect(run.status == 1)
            #expect(run.stderr.contains("is locked: another process has it open"), "\(run.stderr)")
            #expect(run.stderr.contains("PostgreSQLReplica"), "\(run.stderr)")
        }
        // --status only reads, and works meanwhile.
        let status = try CLI.run(["sync", path, database.url, "--status"])
        #expect(status.status == 0, "\(status.stderr)")
    }

    @Test func aURLThatAsksForTLSIsRefusedWithoutRepeatingThePassword() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(path)
        let run = try CLI.run([
            "sync", path, "postgresql://app:s3cret-pw@db.example/shop?sslmode=require", "--once",
        ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("sslmode"), "\(run.stderr)")
        #expect(!run.stderr.contains("s3cret-pw"))
        #expect(!run.stdout.contains("s3cret-pw"))
    }

    @Test func runningItAppliesWhatSQLCommitsUntilSIGTERM() throws {
        let cli = try #require(CLI.executable)
        let (database, dir, path) = try Self.scene()
        defer { Self.clean(database, dir) }
        // The command runs in a shell, which sends SIGTERM once the JSON lines show the
        // transaction of the SQL client applied.
        let (out, err) = (dir.child("out"), dir.child("err"))
        let script = """
            "$0" sync "$1" "$2" >"$3" 2>"$4" & pid=$!
            for i in $(seq 600); do
              grep -q '"applied":{"transactions":1,' "$3" && break
              sleep 0.05
            done
            kill -TERM $pid; wait $pid
            """
        let result = SyncResultBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            result.value = try? Shell.run(
                "/bin/sh", ["-c", script, cli, path, database.url, out, err])
            done.signal()
        }
        // Once the command is connected (its first JSON line says so), an SQL client commits.
        let connection = try database.connect()
        defer { connection.close() }
        for _ in 0..<600 {
            if String(decoding: readFile(out), as: UTF8.self).contains("\"connected\":true") {
                break
            }
            usleep(50_000)
        }
        try connection.simpleQuery("INSERT INTO \"Company\" (name) VALUES ('Initech')")
        done.wait()
        let run = try #require(result.value)
        #expect(run.status == 0, "\(String(decoding: readFile(err), as: UTF8.self))")
        let lines = String(decoding: readFile(out), as: UTF8.self).split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{\"time\":") && $0.hasSuffix("}") })
        #expect(lines.last?.contains("\"applied\":{\"transactions\":1,\"changes\":1,") == true)
        let (names, authors) = try Self.read(path)
        #expect(names == ["Acme", "Initech"])
        #expect(authors.last == "sql:postgres")
    }
}

extension SyncCommandTests {
    /// Runs `logbook sync PATH URL` and kills it with SIGKILL after `seconds`.
    static func killedRun(_ path: String, _ url: String, after seconds: Double) throws {
        let cli = try #require(CLI.executable)
        let script = """
            "$0" sync "$1" "$2" >/dev/null 2>&1 & pid=$!
            sleep "$3"; kill -KILL $pid; wait $pid; exit 0
            """
        _ = try Shell.run("/bin/sh", ["-c", script, cli, path, url, String(seconds)])
    }

    /// Saves go up, and PostgreSQL's transactions come down, exactly once each, however often
    /// the command is killed on the way: every save has one marker in the change log, and
    /// every SQL transaction is one save of the store.
    @Test func killedAgainAndAgainItAppliesEachSaveAndTransactionOnce() throws {
        let (database, dir, path) = try Self.scene()
        defer { Self.clean(database, dir) }
        #expect(try CLI.run(["sync", path, database.url, "--once"]).status == 0)
        let saves = 150
        let connection = try database.connect()
        defer { connection.close() }
        /// Kills runs of the command after growing delays; the progress after each.
        func killRuns(_ progress: () throws -> Int) throws -> [Int] {
            try [0.3, 0.7, 1.2, 2.0].map { delay in
                try Self.killedRun(path, database.url, after: delay)
                return try progress()
            }
        }
        // Up: the store's saves, killed on the way.
        let container = try ModelContainer(schema: nil, at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        for n in 0..<saves {
            try context.insert(entity: "Company", values: ["name": "store \(n)"])
            try context.save()
        }
        try container.close()
        let up = try killRuns {
            let markers = "SELECT count(*) FROM logbook_sync.changes WHERE op = 'm'"
            return Int(try connection.query(markers).rows.first?.decode(0, as: Int64.self) ?? -1)
        }
        #expect(try CLI.run(["sync", path, database.url, "--once"]).status == 0)
        // Down: the SQL client's transactions, killed on the way.
        for n in 0..<saves {
            try connection.simpleQuery("INSERT INTO \"Company\" (name) VALUES ('sql \(n)')")
        }
        let down = try killRuns {
            try Self.read(path).authors.filter { $0 == "sql:postgres" }.count
        }
        print("SyncCommandTests: after each kill, saves up: \(up), transactions down: \(down)")
        let last = try CLI.run(["sync", path, database.url, "--once"])
        #expect(last.status == 0, "\(last.stderr)")

        let markers = try connection.query(
            "SELECT count(*), count(DISTINCT sequence) FROM logbook_sync.changes WHERE op = 'm'")
        let counts = try markers.rows.first.map {
            [try $0.decode(0, as: Int64.self), try $0.decode(1, as: Int64.self)]
        }
        // One marker per save, and one for the first exchange.
        #expect(counts == [Int64(saves + 1), Int64(saves + 1)])
        let rows = try connection.query("SELECT count(*) FROM \"Company\"")
        #expect(try rows.rows.first?.decode(0, as: Int64.self) == Int64(1 + 2 * saves))
        let (names, authors) = try Self.read(path)
        #expect(names.count == 1 + 2 * saves)
        #expect(authors.filter { $0 == "sql:postgres" }.count == saves)
        // Nothing came back: the app's saves, and the SQL client's transactions.
        #expect(authors.count == 1 + saves + saves)
    }
}

/// The result of a child run on another thread; read after the semaphore it signals.
final class SyncResultBox: @unchecked Sendable {
    var value: CLIResult?
}
