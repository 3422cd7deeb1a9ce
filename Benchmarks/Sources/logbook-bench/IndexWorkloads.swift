import Foundation
import Logbook

/// An Employee with a unique `email` and an indexed `salary`: the store of the index rows.
final class UniqueEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute var name = ""
    @Attribute(.unique) var email = ""
    @Attribute var designation = ""
    @Attribute(.indexed) var salary: Int64 = 0

    init() {}

    init(_ row: EmployeeRow) {
        name = row.name
        email = IndexWorkloads.email(row)
        designation = row.designation
        salary = row.salary
    }
}

/// The same Employee without any index or constraint: what the constraint's cost is measured
/// against.
final class PlainEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute var name = ""
    @Attribute var email = ""
    @Attribute var designation = ""
    @Attribute var salary: Int64 = 0

    init() {}

    init(_ row: EmployeeRow) {
        name = row.name
        email = IndexWorkloads.email(row)
        designation = row.designation
        salary = row.salary
    }
}

/// The index rows (issue 13), on N Employees with a unique email and an indexed salary:
/// one insert with a durable save into the store (with the constraint, without it, and SQLite
/// with a UNIQUE index), an equality lookup on the unique email, a salary range of 1% sorted
/// with a limit of 100, and the store reopened with its indexes against without them.
enum IndexWorkloads {
    static func email(_ row: EmployeeRow) -> String {
        "\(row.name.lowercased()).\(row.id)@example.com"
    }

    /// Single-object saves timed per store, in alternating rounds (fdatasync drifts).
    static let rounds = 10

    static var all: [Workload] {
        [
            Workload(
                name: "objects-index", group: "objects",
                summary:
                    "Employees with a unique email and an indexed salary: insert one, lookup, range, reopen"
            ) { context in
                let n = context.sizes.employees
                let quick = context.options.quick
                let inserts = quick ? 20 : 200
                let lookups = min(n, quick ? 1_000 : 10_000)
                let ranges = quick ? 50 : 1_000
                context.reporter.note(
                    "objects-index: \(n) Employees; \(inserts) single inserts with a durable save; "
                        + "\(lookups) lookups by email; \(ranges) salary ranges of 1% sorted, limit 100"
                )
                let rows = EmployeeData.generate(count: n)
                try ScratchDirectory.with("objects-index") { directory in
                    try run(
                        rows, directory, context, inserts: inserts, lookups: lookups,
                        ranges: ranges)
                }
            }
        ]
    }

