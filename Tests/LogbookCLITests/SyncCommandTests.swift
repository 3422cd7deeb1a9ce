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
        let database = try SyncFixture.makeDatabase()
        defer { database.drop() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(path)

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
        let database = try SyncFixture.makeDatabase()
        defer { database.drop() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(path)
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
        let database = try SyncFixture.makeDatabase()
        defer { database.drop() }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(path)
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

/// The result of a child run on another thread; read after the semaphore it signals.
private final class SyncResultBox: @unchecked Sendable {
    var value: CLIResult?
}
