import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `logbook history` and `logbook changes` (issue 15): the saves of a store, a change feed that
/// follows a live writer, and the errors for tokens the store cannot take.
@Suite struct HistoryCommandTests {
    /// The tokens of the three saves of ``ObjectStores/employees(at:)``.
    static func tokens(of path: String) throws -> [HistoryToken] {
        var options = LogStoreOptions()
        options.readOnly = true
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: path), options: options)
        defer { try? container.close() }
        return try container.history().map(\.token)
    }

    @Test func historyListsEachSaveWithWhatItChanged() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let tokens = try Self.tokens(of: path)
        #expect(tokens.count == 3)
        let text = try CLI.run(["history", path])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 + 3 + 1 + 1 + 1)
        #expect(lines[0].hasPrefix("\(tokens[0])  20"))
        #expect(
            Array(lines[1...3]) == [
                "  insert Employee/1", "  insert Employee/2", "  insert Employee/3",
            ])
        #expect(lines[4].hasPrefix("\(tokens[1])  "))
        #expect(lines[5] == "  update Employee/2 salary")
        #expect(lines[7] == "  delete Employee/3")
        #expect(lines[8] == "resume \(tokens[2])")

        let since = try CLI.run([
            "history", path, "--since", tokens[0].description, "--format", "jsonl",
        ])
        #expect(since.status == 0, "\(since.stderr)")
        let json = since.stdout.split(separator: "\n").map(String.init)
        #expect(json.count == 3)
        #expect(
            json[0].hasPrefix(
                "{\"token\":\"\(tokens[1])\",\"sequence\":\(tokens[1].sequence),\"time\":\"20"))
        #expect(
            json[0].hasSuffix(
                "\"author\":null,\"changes\":[{\"kind\":\"update\",\"entity\":\"Employee\",\"id\":2,\"attributes\":[\"salary\"]}]}"
            ))
        #expect(json[2] == "{\"_resume\":\"\(tokens[2])\"}")
    }

    @Test func changesAreUpsertsAndDeletesThenAResumeToken() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let tokens = try Self.tokens(of: path)
        let jsonl = try CLI.run(["changes", path, "--since", tokens[0].description])
        #expect(jsonl.status == 0, "\(jsonl.stderr)")
        #expect(
            jsonl.stdout.split(separator: "\n").filter { !$0.hasPrefix("{\"_token\"") }
                == [
                    "{\"_op\":\"upsert\",\"_entity\":\"Employee\",\"_id\":2,\"name\":\"Bo\",\"designation\":\"Manager\",\"salary\":900}",
                    "{\"_op\":\"delete\",\"_entity\":\"Employee\",\"_id\":3}",
                    "{\"_resume\":\"\(tokens[2])\"}",
                ])
        let sql = try CLI.run([
            "changes", path, "--since", tokens[1].description, "--format", "sql",
        ])
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(
            sql.stdout == """
                CREATE TABLE IF NOT EXISTS "Employee" (
                  "id" BIGINT PRIMARY KEY,
                  "name" TEXT NOT NULL,
                  "designation" TEXT NOT NULL,
                  "salary" BIGINT NOT NULL
                );
                CREATE INDEX IF NOT EXISTS "Employee_designation" ON "Employee" ("designation");
                BEGIN;
                DELETE FROM "Employee" WHERE "id" IN (3);
                COMMIT;
                -- token \(tokens[2])
                -- resume \(tokens[2])

                """)
    }

    @Test func valuesBecomePostgreSQLLiteralsThatReadBackTheSame() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.contacts(at: path)
        let sql = try CLI.run(["changes", path, "--format", "sql"])
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(sql.stdout.contains("\"avatar\" BYTEA,\n  \"token\" UUID\n);"))
        #expect(
            sql.stdout.contains("\"email\" TEXT NOT NULL UNIQUE DEFERRABLE INITIALLY DEFERRED,"))
        // Rows that already hold an upserted unique value give it up (only on a replay).
        #expect(
            sql.stdout.contains(
                "DELETE FROM \"Contact\" WHERE \"email\" IN ('ann@example.com', 'bo@example.com') AND \"id\" NOT IN (1, 2);\nINSERT INTO \"Contact\""
            ), "\(sql.stdout)")
        #expect(
            sql.stdout.contains(
                "VALUES\n(1, 'ann@example.com', 'O''Brien, \"Annie\"\nsecond line', 41, '2.5', FALSE, '2001-09-09 01:46:40.250000+00', '\\x0001feff', 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'),\n(2, "
            ), "\(sql.stdout)")
        #expect(
            sql.stdout.contains(
                "(2, 'bo@example.com', NULL, NULL, '0.0', TRUE, NULL, NULL, NULL)\nON CONFLICT (\"id\") DO UPDATE SET \"email\" = EXCLUDED.\"email\""
            ))
    }

    @Test(arguments: [
        ("00000000-0000-0000-0000-000000000000:1", "belongs to another store"),
        ("not a token", "is not a history token"),
    ])
    func tokensTheStoreCannotTakeAreErrors(token: String, message: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        for command in ["history", "changes"] {
            let result = try CLI.run([command, path, "--since", token])
            #expect(result.status == 1)
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stdout == "")
        }
    }

    @Test func aFutureTokenIsAnError() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let last = try #require(try Self.tokens(of: path).last)
        let future = HistoryToken(
            storeIdentifier: last.storeIdentifier, sequence: last.sequence + 5)
        let result = try CLI.run(["history", path, "--since", future.description])
        #expect(result.status == 1)
        #expect(result.stderr.contains("ahead of the store's last commit"), "\(result.stderr)")
    }

    @Test func historyThatRetentionDroppedIsAnErrorNamingTheOldestToken() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        var options = LogStoreOptions()
        options.segmentSize = 512
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: path), options: options)
        let context = ModelContext(container)
        let first = try container.currentHistoryToken
        for i in 0..<40 {
            context.insert(Employee(name: "e\(i)", designation: "Engineer", salary: Int64(i)))
            try context.save()
        }
        try container.setHistoryRetention(.saves(5))
        try container.store.compact()
        let oldest = try container.oldestHistoryToken
        try container.close()
        #expect(oldest.sequence > first.sequence)
        let result = try CLI.run(["changes", path, "--since", first.description])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("oldest token still available is \(oldest)"), "\(result.stderr)")
        let fromOldest = try CLI.run(["history", path, "--since", oldest.description])
        #expect(fromOldest.status == 0, "\(fromOldest.stderr)")
    }

    @Test func followPicksUpSavesOfAnotherProcessAndStopsCleanlyOnSIGTERM() throws {
        let cli = try #require(CLI.executable)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        context.insert(Employee(name: "before", designation: "Engineer", salary: 1))
        try context.save()
        let start = try container.currentHistoryToken
        // The follower runs in a shell until the token of the last save shows in its output.
        let (out, want) = (dir.child("out"), dir.child("want"))
        let script = """
            "$0" changes "$1" --since "$2" --follow >"$3" & pid=$!
            for i in $(seq 600); do
              [ -s "$4" ] && grep -qF "$(cat "$4")" "$3" && break
              sleep 0.05
            done
            kill -TERM $pid; wait $pid
            """
        let result = ResultBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [start = start.description] in
            result.value = try? Shell.run("/bin/sh", ["-c", script, cli, path, start, out, want])
            done.signal()
        }
        usleep(300_000)
        for i in 0..<3 {
            context.insert(Employee(name: "during \(i)", designation: "Manager", salary: Int64(i)))
            try context.save()
        }
        let last = try container.currentHistoryToken
        writeFile(want, b("{\"_token\":\"\(last)\""))
        done.wait()
        try container.close()
        let run = try #require(result.value)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = String(decoding: readFile(out), as: UTF8.self).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("{\"_op\":\"upsert\"") }.count == 3)
        #expect(lines.last == "{\"_resume\":\"\(last)\"}")
    }
}

