import Foundation
import Logbook

/// The Employee of the query rows: an indexed salary (for MIN/MAX) and a searchable name.
final class QueryEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute(.searchable) var name = ""
    @Attribute var designation = ""
    @Attribute(.indexed) var salary: Int64 = 0

    init() {}

    init(_ row: EmployeeRow) {
        name = row.name
        designation = row.designation
        salary = row.salary
    }
}

/// ``QueryEmployee`` with a compound index on designation and salary: what SQLite's covering
/// index is compared with.
final class CoveredQueryEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute(.searchable) var name = ""
    @Attribute var designation = ""
    @Attribute(.indexed) var salary: Int64 = 0
    static var indexes: [ModelIndex<CoveredQueryEmployee>] { [.index(\.designation, \.salary)] }

    init() {}
}

/// The query rows (issue 39), on N Employees: per designation the count, sum and mean of salary
/// (Logbook's aggregate against SQLite's GROUP BY without an index and with a covering one),
/// MIN and MAX of the indexed salary, and a search of a name token against SQLite FTS5 (with
/// the sizes of the two text indexes).
enum QueryWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "objects-query", group: "objects",
                summary:
                    "Employees: GROUP BY designation with COUNT/SUM/AVG, MIN/MAX of an index, name search vs FTS5"
            ) { context in
                let n = context.sizes.employees
                let quick = context.options.quick
                let rounds = quick ? 2 : 5
                let extremes = quick ? 100 : 10_000
                let searches = min(n, quick ? 1_000 : 10_000)
                context.reporter.note(
                    "objects-query: \(n) Employees; \(rounds) group-bys each; \(extremes) MIN+MAX; "
                        + "\(searches) name searches")
                let rows = EmployeeData.generate(count: n)
                try ScratchDirectory.with("objects-query") { directory in
                    try run(
                        rows, directory, context, rounds: rounds, extremes: extremes,
                        searches: searches)
                }
            }
        ]
    }

    /// The targets of issue 39 ("Performance").
    static let targets = [
        Target(
            name: "objects: GROUP BY designation (count, sum, avg) ≥ 2× SQLite without an index",
            workload: "objects-group-by", rule: .ratioAtLeast(2)),
        Target(
            name: "objects: GROUP BY designation ≥ 2× SQLite with a covering index",
            workload: "objects-group-by-indexed", rule: .ratioAtLeast(2)),
        Target(
            name: "objects: MIN/MAX of an indexed attribute ≥ 1× SQLite",
            workload: "objects-min-max", rule: .ratioAtLeast(1)),
        Target(
            name: "objects: search of a name token ≥ 1× SQLite FTS5", workload: "objects-search",
            rule: .ratioAtLeast(1)),
        Target(
            name: "objects: text index ≤ 1.5× FTS5's", workload: "objects-search-index-vs-fts5",
            rule: .figureAtMost(1.5)),
    ]

    /// One group's numbers, comparable between the engines (the mean to a cent).
    struct Group: Equatable {
        var designation: String
        var count: Int64
        var sum: Int64
        var centsOfMean: Int64
    }

    static func run(
        _ rows: [EmployeeRow], _ directory: String, _ context: BenchContext, rounds: Int,
        extremes: Int, searches: Int
    ) throws {
        let reporter = context.reporter
        let n = rows.count
        let url = URL(fileURLWithPath: directory + "/query.logbook")
        var container: ModelContainer? = try ModelContainer(for: [QueryEmployee.self], at: url)
        var seconds = try measure {
            let load = ModelContext(container!)
            for row in rows { load.insert(QueryEmployee(row)) }
            try load.save()
        }
        reporter.timing(
            "objects-query-load", engine: "logbook", operations: n, bytes: 0, seconds: seconds,
            note: "insert + one save, salary indexed, name searchable")
        // Reopened, so the aggregates read the store as an app that starts does.
        try container?.close()
        container = try ModelContainer(for: [QueryEmployee.self], at: url)
        let textBytes =
            (try? FileManager.default.attributesOfItem(
                atPath: directory + "/query.logbook/logbook-text.sidecar")[.size] as? Int) ?? 0
        let sqlite = try SQLiteDatabase(path: directory + "/employees.sqlite", durable: true)
        try sqlite.execute(
            "CREATE TABLE employee(id INTEGER PRIMARY KEY, name TEXT, designation TEXT, "
                + "salary INTEGER)")
        try sqlite.execute("CREATE INDEX employee_salary ON employee(salary)")
        let insert = try sqlite.prepare(
            "INSERT INTO employee(id, name, designation, salary) VALUES (?, ?, ?, ?)")
        seconds = try measure {
            try sqlite.execute("BEGIN")
            for row in rows {
                insert.bind(1, row.id)
                insert.bind(2, row.name)
                insert.bind(3, row.designation)
                insert.bind(4, row.salary)
                try insert.run()
            }
            try sqlite.execute("COMMIT")
        }
        reporter.timing(
            "objects-query-load", engine: "sqlite", operations: n, bytes: 0, seconds: seconds,
            note: "INSERT in one transaction, INDEX(salary)")

        // GROUP BY designation: count, sum, mean. Rounds alternate between the engines.
        let descriptor = AggregateDescriptor<QueryEmployee>(
            groupBy: [\.designation], computing: [.sum(\.salary), .average(\.salary)])
        let queryContext = ModelContext(container!)
        func ours() throws -> [Group] {
            try queryContext.aggregate(descriptor).map { row in
                Group(
                    designation: row[\QueryEmployee.designation] ?? "", count: Int64(row.count),
                    sum: row.sum(\QueryEmployee.salary) ?? 0,
                    centsOfMean: Int64(((row.average(\QueryEmployee.salary) ?? 0) * 100).rounded()))
            }
        }
        let groupSQL =
            "SELECT designation, COUNT(*), SUM(salary), AVG(salary) FROM employee "
            + "GROUP BY designation ORDER BY designation"
        func theirs() throws -> [Group] {
            let statement = try sqlite.prepare(groupSQL)
            var groups: [Group] = []
            while try statement.step() {
                groups.append(
                    Group(
                        designation: statement.text(0), count: statement.int64(1),
                        sum: statement.int64(2),
                        centsOfMean: Int64((statement.double(3) * 100).rounded())))
            }
            return groups
        }
        var total = ["logbook": 0.0, "sqlite": 0.0, "sqlite-indexed": 0.0]
        var ourGroups: [Group] = []
        var theirGroups: [Group] = []
        for _ in 0..<rounds {
            total["logbook"]! += try measure { ourGroups = try ours() }
            total["sqlite"]! += try measure { theirGroups = try theirs() }
        }
        try context.agree("objects-group-by", "groups", logbook: ourGroups, sqlite: theirGroups)
        reporter.timing(
            "objects-group-by", engine: "logbook", operations: rounds, bytes: 0,
            seconds: total["logbook"]!,
            note: "aggregate: designation, count, sum and average of salary (one scan)")
        reporter.timing(
            "objects-group-by", engine: "sqlite", operations: rounds, bytes: 0,
            seconds: total["sqlite"]!, note: "\(groupSQL), no index")
        // MIN and MAX of the indexed salary.
        var ourExtremes = Checksum()
        let extremesContext = ModelContext(container!)
        seconds = try measure {
            for _ in 0..<extremes {
                let low = try extremesContext.minimum(\QueryEmployee.salary) ?? 0
                let high = try extremesContext.maximum(\QueryEmployee.salary) ?? 0
                ourExtremes.add(low &* 31 &+ high)
            }
        }
        reporter.timing(
            "objects-min-max", engine: "logbook", operations: extremes, bytes: 0,
            seconds: seconds, note: "minimum and maximum of the indexed salary (the index's ends)")
        // Two statements: SQLite reads an index's end only for a lone MIN or MAX.
        let minimum = try sqlite.prepare("SELECT MIN(salary) FROM employee")
        let maximum = try sqlite.prepare("SELECT MAX(salary) FROM employee")
        var theirExtremes = Checksum()
        seconds = try measure {
            for _ in 0..<extremes {
                _ = try minimum.step()
                _ = try maximum.step()
                theirExtremes.add(minimum.int64(0) &* 31 &+ maximum.int64(0))
                minimum.reset()
                maximum.reset()
            }
        }
        reporter.timing(
            "objects-min-max", engine: "sqlite", operations: extremes, bytes: 0, seconds: seconds,
            note: "SELECT MIN(salary) and SELECT MAX(salary) (INDEX(salary))")
        try context.agree(
            "objects-min-max", "extremes", logbook: ourExtremes, sqlite: theirExtremes)
        // A search of one name token: Logbook's text index against FTS5. FTS5's index is
        // contentless (`content=''`): only the index, as Logbook's sidecar.
        let fts = try SQLiteDatabase(path: directory + "/names.sqlite", durable: true)
        try fts.execute("CREATE VIRTUAL TABLE names USING fts5(name, content='')")
        let ftsInsert = try fts.prepare("INSERT INTO names(rowid, name) VALUES (?, ?)")
        seconds = try measure {
            try fts.execute("BEGIN")
            for row in rows {
                ftsInsert.bind(1, row.id)
                ftsInsert.bind(2, row.name)
                try ftsInsert.run()
            }
            try fts.execute("COMMIT")
            try fts.execute("INSERT INTO names(names) VALUES ('optimize')")
        }
        reporter.timing(
            "objects-search-load", engine: "sqlite", operations: n, bytes: 0, seconds: seconds,
            note: "FTS5 (content='') insert of every name + optimize")
        try fts.execute("VACUUM")
        try fts.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let ftsBytes =
            (try? FileManager.default.attributesOfItem(
                atPath: directory + "/names.sqlite")[.size] as? Int) ?? 0
        var rng = SeededGenerator(seed: Seed.access &+ 39)
        let picked = (0..<searches).map { _ in rows[Int.random(in: 0..<n, using: &rng)].name }
        let searchContext = ModelContext(container!)
        var ourMatches = Checksum()
        seconds = try measure {
            for name in picked {
                for match in try searchContext.searchMatches(SearchDescriptor<QueryEmployee>(name))
                {
                    ourMatches.add(Int64(match.id.primaryKey))
                }
            }
        }
        reporter.timing(
            "objects-search", engine: "logbook", operations: searches, bytes: 0, seconds: seconds,
            note: "search of one name token, ranked (identifiers and scores)")
        let match = try fts.prepare("SELECT rowid, bm25(names) FROM names WHERE names MATCH ?")
        var theirMatches = Checksum()
        seconds = try measure {
            for name in picked {
                match.bind(1, "\"" + name + "\"")
                while try match.step() { theirMatches.add(match.int64(0)) }
                match.reset()
            }
        }
        reporter.timing(
            "objects-search", engine: "sqlite", operations: searches, bytes: 0, seconds: seconds,
            note: "FTS5 MATCH of the name, with bm25()")
        try context.agree("objects-search", "matches", logbook: ourMatches, sqlite: theirMatches)
        reporter.figure(
            "objects-search-index-bytes", engine: "logbook", value: Double(textBytes),
            unit: "bytes of logbook-text.sidecar")
        reporter.figure(
            "objects-search-index-bytes", engine: "sqlite", value: Double(ftsBytes),
            unit: "bytes of the FTS5 database (contentless, optimized, vacuumed)")
        reporter.figure(
            "objects-search-index-vs-fts5", engine: "logbook",
            value: Double(textBytes) / Double(max(ftsBytes, 1)), unit: "× FTS5's size")
        // The same with an index on (designation, salary) on both sides: the store reopened
        // with a model that declares it (opening builds it), SQLite's covering index.
        try container?.close()
        container = try ModelContainer(for: [CoveredQueryEmployee.self], at: url)
        let coveredContext = ModelContext(container!)
        let coveredDescriptor = AggregateDescriptor<CoveredQueryEmployee>(
            groupBy: [\.designation], computing: [.sum(\.salary), .average(\.salary)])
        func covered() throws -> [Group] {
            try coveredContext.aggregate(coveredDescriptor).map { row in
                Group(
                    designation: row[\CoveredQueryEmployee.designation] ?? "",
                    count: Int64(row.count), sum: row.sum(\CoveredQueryEmployee.salary) ?? 0,
                    centsOfMean: Int64(
                        ((row.average(\CoveredQueryEmployee.salary) ?? 0) * 100).rounded()))
            }
        }
        try sqlite.execute("CREATE INDEX employee_designation ON employee(designation, salary)")
        try sqlite.execute("ANALYZE")
        total["logbook"] = 0
        for _ in 0..<rounds {
            total["logbook"]! += try measure { ourGroups = try covered() }
            total["sqlite-indexed"]! += try measure { theirGroups = try theirs() }
        }
        try context.agree(
            "objects-group-by-indexed", "groups", logbook: ourGroups, sqlite: theirGroups)
        reporter.timing(
            "objects-group-by-indexed", engine: "logbook", operations: rounds, bytes: 0,
            seconds: total["logbook"]!,
            note: "the same aggregate with an index on (designation, salary): its entries alone")
        reporter.timing(
            "objects-group-by-indexed", engine: "sqlite", operations: rounds, bytes: 0,
            seconds: total["sqlite-indexed"]!,
            note: "the same SELECT with a covering INDEX(designation, salary)")
        try container?.close()
    }
}
