import CSQLite

/// A failed SQLite call, with its result code, SQLite's message and the statement.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var sql: String

    var description: String { "SQLite error \(code): \(message) (in `\(sql)`)" }
}

/// How the baseline is set up: the issue's "SQLite done right" (WAL, prepared statements, one
/// transaction per batch), with `synchronous` chosen by the workload's durability.
enum SQLiteSettings {
    /// A 64 MiB page cache: SQLite tuned the way an app that cares would tune it.
    static let cacheKiB = 65536

    static func pragmas(durable: Bool) -> [String] {
        [
            "PRAGMA journal_mode=WAL", "PRAGMA synchronous=\(durable ? "FULL" : "NORMAL")",
            "PRAGMA cache_size=-\(cacheKiB)", "PRAGMA busy_timeout=60000",
        ]
    }

    static func summary(durable: Bool) -> String {
        "journal_mode=WAL, synchronous=\(durable ? "FULL" : "NORMAL"), cache_size=\(cacheKiB) KiB"
    }

    static var version: String { String(cString: sqlite3_libversion()) }
}

/// One connection. Not thread-safe: use it from one thread at a time (threaded workloads open
/// one connection per thread).
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    let path: String

    /// Opens (creating if missing) the database at `path` and applies the suite's pragmas.
    init(path: String, durable: Bool) throws {
        self.path = path
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message, sql: "open \(path)")
        }
        for pragma in SQLiteSettings.pragmas(durable: durable) { try execute(pragma) }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` (one or more statements), discarding rows.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        if code != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(error)
            throw SQLiteError(code: code, message: message, sql: sql)
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(
            handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code, sql) }
        return SQLiteStatement(statement, database: self, sql: sql)
    }

    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The first column of the first row of `sql`.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { throw SQLiteError(code: 0, message: "no row", sql: sql) }
        return statement.int64(0)
    }

    /// Closes the connection; every statement must have been released.
    func close() throws {
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw failure(code, "close") }
        handle = nil
    }

    func failure(_ code: Int32, _ sql: String) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

/// A prepared statement. Blobs are bound without a copy (`SQLITE_STATIC`): the caller keeps the
/// bytes alive until the statement is stepped and reset. Text is bound with a copy.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let database: SQLiteDatabase
    private let sql: String

    init(_ handle: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ text: String) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(handle, index, text, -1, transient)
    }

    func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
        sqlite3_bind_blob(handle, index, blob.baseAddress, Int32(blob.count), nil)
    }

    /// Steps once: `true` if a row is ready, `false` when done.
    @discardableResult
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw database.failure(code, sql)
    }

    /// Steps to completion and resets, for statements that return no rows.
    func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    func reset() { sqlite3_reset(handle) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The blob of `column`, valid until the next step or reset.
    func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        let bytes = sqlite3_column_blob(handle, column)
        return UnsafeRawBufferPointer(
            start: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
