import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `psql` and its connection arguments, when `LOGBOOK_TEST_PSQL` holds them (`.ci/postgres`
/// starts a scratch server and sets it; CI runs the tests through it).
private let psql: (path: String, arguments: [String])? = ProcessInfo.processInfo.environment[
    "LOGBOOK_TEST_PSQL"
].flatMap { connection in
    ["/usr/bin/psql", "/usr/local/bin/psql"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }.map { ($0, connection.split(separator: " ").map(String.init)) }
}

/// `logbook changes --format sql | psql` (issue 15): a feed started, or resumed, from any token
/// of a run leaves PostgreSQL with exactly the store's objects, every value read back the same.
@Suite(
    .enabled(if: psql != nil, "needs LOGBOOK_TEST_PSQL (run through .ci/postgres)"), .serialized)
struct PostgreSQLReplicationTests {
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
    static func apply(_ files: [String]) throws -> String {
        let (path, connection) = try #require(psql)
        var arguments = connection + ["-X", "-q", "-v", "ON_ERROR_STOP=1"]
        for file in files { arguments += ["-f", file] }
        let run = try Shell.run(path, arguments + ["-t", "-A", "-c", query])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    static func dropTable() throws {
        let (path, connection) = try #require(psql)
        let run = try Shell.run(
            path, connection + ["-q", "-c", "DROP TABLE IF EXISTS \"Contact\""])
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
        try Self.dropTable()
        #expect(try Self.apply([full]) == expected)
        // Resumed from each token of the run, over the state the full feed left (replaying
        // saves already applied is harmless), and from scratch up to a token then on from it.
        for (i, token) in tokens.enumerated() {
            let rest = try feed(since: token, "from-\(i).sql")
            #expect(try Self.apply([rest]) == expected, "resumed from token \(i)")
        }
        try Self.dropTable()
    }
}
