import Foundation
import Testing

@testable import Logbook

/// Statements against the real server: the simple and extended protocols, values of every
/// supported type both ways in text and binary, errors with their SQLSTATE, a large result,
/// transactions, prepared statements, batches and COPY.
@Suite(.enabled(if: PostgreSQLTestServer.isAvailable, PostgreSQLTestServer.skipReason), .serialized)
struct PostgreSQLQueryTests {
    typealias Server = PostgreSQLTestServer

    @Test func simpleQueryRunsSeveralStatements() throws {
        let c = try Server.connect()
        defer { c.close() }
        let results = try c.simpleQuery(
            "CREATE TEMP TABLE t (a int, b text); INSERT INTO t VALUES (1, 'x'), (2, NULL); "
                + "SELECT a, b FROM t ORDER BY a; ;")
        #expect(results.map(\.commandTag) == ["CREATE TABLE", "INSERT 0 2", "SELECT 2"])
        #expect(results[1].affectedRows == 2)
        let rows = results[2].rows
        #expect(results[2].columns.map(\.name) == ["a", "b"])
        #expect(try rows.map { try $0.decode(0, as: Int.self) } == [1, 2])
        #expect(try rows.map { try $0.decode("b", as: String?.self) } == ["x", nil])
        #expect(c.transactionStatus == .idle)
    }

