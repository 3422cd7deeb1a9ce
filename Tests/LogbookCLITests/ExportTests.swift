import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// The `sqlite3` command line tool the tests load exports into.
private let sqlite = "/usr/bin/sqlite3"

/// `psql`, when `LOGBOOK_TEST_PSQL` holds its connection arguments.
private let psql = ProcessInfo.processInfo.environment["LOGBOOK_TEST_PSQL"].flatMap { _ in
    ["/usr/bin/psql", "/usr/local/bin/psql"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

@Suite struct ExportTests {
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: sqlite),
            "needs \(sqlite), the sqlite3 command line tool"))
    func sqlLoadsIntoSQLite() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.contacts(at: path)
        let export = try CLI.run(["export", path, "--format", "sql"])
        #expect(export.status == 0)
        writeFile(dir.child("contacts.sql"), b(export.stdout))
        let query = try Shell.run(
            sqlite,
            [
                ":memory:", ".read \(dir.child("contacts.sql"))",
                "SELECT id, email, nickname, age, score, active, birthday, avatar, token FROM Contact ORDER BY id",
            ])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(
            query.stdout == """
                1|ann@example.com|O'Brien, "Annie"
                second line|41|2.5|0|2001-09-09 01:46:40.250000+00|\\x0001feff|E621E1F8-C36C-495A-93FC-0C247A3E6E5F
                2|bo@example.com|||0.0|1|||

                """)
    }

    /// Runs only when `LOGBOOK_TEST_PSQL` holds `psql` connection arguments (for example
    /// `-h /tmp/pg -p 5432 -U postgres -d postgres`) of a scratch server: it loads the tables
    /// `Contact` and `Employee` into a database of its own there.
    @Test(
        .enabled(
            if: psql != nil,
            "set LOGBOOK_TEST_PSQL to psql's connection arguments, with psql installed"))
    func sqlLoadsIntoPostgreSQL() throws {
        let database = try #require(try ScratchDatabase())
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try ObjectStores.contacts(at: dir.child("contacts"))
        try ObjectStores.employees(at: dir.child("employees"))
        for (name, table) in [("contacts", "Contact"), ("employees", "Employee")] {
            let export = try CLI.run(["export", dir.child(name), "--format", "sql"])
            writeFile(dir.child("\(name).sql"), b(export.stdout))
            let load = try Shell.run(
                database.psql,
                database.arguments + [
                    "-v", "ON_ERROR_STOP=1", "-q", "-c", "DROP TABLE IF EXISTS \"\(table)\"", "-f",
                    dir.child("\(name).sql"), "-t", "-A", "-c", "SELECT count(*) FROM \"\(table)\"",
                    "-c", "DROP TABLE \"\(table)\"",
                ])
            #expect(load.status == 0, "\(load.stderr)")
            #expect(load.stdout.hasSuffix("2\n"), "\(load.stdout)")
        }
    }

    @Test func sqlGoldenForEmployees() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        var options = LogStoreOptions()
        options.readOnly = true
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: path), options: options)
        let token = try container.currentHistoryToken
        try container.close()
        let export = try CLI.run(["export", path, "--format", "sql"])
        #expect(export.status == 0)
        #expect(
            export.stdout == """
                -- exported by logbook from \(path), schema version 1
                -- typed for PostgreSQL, as `logbook changes --format sql`
                BEGIN;
                CREATE TABLE "Employee" (
                  "id" BIGINT PRIMARY KEY,
                  "name" TEXT NOT NULL,
                  "designation" TEXT NOT NULL,
                  "salary" BIGINT NOT NULL
                );
                CREATE INDEX "Employee_designation" ON "Employee" ("designation");
                INSERT INTO "Employee" ("id", "name", "designation", "salary") VALUES (1, 'Ann', 'Engineer', 2000000);
                INSERT INTO "Employee" ("id", "name", "designation", "salary") VALUES (2, 'Bo', 'Manager', 900);
                COMMIT;
                -- resume \(token)

                """)
    }

    @Test func csvOfOneEntity() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.contacts(at: path)
        let export = try CLI.run(["export", path, "--format", "csv"])
        #expect(export.status == 0)
        #expect(
            export.stdout
                == "id,email,nickname,age,score,active,birthday,avatar,token\r\n"
                + "1,ann@example.com,\"O'Brien, \"\"Annie\"\"\nsecond line\",41,2.5,false,"
                + "2001-09-09T01:46:40.250Z,0001feff,E621E1F8-C36C-495A-93FC-0C247A3E6E5F\r\n"
                + "2,bo@example.com,,,0.0,true,,,\r\n")
        let unknown = try CLI.run(["export", path, "--format", "csv", "--entity", "Nope"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no entity \"Nope\""))
    }

    @Test func outputWritesFilesOneCSVPerEntity() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.contacts(at: path)
        let csv = try CLI.run(["export", path, "--format", "csv"]).stdout
        let result = try CLI.run(["export", path, "--format", "csv", "--output", dir.child("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "exported 2 objects to \(dir.child("out"))/Contact.csv\n")
        #expect(readFile(dir.child("out/Contact.csv")) == b(csv))
        let jsonl = try CLI.run(["export", path, "--output", dir.child("all.jsonl")])
        #expect(jsonl.stdout == "exported 2 objects to \(dir.child("all.jsonl"))\n")
        #expect(readFile(dir.child("all.jsonl")) == b(try CLI.run(["export", path]).stdout))
        let unwritable = try CLI.run(["export", path, "--output", dir.child("no/such/file")])
        #expect(unwritable.status == 2)
        #expect(unwritable.stderr.hasPrefix("logbook: cannot create \(dir.child("no/such/file"))"))
    }

    @Test func storeWithoutSchemaHasNothingToExport() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path)
        let export = try CLI.run(["export", path])
        #expect(export.status == 1)
        #expect(export.stderr.contains("holds no Logbook schema"))
        #expect(export.stdout == "")
    }
}

/// Runs other programs (sqlite3, psql, script) for the tests.
enum Shell {
    /// Runs `executable arguments…` (through ``ChildProcess``).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> CLIResult {
        try ChildProcess.shared.run(executable, arguments, environment: environment)
    }
}