    static func run(
        _ rows: [EmployeeRow], _ directory: String, _ context: BenchContext, inserts: Int,
        lookups: Int, ranges: Int
    ) throws {
        let reporter = context.reporter
        let n = rows.count
        let uniqueURL = URL(fileURLWithPath: directory + "/unique.logbook")
        let plainURL = URL(fileURLWithPath: directory + "/plain.logbook")
        var unique: ModelContainer? = try ModelContainer(for: [UniqueEmployee.self], at: uniqueURL)
        var plain: ModelContainer? = try ModelContainer(for: [PlainEmployee.self], at: plainURL)
        let sqlite = try SQLiteIndexedEmployees(path: directory + "/employees.sqlite")
        var seconds = try measure {
            let load = ModelContext(unique!)
            for row in rows { load.insert(UniqueEmployee(row)) }
            try load.save()
        }
        reporter.timing(
            "objects-index-load", engine: "logbook", operations: n, bytes: 0, seconds: seconds,
            note: "insert + one save, with the unique email and salary indexes")
        do {
            let load = ModelContext(plain!)
            for row in rows { load.insert(PlainEmployee(row)) }
            try load.save()
        }
        seconds = try measure { try sqlite.insertAll(rows) }
        reporter.timing(
            "objects-index-load", engine: "sqlite", operations: n, bytes: 0, seconds: seconds,
            note: "UNIQUE(email), INDEX(salary)")
        for statistic in unique!.indexStatistics() {
            reporter.figure(
                "objects-index-bytes-per-entry", engine: statistic.fields.joined(separator: ","),
                value: statistic.bytesPerEntry, unit: "bytes per entry of \(statistic)")
        }

        // One insert and a durable save, rounds alternating between the stores.
        var next = n
        func newRow() -> EmployeeRow {
            next += 1
            return EmployeeRow(
                id: Int64(next), name: "Newcomer", designation: "Engineer", salary: 100_000)
        }
        var totals = ["unique": 0.0, "plain": 0.0, "sqlite": 0.0]
        let uniqueContext = ModelContext(unique!)
        let plainContext = ModelContext(plain!)
        for _ in 0..<rounds {
            totals["unique"]! += try measure {
                for _ in 0..<(inserts / rounds) {
                    uniqueContext.insert(UniqueEmployee(newRow()))
                    try uniqueContext.save()
                }
            }
            totals["plain"]! += try measure {
                for _ in 0..<(inserts / rounds) {
                    plainContext.insert(PlainEmployee(newRow()))
                    try plainContext.save()
                }
            }
            totals["sqlite"]! += try measure {
                for _ in 0..<(inserts / rounds) { try sqlite.insert(newRow()) }
            }
        }
        // A repeated email must still be refused.
        uniqueContext.insert(UniqueEmployee(rows[n / 2]))
        try context.expect(
            "objects-unique-insert", "logbook", "a repeated email refused",
            (try? uniqueContext.save()) == nil, equals: true)
        uniqueContext.rollback()
        let count = inserts / rounds * rounds
        reporter.timing(
            "objects-unique-insert", engine: "logbook", operations: count, bytes: 0,
            seconds: totals["unique"]!, note: "one Employee, unique email, durable save, into \(n)")
        reporter.timing(
            "objects-unique-insert", engine: "sqlite", operations: count, bytes: 0,
            seconds: totals["sqlite"]!, note: "INSERT with UNIQUE(email), one transaction")
        reporter.timing(
            "objects-unique-insert-plain", engine: "logbook", operations: count, bytes: 0,
            seconds: totals["plain"]!, note: "the same save without the constraint")
        reporter.figure(
            "objects-unique-insert-vs-plain", engine: "logbook",
            value: totals["unique"]! / max(totals["plain"]!, 1e-9),
            unit: "× the save without the constraint")

        // Lookups by the unique email: one object each, in one context.
        var rng = SeededGenerator(seed: Seed.access &+ 13)
        let picked = (0..<lookups).map { _ in rows[Int.random(in: 0..<n, using: &rng)] }
        var ours = Checksum()
        let lookupContext = ModelContext(unique!)
        seconds = try measure {
            for row in picked {
                let wanted = email(row)
                for employee in try lookupContext.fetch(
                    FetchDescriptor<UniqueEmployee>(predicate: #Predicate { $0.email == wanted }))
                {
                    ours.add(Int64(employee.persistentModelID!.primaryKey) &* 31 &+ employee.salary)
                }
            }
        }
        reporter.timing(
            "objects-fetch-unique", engine: "logbook", operations: lookups, bytes: 0,
            seconds: seconds, note: "email == ?, one object each")
        var theirs = Checksum()
        seconds = try measure {
            for row in picked {
                if let (id, salary) = try sqlite.byEmail(email(row)) {
                    theirs.add(id &* 31 &+ salary)
                }
            }
        }
        reporter.timing(
            "objects-fetch-unique", engine: "sqlite", operations: lookups, bytes: 0,
            seconds: seconds, note: "SELECT … WHERE email = ? (UNIQUE index)")
        try context.agree("objects-fetch-unique", "objects found", logbook: ours, sqlite: theirs)

        // Salary ranges of 1% of the range, sorted, limit 100.
        let width: Int64 = (200_000 - 30_000) / 100
        let starts = (0..<ranges).map { _ in
            Int64.random(in: 30_000...(200_000 - width), using: &rng)
        }
        var ourRanges = Checksum()
        let rangeContext = ModelContext(unique!)
        seconds = try measure {
            for low in starts {
                let high = low + width
                var descriptor = FetchDescriptor<UniqueEmployee>(
                    predicate: #Predicate { $0.salary >= low && $0.salary <= high },
                    sortBy: [SortDescriptor(\.salary)])
                descriptor.fetchLimit = 100
                for employee in try rangeContext.fetch(descriptor) {
                    ourRanges.add(
                        Int64(employee.persistentModelID!.primaryKey) &* 31 &+ employee.salary)
                }
            }
        }
        reporter.timing(
            "objects-range", engine: "logbook", operations: ranges, bytes: 0, seconds: seconds,
            note: "salary BETWEEN 1% of the range, sorted, limit 100")
        var theirRanges = Checksum()
        seconds = try measure {
            for low in starts {
                for (id, salary) in try sqlite.range(low, low + width, limit: 100) {
                    theirRanges.add(id &* 31 &+ salary)
                }
            }
        }
        reporter.timing(
            "objects-range", engine: "sqlite", operations: ranges, bytes: 0, seconds: seconds,
            note: "… WHERE salary BETWEEN ? AND ? ORDER BY salary, id LIMIT 100 (index on salary)")
        try context.agree("objects-range", "objects found", logbook: ourRanges, sqlite: theirRanges)

        // Reopening: with the indexes (read from their sidecar) against without them.
        try unique?.close()
        try plain?.close()
        unique = nil
        plain = nil
        let probe = PersistentIdentifier(entityName: "Employee", primaryKey: UInt64(max(n / 2, 1)))
        var best = ["unique": Double.infinity, "plain": Double.infinity, "sqlite": Double.infinity]
        for _ in 0..<3 {
            best["unique"] = min(
                best["unique"]!,
                try measure {
                    let container = try ModelContainer(for: [UniqueEmployee.self], at: uniqueURL)
                    _ = try ModelContext(container).model(for: probe, as: UniqueEmployee.self)
                })
            best["plain"] = min(
                best["plain"]!,
                try measure {
                    let container = try ModelContainer(for: [PlainEmployee.self], at: plainURL)
                    _ = try ModelContext(container).model(for: probe, as: PlainEmployee.self)
                })
            best["sqlite"] = min(
                best["sqlite"]!,
                try measure {
                    let reopened = try SQLiteIndexedEmployees(path: directory + "/employees.sqlite")
                    _ = try reopened.byID(Int64(n / 2))
                })
        }
        reporter.timing(
            "objects-reopen-indexed", engine: "logbook", operations: 1, bytes: 0,
            seconds: best["unique"]!,
            note: "open \(n) Employees with 2 indexes + fetch one, best of 3")
        reporter.timing(
            "objects-reopen-indexed", engine: "sqlite", operations: 1, bytes: 0,
            seconds: best["sqlite"]!, note: "open + SELECT one by id, best of 3")
        reporter.timing(
            "objects-reopen-unindexed", engine: "logbook", operations: 1, bytes: 0,
            seconds: best["plain"]!, note: "the same store without indexes, best of 3")
        reporter.figure(
            "objects-reopen-indexed-vs-unindexed", engine: "logbook",
            value: best["unique"]! / max(best["plain"]!, 1e-9), unit: "× the open without indexes")
    }
}

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