    /// Parameters of every kind go in, and come back equal, with text and with binary results.
    @Test(arguments: [PostgreSQLFormat.text, .binary])
    func valuesRoundTrip(format: PostgreSQLFormat) throws {
        let c = try Server.connect()
        defer { c.close() }
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 1_000_000_000.25)
        let bytes: [UInt8] = Array(0...255)
        let text = "Grüße, 世界 🎉 'quoted' \"double\" \\ back"
        let row = try #require(
            try c.query(
                "SELECT $1::int8, $2::float8, $3::text, $4::bytea, $5::bool, $6::uuid, "
                    + "$7::timestamptz, $8::text, $9::float8, $10::float8, $11::int8, $12::numeric",
                [
                    .int(-9_223_372_036_854_775_807), .double(-0.0), .text(text), .bytes(bytes),
                    .bool(true), .uuid(uuid), .timestamp(date), .null, .double(.infinity),
                    .double(.nan), 42, .typed("12345.678", oid: PostgreSQLType.numeric),
                ], format: format
            ).rows.first)
        #expect(try row.decode(0, as: Int64.self) == -9_223_372_036_854_775_807)
        let zero = try row.decode(1, as: Double.self)
        #expect(zero == 0 && zero.sign == .minus)
        #expect(try row.decode(2, as: String.self) == text)
        #expect(try row.decode(3, as: [UInt8].self) == bytes)
        #expect(try row.decode(4, as: Bool.self))
        #expect(try row.decode(5, as: UUID.self) == uuid)
        #expect(try row.decode(6, as: Date.self) == date)
        #expect(try row.decode(7, as: String?.self) == nil)
        #expect(try row.decode(8, as: Double.self) == .infinity)
        #expect(try row.decode(9, as: Double.self).isNaN)
        #expect(try row.decode(10, as: Int.self) == 42)
        #expect(row[3].column.format == format)
        // Untyped parameters take the type the statement needs: an integer argument, a uuid.
        let typed = try #require(
            try c.query(
                "SELECT repeat('ab', $1), $2::uuid = $3, $4 + 1",
                [3, .text(uuid.uuidString), .uuid(uuid), 41],
                format: format
            ).rows.first)
        #expect(try typed.decode(0, as: String.self) == "ababab")
        #expect(try typed.decode(1, as: Bool.self))
        #expect(try typed.decode(2, as: Int.self) == 42)
        if format == .text {
            #expect(try row.decode(11, as: String.self) == "12345.678")
        }
        // NULL into a non-optional, text into an integer: typed errors naming the column.
        guard
            case .valueDecoding(let column, _, _) = postgreSQLError({
                _ = try row.decode(7, as: String.self)
            })
        else {
            Issue.record("NULL decoded as a String")
            return
        }
        #expect(column == "text")
        #expect(postgreSQLError({ _ = try row.decode(2, as: Int.self) }) != nil)
    }

    /// Timestamps read the same from text and from binary, in zones with odd offsets
    /// (`+05:30`, `-03:30`, 1900's `+00:19:32`) and before the common era.
    @Test func timestampsDecodeTheSameFromTextAndBinary() throws {
        let c = try Server.connect()
        defer { c.close() }
        let instants = [
            "2024-02-29 23:59:59.999999+00", "1900-01-01 00:00:00+00", "1969-12-31 23:59:59.5+00",
            "0044-03-15 12:00:00+00 BC", "9999-12-31 00:00:00+00", "2000-01-01 00:00:00+00",
        ]
        for zone in ["UTC", "Asia/Kolkata", "America/St_Johns", "Europe/Amsterdam"] {
            try c.simpleQuery("SET TimeZone = '\(zone)'")
            for instant in instants {
                let sql =
                    "SELECT $1::timestamptz, $1::timestamptz::date, $1::timestamptz::timestamp"
                let text = try #require(try c.query(sql, [.text(instant)]).rows.first)
                let binary = try #require(
                    try c.query(sql, [.text(instant)], format: .binary).rows.first)
                for column in 0..<3 {
                    let shown = try text.decode(column, as: String.self)
                    #expect(
                        try text.decode(column, as: Date.self)
                            == binary.decode(column, as: Date.self),
                        "\(instant) in \(zone), column \(column): \(shown)")
                }
            }
        }
        // A Date sent as text (a prepared statement's parameter of another type) reads back.
        let date = Date(timeIntervalSince1970: -62_000_000_000.5)
        let statement = try c.prepare("SELECT $1::text::timestamptz")
        #expect(statement.parameterTypes == [PostgreSQLType.text])
        #expect(
            try c.query(statement, [.timestamp(date)]).rows.first?.decode(0, as: Date.self) == date)
    }

    /// A failed statement is the server's error with its SQLSTATE and fields; the connection
    /// stays usable.
    @Test func serverErrorCarriesSQLStateAndLeavesTheConnectionUsable() throws {
        let c = try Server.connect()
        defer { c.close() }
        try c.simpleQuery("CREATE TEMP TABLE u (id int PRIMARY KEY, v text)")
        try c.execute("INSERT INTO u VALUES ($1, $2)", [1, "a"])
        guard
            case .server(let duplicate) = postgreSQLError({
                try c.execute("INSERT INTO u VALUES ($1, $2)", [1, "b"])
            })
        else {
            Issue.record("no server error for a duplicate key")
            return
        }
        #expect(duplicate.sqlState == "23505")
        #expect(duplicate.severity == "ERROR")
        #expect(duplicate.constraint == "u_pkey")
        #expect(duplicate.table == "u")
        #expect(duplicate.detail?.contains("(id)=(1)") == true)
        #expect(!duplicate.isFatal)
        guard case .server(let syntax) = postgreSQLError({ try c.simpleQuery("SELEC 1") }) else {
            Issue.record("no server error for a syntax error")
            return
        }
        #expect(syntax.sqlState == "42601")
        #expect(syntax.position == 1)
        #expect(postgreSQLError({ try c.query("SELECT 1/0") })?.sqlState == "22012")
        // In a simple query of several statements, the first failure stops the rest.
        #expect(
            postgreSQLError({ try c.simpleQuery("INSERT INTO u VALUES (2, 'c'); SELECT 1/0") })?
                .sqlState == "22012")
        #expect(try c.query("SELECT count(*) FROM u").rows.first?.decode(0, as: Int.self) == 1)
        #expect(!c.isClosed)
        #expect(c.transactionStatus == .idle)
    }

    /// 100,000 rows, collected and streamed, in both formats.
    @Test func largeResultArrivesWhole() throws {
        let c = try Server.connect()
        defer { c.close() }
        let sql = "SELECT g, 'row ' || g, g * 0.5::float8 FROM generate_series(1, 100000) g"
        let collected = try c.query(sql)
        #expect(collected.rows.count == 100_000)
        #expect(collected.commandTag == "SELECT 100000")
        #expect(try collected.rows[99_999].decode(1, as: String.self) == "row 100000")
        var count = 0
        var sum: Int64 = 0
        var halves = 0.0
        let tag = try c.query(sql, format: .binary) { row in
            count += 1
            sum += try row.decode(0, as: Int64.self)
            halves += try row.decode(2, as: Double.self)
        }
        #expect(tag == "SELECT 100000")
        #expect(count == 100_000)
        #expect(sum == 5_000_050_000)
        #expect(halves == 2_500_025_000)
    }

    /// A row handler that throws stops nothing on the wire: the rest is read and dropped, its
    /// error comes back, and the connection goes on.
    @Test func throwingRowHandlerLeavesTheConnectionReady() throws {
        struct Stop: Error {}
        let c = try Server.connect()
        defer { c.close() }
        var seen = 0
        #expect(throws: Stop.self) {
            try c.query("SELECT g FROM generate_series(1, 10000) g") { _ in
                seen += 1
                if seen == 10 { throw Stop() }
            }
        }
        #expect(seen == 10)
        #expect(try c.query("SELECT 7").rows.first?.decode(0, as: Int.self) == 7)
        // On a result of fifty million rows, the statement is cancelled rather than read to
        // its end (which takes minutes). The series is in the select list, so the server sends
        // rows as it makes them: in FROM it would first collect all fifty million (seconds of
        // the server's CPU before the first row).
        let start = ContinuousClock.now
        #expect(throws: Stop.self) {
            try c.query("SELECT generate_series(1, 50000000) AS g") { _ in throw Stop() }
        }
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(try c.query("SELECT 8").rows.first?.decode(0, as: Int.self) == 8)
        // A handler's error that looks like a lost connection (another connection's) is the
        // handler's: this connection stays open.
        let elsewhere = LogbookError.postgreSQL(.connectionClosed(reason: "another connection"))
        #expect(throws: elsewhere) { try c.query("SELECT 1") { _ in throw elsewhere } }
        #expect(throws: elsewhere) {
            try c.copyOut("COPY (SELECT 1) TO STDOUT") { _ in throw elsewhere }
        }
        try c.simpleQuery("CREATE TEMP TABLE sink (v int)")
        #expect(throws: elsewhere) { try c.copyIn("COPY sink FROM STDIN") { _ in throw elsewhere } }
        #expect(!c.isClosed)
        // Calling back into the connection from a row handler is refused, not a deadlock.
        let error = postgreSQLError {
            try c.query("SELECT 1") { _ in _ = try c.query("SELECT 2") }
        }
        guard case .invalidRequest = error else {
            Issue.record("re-entry gave \(String(describing: error))")
            return
        }
    }

    @Test func transactionCommitsOrRollsBack() throws {
        struct Abort: Error {}
        let c = try Server.connect()
        defer { c.close() }
        try c.simpleQuery("CREATE TEMP TABLE tx (v int)")
        try c.transaction {
            #expect(c.transactionStatus == .inTransaction)
            try c.execute("INSERT INTO tx VALUES (1)")
        }
        #expect(throws: Abort.self) {
            try c.transaction {
                try c.execute("INSERT INTO tx VALUES (2)")
                throw Abort()
            }
        }
        // A caught failure inside: COMMIT rolls back, and that is an error, not a silent loss.
        let swallowed = postgreSQLError {
            try c.transaction(isolation: .serializable) {
                try c.execute("INSERT INTO tx VALUES (3)")
                _ = try? c.query("SELECT 1/0")
                #expect(c.transactionStatus == .failed)
            }
        }
        guard case .invalidRequest(let reason) = swallowed else {
            Issue.record("a rolled-back COMMIT gave \(String(describing: swallowed))")
            return
        }
        #expect(reason.contains("rolled"))
        #expect(
            try c.query("SELECT array_agg(v)::text FROM tx").rows.first?.decode(0, as: String.self)
                == "{1}")
        #expect(c.transactionStatus == .idle)
    }

    /// A prepared statement runs many times; a batch of 10,000 runs goes out pipelined, and a
    /// failure in it leaves nothing of the batch.
    @Test func preparedStatementsAndBatches() throws {
        let c = try Server.connect()
        defer { c.close() }
        try c.simpleQuery("CREATE TEMP TABLE p (id int4 PRIMARY KEY, name text, score float4)")
        let insert = try c.prepare("INSERT INTO p VALUES ($1, $2, $3)")
        #expect(
            insert.parameterTypes == [
                PostgreSQLType.int4, PostgreSQLType.text, PostgreSQLType.float4,
            ])
        #expect(insert.columns.isEmpty)
        // int8 and float8 values fill int4 and float4 parameters (sent as text).
        #expect(try c.execute(insert, [1, "one", 1.5]) == 1)
        let counts = try c.executeBatch(
            insert, (2...10_001).map { [.int(Int64($0)), .text("n\($0)"), .double(0.25)] })
        #expect(counts.count == 10_000 && counts.allSatisfy { $0 == 1 })
        let failing = postgreSQLError {
            try c.executeBatch(
                insert, [[20_000, "new", nil], [5, "duplicate", nil], [20_001, "after", nil]])
        }
        #expect(failing?.sqlState == "23505")
        let select = try c.prepare("SELECT name, score FROM p WHERE id = $1")
        #expect(select.columns.map(\.name) == ["name", "score"])
        let row = try #require(try c.query(select, [10_001], format: .binary).rows.first)
        #expect(try row.decode(0, as: String.self) == "n10001")
        #expect(try row.decode(1, as: Double.self) == 0.25)
        #expect(try c.query("SELECT count(*) FROM p").rows.first?.decode(0, as: Int.self) == 10_001)
        // A batch of a statement that returns rows: each run's rows counted, none kept.
        let echo = try c.prepare("SELECT g FROM generate_series(1, $1::int4) g")
        #expect(try c.executeBatch(echo, [[1], [2], [3]]) == [1, 2, 3])
        try c.deallocate(select)
        #expect(postgreSQLError({ try c.query(select, [1]) })?.sqlState == "26000")
        // A statement of another connection is refused before anything is sent.
        let other = try Server.connect()
        defer { other.close() }
        guard case .invalidRequest = postgreSQLError({ try other.execute(insert, [1, "x", 1]) })
        else {
            Issue.record("another connection's statement was accepted")
            return
        }
        guard case .invalidRequest = postgreSQLError({ try c.execute(insert, [1]) }) else {
            Issue.record("a wrong parameter count was accepted")
            return
        }
    }

    @Test func copyInAndOut() throws {
        struct SourceFailed: Error {}
        struct Stop: Error {}
        let c = try Server.connect()
        defer { c.close() }
        try c.simpleQuery("CREATE TEMP TABLE cp (id int, name text)")
        let copied = try c.copyIn("COPY cp FROM STDIN") { write in
            for i in 1...50_000 { try write(Array("\(i)\tname \(i)\n".utf8)) }
        }
        #expect(copied == 50_000)
        var output: [UInt8] = []
        let out = try c.copyOut("COPY (SELECT * FROM cp WHERE id <= 3 ORDER BY id) TO STDOUT") {
            output += $0
        }
        #expect(out == 3)
        #expect(throws: Stop.self) {
            // Streamed as it is made (the series in the select list, as above).
            try c.copyOut("COPY (SELECT generate_series(1, 50000000) AS g) TO STDOUT") { _ in
                throw Stop()
            }
        }
        #expect(String(decoding: output, as: UTF8.self) == "1\tname 1\n2\tname 2\n3\tname 3\n")
        // A source that fails abandons the COPY; bad data is the server's error; both leave the
        // connection ready.
        #expect(throws: SourceFailed.self) {
            try c.copyIn("COPY cp FROM STDIN") { write in
                // More than one send's worth, so some of it reached the server.
                for i in 100_000..<200_000 { try write(Array("\(i)\tlost\n".utf8)) }
                throw SourceFailed()
            }
        }
        #expect(
            postgreSQLError({ try c.copyIn("COPY cp FROM STDIN") { try $0(Array("x\ty\n".utf8)) } }
            )?.sqlState == "22P02")
        #expect(
            try c.query("SELECT count(*) FROM cp").rows.first?.decode(0, as: Int.self) == 50_000)
        // COPY through the other calls is refused, and the connection stays in step.
        guard case .invalidRequest = postgreSQLError({ try c.simpleQuery("COPY cp FROM STDIN") }),
            case .invalidRequest = postgreSQLError({ try c.query("COPY cp TO STDOUT") }),
            case .invalidRequest = postgreSQLError({ try c.query("COPY cp FROM STDIN") }),
            case .invalidRequest = postgreSQLError({ try c.copyIn("SELECT 1") { _ in } })
        else {
            Issue.record("COPY outside copyIn/copyOut was not refused")
            return
        }
        #expect(try c.query("SELECT 5").rows.first?.decode(0, as: Int.self) == 5)
    }
}
