/// The Objects group's view of a store of Employees. Logbook implements it with a model
/// context, SQLite with rows of `employee(id INTEGER PRIMARY KEY, name TEXT, designation TEXT,
/// salary INTEGER)`. Every write method is one durable save (one SQLite transaction with
/// `synchronous=FULL`). Not thread-safe.
protocol EmployeeStore: AnyObject {
    static var label: String { get }
    /// How this store updates and deletes, for the output.
    static var updateSummary: String { get }
    static var batchUpdateSummary: String { get }
    static var batchDeleteSummary: String { get }
    static var deleteSummary: String { get }

    /// Opens (or creates) the store in `directory`.
    init(directory: String) throws

    /// Inserts every row, then saves once.
    func insertAll(_ rows: [EmployeeRow]) throws
    /// Prepares for a run of fetches by identifier (a fresh context; a read transaction).
    func beginFetches() throws
    func endFetches() throws
    /// Lets go of what the last timed write kept (Logbook: the context and its objects), so
    /// the next timed row does not pay for it.
    func releaseObjects()
    /// Fetches the Employee with `id` (1…N, in insertion order) as an object (a row struct for
    /// SQLite) and returns its ``EmployeeRow/fingerprint``, or `nil` if there is none.
    func fetchFingerprint(id: Int64) throws -> Int64?
    /// Fetches the Employees with `designation`, sorted by salary ascending, as objects (row
    /// structs for SQLite), and summarises them.
    func fetchSummary(designation: String) throws -> FetchSummary
    /// Sets each listed Employee's salary to `salary(id)`, then saves once.
    func updateSalaries(ids: [Int64], salary: (Int64) -> Int64) throws
    /// Deletes each listed Employee, then saves once.
    func delete(ids: [Int64]) throws
    /// Deletes every Employee with `designation` in one statement or batch, building no
    /// objects; returns how many.
    func batchDelete(designation: String) throws -> Int
    /// Raises the salary of every Employee with `designation` by `raise` in one statement or
    /// batch, building no objects; returns how many.
    func batchRaise(designation: String, by raise: Int64) throws -> Int
    /// Adds the index on `designation`; `false` if this store cannot index yet.
    func createDesignationIndex() throws -> Bool
    /// Rewrites the files without dead space; `nil` if not available, else what ran.
    func compact() throws -> String?
    /// Every Employee, for the final check (untimed).
    func all() throws -> [EmployeeRow]
    func close() throws
}

/// SQLite rows, with prepared statements.
final class SQLiteEmployees: EmployeeStore {
    static let label = "sqlite"
    static let updateSummary = "UPDATE … WHERE id = ? per Employee, one transaction"
    static let batchUpdateSummary =
        "UPDATE … SET salary = salary + ? WHERE designation = ?, no index"
    static let batchDeleteSummary = "DELETE … WHERE designation = ?, no index"
    static let deleteSummary = "DELETE … WHERE id = ? per Employee, one transaction"

    private var database: SQLiteDatabase?
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let insert: SQLiteStatement
    private let byID: SQLiteStatement
    private let update: SQLiteStatement
    private let remove: SQLiteStatement

    init(directory: String) throws {
        let database = try SQLiteDatabase(path: directory + "/employees.sqlite", durable: true)
        try database.execute(
            "CREATE TABLE IF NOT EXISTS employee(id INTEGER PRIMARY KEY, name TEXT, "
                + "designation TEXT, salary INTEGER)")
        begin = try database.prepare("BEGIN")
        commit = try database.prepare("COMMIT")
        insert = try database.prepare(
            "INSERT INTO employee(id, name, designation, salary) VALUES (?, ?, ?, ?)")
        byID = try database.prepare("SELECT name, designation, salary FROM employee WHERE id = ?")
        update = try database.prepare("UPDATE employee SET salary = ? WHERE id = ?")
        remove = try database.prepare("DELETE FROM employee WHERE id = ?")
        self.database = database
    }

    func insertAll(_ rows: [EmployeeRow]) throws {
        try begin.run()
        for row in rows {
            insert.bind(1, row.id)
            insert.bind(2, row.name)
            insert.bind(3, row.designation)
            insert.bind(4, row.salary)
            try insert.run()
        }
        try commit.run()
    }

    func releaseObjects() {}
    func beginFetches() throws { try begin.run() }
    func endFetches() throws { try commit.run() }

    func fetchFingerprint(id: Int64) throws -> Int64? {
        byID.bind(1, id)
        defer { byID.reset() }
        guard try byID.step() else { return nil }
        let row = EmployeeRow(
            id: id, name: byID.text(0), designation: byID.text(1), salary: byID.int64(2))
        return row.fingerprint
    }

    func fetchSummary(designation: String) throws -> FetchSummary {
        guard let database else { return FetchSummary() }
        let query = try database.prepare(
            "SELECT id, name, designation, salary FROM employee WHERE designation = ? ORDER BY salary"
        )
        query.bind(1, designation)
        var rows: [EmployeeRow] = []
        while try query.step() {
            rows.append(
                EmployeeRow(
                    id: query.int64(0), name: query.text(1), designation: query.text(2),
                    salary: query.int64(3)))
        }
        var summary = FetchSummary()
        for row in rows { summary.add(id: row.id, salary: row.salary) }
        return summary
    }

    func updateSalaries(ids: [Int64], salary: (Int64) -> Int64) throws {
        try begin.run()
        for id in ids {
            update.bind(1, salary(id))
            update.bind(2, id)
            try update.run()
        }
        try commit.run()
    }

    func delete(ids: [Int64]) throws {
        try begin.run()
        for id in ids {
            remove.bind(1, id)
            try remove.run()
        }
        try commit.run()
    }

    func batchDelete(designation: String) throws -> Int {
        guard let database else { return 0 }
        let statement = try database.prepare("DELETE FROM employee WHERE designation = ?")
        statement.bind(1, designation)
        try statement.run()
        return database.changes
    }

    func batchRaise(designation: String, by raise: Int64) throws -> Int {
        guard let database else { return 0 }
        let statement = try database.prepare(
            "UPDATE employee SET salary = salary + ? WHERE designation = ?")
        statement.bind(1, raise)
        statement.bind(2, designation)
        try statement.run()
        return database.changes
    }

    func createDesignationIndex() throws -> Bool {
        try database?.execute(
            "CREATE INDEX IF NOT EXISTS employee_designation ON employee(designation)")
        try database?.execute("ANALYZE")
        return true
    }

    /// The custom stage of `objects-migration` in SQL: a new column, then every row's value of
    /// it computed from its salary with one `UPDATE` in one transaction.
    func addGrades() throws {
        try database?.execute("ALTER TABLE employee ADD COLUMN grade INTEGER NOT NULL DEFAULT 0")
        try begin.run()
        try database?.execute("UPDATE employee SET grade = salary / 10000")
        try commit.run()
    }

    func compact() throws -> String? {
        try database?.execute("VACUUM")
        try checkpoint()
        return "VACUUM"
    }

    func all() throws -> [EmployeeRow] {
        guard let database else { return [] }
        let query = try database.prepare(
            "SELECT id, name, designation, salary FROM employee ORDER BY id")
        var rows: [EmployeeRow] = []
        while try query.step() {
            rows.append(
                EmployeeRow(
                    id: query.int64(0), name: query.text(1), designation: query.text(2),
                    salary: query.int64(3)))
        }
        return rows
    }

    /// Folds the WAL into the database file, so file sizes compare like with like.
    func checkpoint() throws { try database?.execute("PRAGMA wal_checkpoint(TRUNCATE)") }

    func close() throws {
        try checkpoint()
        database = nil
    }
}