/// The result of a child run on another thread; read after the semaphore it signals.
private final class ResultBox: @unchecked Sendable {
    var value: CLIResult?

    /// `changes` under `script(1)`, its output redirected to a file: the progress line (changes,
    /// saves, rate) is drawn on the terminal's standard error and never reaches the feed;
    /// piped, nothing is drawn.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
            "needs /usr/bin/script to give the tool a terminal"))
    func changesDrawProgressOnTheTerminalOnly() throws {
        let logbook = try #require(CLI.executable)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let out = dir.child("feed.sql")
        let onTerminal = try Shell.run(
            "/usr/bin/script",
            [
                "-qec",
                "LOGBOOK_PROGRESS_INTERVAL_MS=0 '\(logbook)' changes '\(path)' --format sql > '\(out)'",
                "/dev/null",
            ])
        #expect(onTerminal.status == 0)
        #expect(onTerminal.stdout.contains("\r\u{1B}[Kchanges: "), "\(onTerminal.stdout)")
        #expect(onTerminal.stdout.contains(" saves"), "\(onTerminal.stdout)")
        let feed = readFile(out)
        #expect(!feed.contains(0x1B))
        #expect(String(decoding: feed, as: UTF8.self).contains("-- resume "))
        let piped = try CLI.run(["changes", path, "--format", "sql"])
        #expect(piped.stderr == "")
        #expect(!piped.stdout.contains("\u{1B}"))
    }
}
