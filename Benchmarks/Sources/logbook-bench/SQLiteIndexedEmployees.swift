import Foundation

/// SQLite's side of the index rows: `employee(id INTEGER PRIMARY KEY, name, email UNIQUE,
/// designation, salary)` with an index on salary.
final class SQLiteIndexedEmployees {
    private let database: SQLiteDatabase
    private let insertRow: SQLiteStatement
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let email: SQLiteStatement
    private let id: SQLiteStatement
    private let salaries: SQLiteStatement
    private let salaryCount: SQLiteStatement

    init(path: String) throws {
        database = try SQLiteDatabase(path: path, durable: true)
        try database.execute(
            "CREATE TABLE IF NOT EXISTS employee(id INTEGER PRIMARY KEY, name TEXT, "
                + "email TEXT UNIQUE, designation TEXT, salary INTEGER)")
        try database.execute("CREATE INDEX IF NOT EXISTS employee_salary ON employee(salary)")
        insertRow = try database.prepare(
            "INSERT INTO employee(id, name, email, designation, salary) VALUES (?, ?, ?, ?, ?)")
        begin = try database.prepare("BEGIN")
        commit = try database.prepare("COMMIT")
        email = try database.prepare(
            "SELECT id, name, designation, salary FROM employee WHERE email = ?")
        id = try database.prepare(
            "SELECT name, email, designation, salary FROM employee WHERE id = ?")
        salaries = try database.prepare(
            "SELECT id, name, email, designation, salary FROM employee WHERE salary BETWEEN ? AND ? "
                + "ORDER BY salary, id LIMIT ?")
        salaryCount = try database.prepare(
            "SELECT COUNT(*) FROM employee WHERE salary BETWEEN ? AND ?")
    }

    func count(_ low: Int64, _ high: Int64) throws -> Int64 {
        salaryCount.bind(1, low)
        salaryCount.bind(2, high)
        defer { salaryCount.reset() }
        guard try salaryCount.step() else { return 0 }
        return salaryCount.int64(0)
    }

    private func bind(_ row: EmployeeRow) {
        insertRow.bind(1, row.id)
        insertRow.bind(2, row.name)
        insertRow.bind(3, IndexWorkloads.email(row))
        insertRow.bind(4, row.designation)
        insertRow.bind(5, row.salary)
    }

    func insertAll(_ rows: [EmployeeRow]) throws {
        try begin.run()
        for row in rows {
            bind(row)
            try insertRow.run()
        }
        try commit.run()
    }

    /// One row in its own durable transaction.
    func insert(_ row: EmployeeRow) throws {
        try begin.run()
        bind(row)
        try insertRow.run()
        try commit.run()
    }

    func byEmail(_ text: String) throws -> (Int64, Int64)? {
        email.bind(1, text)
        defer { email.reset() }
        guard try email.step() else { return nil }
        // Read the row as the objects are read: every column.
        _ = (email.text(1), email.text(2))
        return (email.int64(0), email.int64(3))
    }

    func byID(_ value: Int64) throws -> Bool {
        id.bind(1, value)
        defer { id.reset() }
        guard try id.step() else { return false }
        _ = (id.text(0), id.text(1), id.text(2))
        return true
    }

    func range(_ low: Int64, _ high: Int64, limit: Int64) throws -> [(Int64, Int64)] {
        salaries.bind(1, low)
        salaries.bind(2, high)
        salaries.bind(3, limit)
        defer { salaries.reset() }
        var result: [(Int64, Int64)] = []
        while try salaries.step() {
            _ = (salaries.text(1), salaries.text(2), salaries.text(3))
            result.append((salaries.int64(0), salaries.int64(4)))
        }
        return result
    }
}
