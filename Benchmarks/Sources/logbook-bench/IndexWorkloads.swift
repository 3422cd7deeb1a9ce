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
                    ours.add(Int64(employee.persistentModelID.primaryKey) &* 31 &+ employee.salary)
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
                        Int64(employee.persistentModelID.primaryKey) &* 31 &+ employee.salary)
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

        var rangeDescriptor = FetchDescriptor<UniqueEmployee>(
            predicate: #Predicate { $0.salary >= 100_000 && $0.salary <= 101_700 },
            sortBy: [SortDescriptor(\.salary)])
        rangeDescriptor.fetchLimit = 100
        let rangePlan = try ModelContext(unique!).explain(rangeDescriptor)
        reporter.note("objects-range plan: \(rangePlan)")
        try context.expect(
            "objects-range", "logbook", "sorted by the index, stopped at the limit",
            rangePlan.sortedByIndex && rangePlan.stoppedEarly, equals: true)

        // Counts of salary ranges of 10%: from the index alone.
        let countWidth: Int64 = (200_000 - 30_000) / 10
        let countStarts = starts.prefix(max(ranges / 10, 1)).map { min($0, 200_000 - countWidth) }
        var ourCounts = Checksum()
        let countContext = ModelContext(unique!)
        seconds = try measure {
            for low in countStarts {
                let high = low + countWidth
                ourCounts.add(
                    Int64(
                        try countContext.fetchCount(
                            FetchDescriptor<UniqueEmployee>(
                                predicate: #Predicate { $0.salary >= low && $0.salary <= high }))))
            }
        }
        reporter.timing(
            "objects-count-indexed", engine: "logbook", operations: countStarts.count, bytes: 0,
            seconds: seconds, note: "fetchCount of salary BETWEEN 10% of the range")
        var theirCounts = Checksum()
        seconds = try measure {
            for low in countStarts { theirCounts.add(try sqlite.count(low, low + countWidth)) }
        }
        reporter.timing(
            "objects-count-indexed", engine: "sqlite", operations: countStarts.count, bytes: 0,
            seconds: seconds,
            note: "SELECT COUNT(*) … WHERE salary BETWEEN ? AND ? (index on salary)")
        try context.agree(
            "objects-count-indexed", "counts", logbook: ourCounts, sqlite: theirCounts)
        let low = countStarts[0]
        let high = low + countWidth
        let countPlan = try countContext.explain(
            FetchDescriptor<UniqueEmployee>(
                predicate: #Predicate { $0.salary >= low && $0.salary <= high }),
            counting: true)
        reporter.note("objects-count-indexed plan: \(countPlan)")
        try context.expect(
            "objects-count-indexed", "logbook", "records read by the count", countPlan.recordsRead,
            equals: 0)

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

        // The first indexed fetch after an open checks the mapped sidecar's chunks (their CRCs):
        // open + one lookup by email, against open + one fetch by id above.
        let probeEmail = email(rows[n / 2])
        var firstLookup = Double.infinity
        for _ in 0..<3 {
            firstLookup = min(
                firstLookup,
                try measure {
                    let container = try ModelContainer(for: [UniqueEmployee.self], at: uniqueURL)
                    _ = try ModelContext(container).fetch(
                        FetchDescriptor<UniqueEmployee>(
                            predicate: #Predicate { $0.email == probeEmail }))
                })
        }
        reporter.timing(
            "objects-reopen-indexed-first-lookup", engine: "logbook", operations: 1, bytes: 0,
            seconds: firstLookup,
            note: "open + one fetch by email (checks every chunk of the sidecar), best of 3")

        // Building the indexes at open (no sidecar: a first open after a crash or a migration
        // that adds an index); the close after each writes the sidecar again, untimed.
        let sidecar = uniqueURL.path + "/logbook-indexes.sidecar"
        let extraBytes =
            ScratchDirectory.bytes(under: uniqueURL.path)
            - ScratchDirectory.bytes(under: plainURL.path)
        var rebuild = Double.infinity
        for _ in 0..<3 {
            try FileManager.default.removeItem(atPath: sidecar)
            var container: ModelContainer?
            rebuild = min(
                rebuild,
                try measure {
                    container = try ModelContainer(for: [UniqueEmployee.self], at: uniqueURL)
                    _ = try ModelContext(container!).model(for: probe, as: UniqueEmployee.self)
                })
            try container!.close()
        }
        reporter.timing(
            "objects-reopen-rebuild", engine: "logbook", operations: 1, bytes: 0, seconds: rebuild,
            note: "open building both indexes from \(n) records + fetch one, best of 3")
        reporter.figure(
            "objects-reopen-rebuild-vs-unindexed", engine: "logbook",
            value: rebuild / max(best["plain"]!, 1e-9), unit: "× the open without indexes")
        let fileBytes =
            (try? FileManager.default.attributesOfItem(atPath: sidecar)[.size])
            .flatMap { $0 as? Int } ?? 0
        reporter.figure(
            "objects-index-sidecar-bytes", engine: "logbook", value: Double(fileBytes),
            unit: "bytes of logbook-indexes.sidecar (the store with indexes is \(extraBytes) "
                + "bytes larger than the one without, its email values included)")
    }
}
