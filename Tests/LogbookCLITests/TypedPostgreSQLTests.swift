import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `psql` and its connection arguments, when `LOGBOOK_TEST_PSQL` holds them.
private let psql: (path: String, arguments: [String])? = ProcessInfo.processInfo.environment[
    "LOGBOOK_TEST_PSQL"
].flatMap { connection in
    ["/usr/bin/psql", "/usr/local/bin/psql"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }.map { ($0, connection.split(separator: " ").map(String.init)) }
}

/// The new attribute types in PostgreSQL (issue 34): `logbook export --format sql` and the
/// change feed make natural columns (SMALLINT/INTEGER/BIGINT/NUMERIC(20, 0) for the integer
/// widths, REAL, NUMERIC, TEXT for URLs and String enums, arrays of scalars as arrays, other
/// arrays as JSONB, a composite as a BOOLEAN column beside one column per field), and a feed
/// from any token still converges: every value reads back exactly.
@Suite(
    .enabled(if: psql != nil, "needs LOGBOOK_TEST_PSQL (run through .ci/postgres)"), .serialized)
struct TypedPostgreSQLTests {
    /// Every Gadget column in an exact text form: text as UTF-8 hex, floats and doubles as their
    /// bits, decimals as NUMERIC's text, arrays element by element.
    static let query = """
        SELECT id, encode(convert_to(name, 'UTF8'), 'hex'), i8::text, i16::text, i32::text, \
        u8::text, u16::text, u32::text, u64::text, encode(float4send(ratio), 'hex'), price::text, \
        encode(convert_to(homepage, 'UTF8'), 'hex'), status, priority::text, address::text, \
        encode(convert_to("address.street", 'UTF8'), 'hex'), \
        encode(convert_to("address.city", 'UTF8'), 'hex'), \
        coalesce(encode(convert_to("address.zip", 'UTF8'), 'hex'), '-'), "address.geo"::text, \
        encode(float8send("address.geo.lat"), 'hex'), encode(float8send("address.geo.lon"), 'hex'), \
        coalesce((SELECT string_agg(encode(convert_to(t, 'UTF8'), 'hex'), ',' ORDER BY o) \
        FROM unnest(tags) WITH ORDINALITY AS x(t, o)), ''), array_to_string(codes, ','), \
        coalesce((SELECT string_agg(encode(convert_to(e->>'name', 'UTF8'), 'hex') || ':' || \
        (e->>'weight') || ':' || coalesce(e->>'status', '-'), ',' ORDER BY o) \
        FROM jsonb_array_elements(labels) WITH ORDINALITY AS x(e, o)), ''), matrix::text \
        FROM "Gadget" ORDER BY id
        """

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map {
            String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }
        .joined()
    }

    /// NUMERIC's text of a decimal: all its digits, `NaN`.
    static func numeric(_ d: Decimal) -> String { d.isNaN ? "NaN" : d.description }

    /// The store's live Gadgets in the form of ``query``.
    static func expectedRows(_ context: ModelContext) throws -> String {
        let gadgets = try context.fetch(FetchDescriptor<Gadget>()).sorted {
            $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey
        }
        var rows = ""
        for g in gadgets {
            var fields = [String(g.persistentModelID.primaryKey), hex(g.name.utf8)]
            fields += [String(g.i8), String(g.i16), String(g.i32), String(g.u8), String(g.u16)]
            fields += [String(g.u32), String(g.u64)]
            // SQL writes every NaN as 'NaN' (a NaN's payload and sign do not survive text, see
            // `sameValue`): PostgreSQL's one NaN.
            let ratio = g.ratio.isNaN ? Float.nan : g.ratio
            fields.append(hex(withUnsafeBytes(of: ratio.bitPattern.bigEndian) { Array($0) }))
            fields.append(numeric(g.price))
            fields.append(hex(g.homepage.absoluteString.utf8))
            fields += [g.status.rawValue, String(g.priority.rawValue), "true"]
            fields += [hex(g.address.street.utf8), hex(g.address.city.utf8)]
            fields.append(g.address.zip.map { hex($0.utf8) } ?? "-")
            fields.append("true")
            fields.append(
                hex(withUnsafeBytes(of: g.address.geo.lat.bitPattern.bigEndian) { Array($0) }))
            fields.append(
                hex(withUnsafeBytes(of: g.address.geo.lon.bitPattern.bigEndian) { Array($0) }))
            fields.append(g.tags.map { hex($0.utf8) }.joined(separator: ","))
            fields.append(g.codes.sorted().map(String.init).joined(separator: ","))
            fields.append(
                g.labels.map { "\(hex($0.name.utf8)):\($0.weight):\($0.status?.rawValue ?? "-")" }
                    .joined(separator: ","))
            fields.append(
                "["
                    + g.matrix.map { "[" + $0.map(String.init).joined(separator: ", ") + "]" }
                    .joined(separator: ", ") + "]")
            rows += fields.joined(separator: "|") + "\n"
        }
        return rows
    }

    static func apply(_ files: [String]) throws -> String {
        let (path, connection) = try #require(psql)
        var arguments = connection + ["-X", "-q", "-v", "ON_ERROR_STOP=1"]
        for file in files { arguments += ["-f", file] }
        let run = try Shell.run(path, arguments + ["-t", "-A", "-c", query])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    static func dropTables() throws {
        let (path, connection) = try #require(psql)
        let run = try Shell.run(
            path,
            connection + [
                "-q", "-c",
                "DROP TABLE IF EXISTS \"Gadget\"; DROP TABLE IF EXISTS \"OptionalGadget\"",
            ])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func aFeedOfEveryTypeConvergesFromEveryToken() throws {
        let seed = testSeed("typed postgres replication")
        var values = TypeValues(seed: seed, allowsNUL: false)
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(
            for: [Gadget.self, OptionalGadget.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        var tokens = [try container.currentHistoryToken]
        var live: [Gadget] = []
        var inserted = 0
        for _ in 0..<15 {
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch live.isEmpty ? 0 : Int.random(in: 0..<3, using: &rng) {
                case 0:
                    inserted += 1
                    let g = values.gadget("g\(inserted)")
                    context.insert(g)
                    live.append(g)
                    context.insert(values.optionalGadget("o\(inserted)"))
                case 1:
                    let g = live.randomElement(using: &rng)!
                    let other = values.gadget("x")
                    g.price = other.price
                    g.address = other.address
                    g.tags = other.tags
                    g.labels = other.labels
                    g.u64 = other.u64
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
        func feed(since token: HistoryToken, _ name: String) throws -> String {
            let run = try CLI.run([
                "changes", path, "--since", token.description, "--format", "sql",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let file = dir.child(name)
            writeFile(file, b(run.stdout))
            return file
        }
        try Self.dropTables()
        #expect(
            try Self.apply([try feed(since: tokens[0], "full.sql")]) == expected, "seed \(seed)")
        for (i, token) in tokens.enumerated() where i % 3 == 1 {
            let rest = try feed(since: token, "from-\(i).sql")
            #expect(try Self.apply([rest]) == expected, "resumed from token \(i) (seed \(seed))")
        }
        // An export builds the same tables and rows.
        try Self.dropTables()
        let export = try CLI.run(["export", path, "--format", "sql"])
        #expect(export.status == 0, "\(export.stderr)")
        writeFile(dir.child("export.sql"), b(export.stdout))
        #expect(try Self.apply([dir.child("export.sql")]) == expected, "export (seed \(seed))")
        // The columns have the natural types.
        let (psqlPath, connection) = try #require(psql)
        let types = try Shell.run(
            psqlPath,
            connection + [
                "-X", "-t", "-A", "-c",
                "SELECT column_name || ' ' || format_type(atttypid, atttypmod) FROM information_schema.columns c JOIN pg_attribute a ON a.attname = c.column_name AND a.attrelid = '\"OptionalGadget\"'::regclass WHERE table_name = 'OptionalGadget' ORDER BY ordinal_position",
            ])
        #expect(
            types.stdout.split(separator: "\n").map(String.init) == [
                "id bigint", "name text", "i8 smallint", "u32 bigint", "u64 numeric(20,0)",
                "ratio real", "price numeric", "homepage text", "status text",
                "priority bigint", "address boolean", "address.street text", "address.city text",
                "address.zip text", "address.geo boolean", "address.geo.lat double precision",
                "address.geo.lon double precision", "tags text[]", "statuses text[]",
                "maybeNames text[]",
            ], "\(types.stdout)\(types.stderr)")
        try Self.dropTables()
    }
}
