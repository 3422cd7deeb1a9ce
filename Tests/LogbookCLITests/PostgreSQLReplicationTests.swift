import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Whether `LOGBOOK_TEST_PSQL` names a server (`.ci/postgres` starts a scratch server and sets
/// it; CI runs the tests through it) and `psql` is installed.
private let psqlAvailable =
    ProcessInfo.processInfo.environment["LOGBOOK_TEST_PSQL"] != nil
    && ["/usr/bin/psql", "/usr/local/bin/psql"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }

/// `logbook changes --format sql | psql` (issue 15): a feed started, or resumed, from any token
/// of a run leaves PostgreSQL with exactly the store's objects, every value read back the same.
@Suite(
    .enabled(if: psqlAvailable, "needs LOGBOOK_TEST_PSQL (run through .ci/postgres)"), .serialized)
struct PostgreSQLReplicationTests {
    /// This test's own database: no other suite's tables are there.
    let database: ScratchDatabase

    init() throws {
        database = try #require(try ScratchDatabase())
    }

    /// The Contact rows as both sides print them, every value in an exact text form: strings as
    /// UTF-8 hex, doubles as their bits, dates in microseconds since 1970.
    static let query = """
        SELECT id, encode(convert_to(email, 'UTF8'), 'hex'), \
        coalesce(encode(convert_to(nickname, 'UTF8'), 'hex'), '-'), coalesce(age::text, '-'), \
        encode(float8send(score), 'hex'), active, \
        coalesce((extract(epoch FROM birthday) * 1000000)::bigint::text, '-'), \
        coalesce(encode(avatar, 'hex'), '-'), coalesce(token::text, '-') \
        FROM "Contact" ORDER BY id
        """

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return text
    }

    /// The store's live Contacts in the form of ``query``.
    static func expectedRows(_ context: ModelContext) throws -> String {
        let contacts = try context.fetch(FetchDescriptor<Contact>()).sorted {
            $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey
        }
        var rows = ""
        for c in contacts {
            var fields: [String] = [String(c.persistentModelID.primaryKey), hex(c.email.utf8)]
            fields.append(c.nickname.map { hex($0.utf8) } ?? "-")
            fields.append(c.age.map { String($0) } ?? "-")
            fields.append(hex(withUnsafeBytes(of: c.score.bitPattern.bigEndian) { Array($0) }))
            fields.append(c.active ? "t" : "f")
            if let birthday = c.birthday {
                fields.append(String(Int64((birthday.timeIntervalSince1970 * 1_000_000).rounded())))
            } else {
                fields.append("-")
            }
            fields.append(c.avatar.map { hex($0) } ?? "-")
            fields.append(c.token.map { $0.uuidString.lowercased() } ?? "-")
            rows += fields.joined(separator: "|") + "\n"
        }
        return rows
    }

    /// Runs `sql` (a file) then ``query`` in psql; returns the rows.
    func apply(_ files: [String]) throws -> String {
        var arguments = database.arguments + ["-X", "-q", "-v", "ON_ERROR_STOP=1"]
        for file in files { arguments += ["-f", file] }
        let run = try Shell.run(database.psql, arguments + ["-t", "-A", "-c", Self.query])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    func dropTable() throws {
        let run = try Shell.run(
            database.psql, database.arguments + ["-q", "-c", "DROP TABLE IF EXISTS \"Contact\""])
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// Values that are easy to get wrong: −0.0, subnormals, extremes, sub-second dates, bytes
    /// that are not UTF-8, quotes, tabs, backslashes and any Unicode.
    static func randomContact(_ i: Int, _ rng: inout SeededGenerator) -> Contact {
        let strings = [
            "O'Brien", "tab\there", "back\\slash", "\"quoted\"", "line\nbreak", "日本語", "emoji 🎉👩‍💻",
            "ñ é ü", "", "semi;colon --comment", "$$dollar$$", "\u{7F}\u{1}ctl",
        ]
        let doubles: [Double] = [
            -0.0, 0, .leastNonzeroMagnitude, -3 * .leastNonzeroMagnitude, .leastNormalMagnitude,
            -.greatestFiniteMagnitude, 0.1, 1.0 / 3,
            .infinity, -.infinity, 123456.789,
        ]
        let c = Contact(email: "c\(i)-\(strings.randomElement(using: &rng)!)")
        c.nickname = Bool.random(using: &rng) ? strings.randomElement(using: &rng)! : nil
        c.age =
            Bool.random(using: &rng)
            ? [Int.min, Int.max, 0, -1, 42].randomElement(using: &rng)! : nil
        c.score = doubles.randomElement(using: &rng)!
        c.active = Bool.random(using: &rng)
        c.birthday =
            Bool.random(using: &rng)
            ? Date(
                timeIntervalSince1970: Double(
                    Int64.random(in: -2_000_000_000_000_000...4_000_000_000_000_000, using: &rng))
                    / 1_000_000) : nil
        c.avatar =
            Bool.random(using: &rng)
            ? Data(
                (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                })
            : nil
        c.token = Bool.random(using: &rng) ? UUID() : nil
        return c
    }

    @Test func aFeedFromEveryTokenConvergesToTheStore() throws {
        var rng = SeededGenerator(seed: testSeed("postgres replication"))
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        var tokens = [try container.currentHistoryToken]
        var live: [Contact] = []
        var inserted = 0
        for s in 0..<25 {
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch live.isEmpty ? 0 : Int.random(in: 0..<3, using: &rng) {
                case 0:
                    inserted += 1
                    let c = Self.randomContact(inserted, &rng)
                    context.insert(c)
                    live.append(c)
                case 1:
                    let c = live.randomElement(using: &rng)!
                    let other = Self.randomContact(s * 10 + 5, &rng)
                    c.score = other.score
                    c.nickname = other.nickname
                    c.birthday = other.birthday
                    c.avatar = other.avatar
                default:
                    let i = Int.random(in: 0..<live.count, using: &rng)
                    context.delete(live.remove(at: i))
                }
            }
            try context.save()
            tokens.append(try container.currentHistoryToken)
        }
        let expected = try Self.expectedRows(context)
        try container.close()
        #expect(expected.split(separator: "\n").count == live.count)

        func feed(since token: HistoryToken, _ name: String) throws -> String {
            let run = try CLI.run([
                "changes", path, "--since", token.description, "--format", "sql",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasSuffix("-- resume \(tokens.last!)\n"))
            let file = dir.child(name)
            writeFile(file, b(run.stdout))
            return file
        }
        let full = try feed(since: tokens[0], "full.sql")
        try dropTable()
        #expect(try apply([full]) == expected)
        // Resumed from each token of the run, over the state the full feed left (replaying
        // saves already applied is harmless), and from scratch up to a token then on from it.
        for (i, token) in tokens.enumerated() {
            let rest = try feed(since: token, "from-\(i).sql")
            #expect(try apply([rest]) == expected, "resumed from token \(i)")
        }
        try dropTable()
    }

    /// Runs `arguments` of the tool and writes its standard output to `name` in `dir`.
    static func write(_ arguments: [String], to name: String, in dir: TemporaryDirectory) throws
        -> (file: String, text: String)
    {
        let run = try CLI.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let file = dir.child(name)
        writeFile(file, b(run.stdout))
        return (file, run.stdout)
    }

    /// Large saves become one `DELETE … IN (…)` and multi-row upserts of at most 1,000 rows per
    /// entity per save, one transaction per save, and still converge, also when replayed.
    @Test func largeSavesBecomeMultiRowStatements() throws {
        var rng = SeededGenerator(seed: testSeed("postgres multi-row"))
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let start = try container.currentHistoryToken
        var live: [Contact] = []
        for i in 0..<2_500 {
            let c = Self.randomContact(i, &rng)
            context.insert(c)
            live.append(c)
        }
        try context.save()
        for c in live.prefix(1_500) { c.score += 1 }
        try context.save()
        for c in live.suffix(1_200) { context.delete(c) }
        live.removeLast(1_200)
        try context.save()
        let expected = try Self.expectedRows(context)
        try container.close()

        let (file, sql) = try Self.write(
            ["changes", path, "--since", start.description, "--format", "sql"], to: "feed.sql",
            in: dir)
        let lines = sql.split(separator: "\n")
        #expect(lines.filter { $0 == "BEGIN;" }.count == 3)
        #expect(lines.filter { $0.hasPrefix("INSERT INTO \"Contact\"") }.count == 3 + 2)
        #expect(
            lines.filter { $0.hasPrefix("DELETE FROM \"Contact\" WHERE \"id\" IN (") }.count == 2)
        #expect(lines.filter { $0.hasPrefix("ON CONFLICT (\"id\") DO UPDATE SET") }.count == 5)
        try dropTable()
        #expect(try apply([file]) == expected)
        #expect(try apply([file, file]) == expected, "replayed")
        try dropTable()
    }

    /// `logbook export --format sql` builds the tables the feed writes to, with the same types
    /// and literals: every value of an export reads back bit for bit, and a feed from the token
    /// of the export applied on top converges to the store.
    @Test func anExportIsTypedLikeTheFeedAndTheFeedAppliesOnIt() throws {
        var rng = SeededGenerator(seed: testSeed("postgres export then feed"))
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        var live: [Contact] = []
        for i in 0..<60 {
            let c = Self.randomContact(i, &rng)
            context.insert(c)
            live.append(c)
        }
        try context.save()
        let exported = try Self.expectedRows(context)
        let token = try container.currentHistoryToken
        try container.close()
        let export = try Self.write(["export", path, "--format", "sql"], to: "export.sql", in: dir)
        #expect(export.text.contains("\"avatar\" BYTEA"))
        #expect(export.text.contains("\"token\" UUID"))
        try dropTable()
        #expect(try apply([export.file]) == exported)

        let reopened = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let again = ModelContext(reopened)
        let contacts = try again.fetch(FetchDescriptor<Contact>())
        for (i, c) in contacts.enumerated() {
            switch i % 3 {
            case 0: again.delete(c)
            case 1:
                let other = Self.randomContact(100 + i, &rng)
                c.score = other.score
                c.avatar = other.avatar
                c.birthday = other.birthday
            default: break
            }
        }
        again.insert(Self.randomContact(1_000, &rng))
        try again.save()
        let expected = try Self.expectedRows(again)
        try reopened.close()
        let feed = try Self.write(
            ["changes", path, "--since", token.description, "--format", "sql"], to: "feed.sql",
            in: dir)
        #expect(try apply([feed.file]) == expected)
        try dropTable()
    }

    /// Unique values that move between objects: a save that swaps two emails, one that takes
    /// a value another object gives up, and a new object with a freed value. Applied onto an
    /// export's tables (which carry `UNIQUE`), in order from the export's token and replayed
    /// from older tokens over the newer state, and onto the feed's own tables: every run
    /// converges to the store.
    @Test func uniqueValuesThatMoveBetweenObjectsReplicate() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        var tokens = [try container.currentHistoryToken]
        let a = Contact(email: "a")
        let b = Contact(email: "b")
        let c = Contact(email: "c")
        for contact in [a, b, c] { context.insert(contact) }
        try context.save()
        tokens.append(try container.currentHistoryToken)
        try container.close()
        let export = try Self.write(["export", path, "--format", "sql"], to: "export.sql", in: dir)
        #expect(
            export.text.contains("\"email\" TEXT NOT NULL UNIQUE DEFERRABLE INITIALLY DEFERRED"))
        #expect(export.text.hasSuffix("COMMIT;\n-- resume \(tokens[1])\n"), "the export's token")

        let reopened = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let again = ModelContext(reopened)
        let byEmail = Dictionary(
            uniqueKeysWithValues: try again.fetch(FetchDescriptor<Contact>()).map { ($0.email, $0) }
        )
        let (x, y, z) = (byEmail["a"]!, byEmail["b"]!, byEmail["c"]!)
        (x.email, y.email) = ("b", "a")  // a swap within one save
        try again.save()
        tokens.append(try reopened.currentHistoryToken)
        x.email = "taken"  // x gives up "b"
        try again.save()
        tokens.append(try reopened.currentHistoryToken)
        (x.email, y.email) = ("x", "taken")  // y takes what x held one save ago
        again.insert(Contact(email: "a"))  // a new object takes what y gave up
        again.delete(z)
        again.insert(Contact(email: "c"))  // and one takes the deleted object's value
        try again.save()
        tokens.append(try reopened.currentHistoryToken)
        let expected = try Self.expectedRows(again)
        try reopened.close()

        func feed(since token: HistoryToken, _ name: String) throws -> String {
            try Self.write(
                ["changes", path, "--since", token.description, "--format", "sql"], to: name,
                in: dir
            ).file
        }
        let afterExport = try feed(since: tokens[1], "after-export.sql")
        try dropTable()
        #expect(try apply([export.file, afterExport]) == expected, "export, then the feed")
        for (i, token) in tokens.enumerated() {
            let rest = try feed(since: token, "from-\(i).sql")
            #expect(try apply([rest]) == expected, "replayed from token \(i) over the export")
        }
        try dropTable()
        let full = try feed(since: tokens[0], "full.sql")
        #expect(try apply([full]) == expected, "the feed's own tables")
        for (i, token) in tokens.enumerated() {
            let rest = try feed(since: token, "again-\(i).sql")
            #expect(try apply([rest]) == expected, "replayed from token \(i)")
        }
        try dropTable()
    }

    /// Feed throughput against `psql`'s own `COPY` (issue 15's figure): 100,000 Contacts inserted
    /// in 20 saves, 50,000 updated in 10, 20,000 deleted in 4; the feed applied into an empty
    /// table, then the table's rows copied out and `COPY`d back into an emptied table. Prints
    /// rows per second of each. Runs only when `LOGBOOK_FEED_BENCH` names a directory, where it
    /// leaves the feed.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["LOGBOOK_FEED_BENCH"] != nil,
            "set LOGBOOK_FEED_BENCH to a directory to measure the feed against COPY"))
    func feedThroughputAgainstCOPY() throws {
        let (psqlPath, connection) = (database.psql, database.arguments)
        let out = ProcessInfo.processInfo.environment["LOGBOOK_FEED_BENCH"]!
        var rng = SeededGenerator(seed: 15)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        var live: [Contact] = []
        for s in 0..<20 {
            for i in 0..<5_000 {
                let c = Self.randomContact(s * 5_000 + i, &rng)
                context.insert(c)
                live.append(c)
            }
            try context.save()
        }
        for s in 0..<10 {
            for c in live[(s * 5_000)..<((s + 1) * 5_000)] { c.score += 1 }
            try context.save()
        }
        for _ in 0..<4 {
            for c in live.suffix(5_000) { context.delete(c) }
            live.removeLast(5_000)
            try context.save()
        }
        try container.close()
        let rows = 100_000 + 50_000 + 20_000
        let started = Date()
        let feed = try CLI.run(["changes", path, "--format", "sql"])
        let render = Date().timeIntervalSince(started)
        #expect(feed.status == 0)
        let file = out + "/feed.sql"
        writeFile(file, b(feed.stdout))
        try dropTable()
        func timed(_ arguments: [String]) throws -> Double {
            let start = Date()
            let run = try Shell.run(
                psqlPath, connection + ["-X", "-q", "-v", "ON_ERROR_STOP=1"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            return Date().timeIntervalSince(start)
        }
        let apply = try timed(["-f", file])
        let copyFile = out + "/contacts.copy"
        _ = try timed(["-c", "\\copy \"Contact\" TO '\(copyFile)'"])
        _ = try timed(["-c", "TRUNCATE \"Contact\""])
        let copy = try timed(["-c", "\\copy \"Contact\" FROM '\(copyFile)'"])
        try dropTable()
        print(
            "feed: \(rows) rows in 34 saves: rendered in \(render) s; applied in \(apply) s, "
                + "\(Int(Double(rows) / apply)) rows/s; COPY of the \(live.count) rows left: "
                + "\(copy) s, \(Int(Double(live.count) / copy)) rows/s")
    }
}
