/// The Objects group (issue 6): a Logbook context against SQLite rows, on N Employees.
///
/// One flow per engine, on one store: insert N + one save; reopen + first fetch; fetch by
/// identifier; predicate fetch `designation == "Engineer"` sorted by salary; update N/10
/// distinct Employees + save; delete N/10 distinct Employees + save; the predicate fetch again
/// with an index on designation; compaction. Saves are durable (Logbook's default; SQLite
/// `synchronous=FULL`, one transaction per save). File sizes after the load, after the changes
/// and after compaction. Both engines must fetch the same Employees.
enum ObjectWorkloads {
    /// The engines of this group, Logbook first.
    static var stores: [any EmployeeStore.Type] { [LogbookEmployees.self, SQLiteEmployees.self] }

    /// What one engine's flow read, compared between engines.
    struct Outcome: Equatable {
        var byID = Checksum()
        var byDistinctID = Checksum()
        var batchDeleted = 0
        var batchRaised = 0
        var engineers = FetchSummary()
        var engineersIndexed: FetchSummary?
        var final = Checksum()
    }

    static var all: [Workload] {
        [
            Workload(
                name: "objects", group: "objects",
                summary: "Employees: insert, fetch, update, delete"
            ) { context in
                let n = context.sizes.employees
                context.reporter.note(
                    "objects: \(n) Employees; fetch by id ×\(context.sizes.fetchesByID); update "
                        + "and delete \(context.sizes.employeeChanges) each; saves durable (Logbook "
                        + "default; " + SQLiteSettings.summary(durable: true) + ")")
                let rows = EmployeeData.generate(count: n)
                var outcomes: [String: Outcome] = [:]
                var sizes: [String: [String: Int64]] = [:]
                for type in stores {
                    try ScratchDirectory.with("objects") { directory in
                        outcomes[type.label] = try run(
                            type, directory, rows, context, sizes: &sizes)
                    }
                }
                for point in ["after-load", "after-changes", "after-compact"] {
                    guard let data = sizes["objects-size-\(point)"] else { continue }
                    // The files rows count the data (segments, hints; SQLite's database and
                    // WAL); Logbook's disposable caches get their own row, and the total one.
                    context.reporter.size(
                        "objects-size-\(point)", logbook: data["logbook"], sqlite: data["sqlite"],
                        note: "data files: all but keys.dir and the index sidecar")
                    let caches = sizes["objects-caches-\(point)"]?["logbook"]
                    context.reporter.size(
                        "objects-caches-\(point)", logbook: caches, sqlite: nil,
                        note: "keys.dir + logbook-indexes.sidecar, disposable caches")
                    context.reporter.size(
                        "objects-total-\(point)",
                        logbook: data["logbook"].map { $0 + (caches ?? 0) },
                        sqlite: data["sqlite"], note: "data files + caches")
                }
                for name in ["rss-open", "rss-anon-open"] {
                    guard let bytes = sizes["objects-\(name)"] else { continue }
                    context.reporter.size(
                        "objects-\(name)", logbook: bytes["logbook"], sqlite: bytes["sqlite"])
                }
                if let ours = outcomes["logbook"], let theirs = outcomes["sqlite"] {
                    try context.agree(
                        "objects-fetch-id", "objects read", logbook: ours.byDistinctID,
                        sqlite: theirs.byDistinctID)
                    try context.agree(
                        "objects-fetch-id-repeats", "objects read", logbook: ours.byID,
                        sqlite: theirs.byID)
                    try context.agree(
                        "objects-batch-delete", "Employees deleted", logbook: ours.batchDeleted,
                        sqlite: theirs.batchDeleted)
                    try context.agree(
                        "objects-batch-update", "Employees raised", logbook: ours.batchRaised,
                        sqlite: theirs.batchRaised)
                    try context.agree(
                        "objects-fetch-engineers", "objects fetched", logbook: ours.engineers,
                        sqlite: theirs.engineers)
                    try context.agree(
                        "objects", "Employees at the end", logbook: ours.final, sqlite: theirs.final
                    )
                    if let indexed = ours.engineersIndexed {
                        try context.agree(
                            "objects-fetch-engineers-indexed", "objects fetched", logbook: indexed,
                            sqlite: theirs.engineersIndexed)
                    }
                }
            }
        ]
    }

    /// Records the data files' and the caches' bytes of the store in `directory` at `point`.
    static func recordSizes(
        _ point: String, _ label: String, _ directory: String,
        _ sizes: inout [String: [String: Int64]]
    ) {
        let (data, caches) = ScratchDirectory.split(under: directory)
        sizes["objects-size-\(point)", default: [:]][label] = data
        sizes["objects-caches-\(point)", default: [:]][label] = caches
    }

    /// The whole flow on one engine.
    static func run(
        _ type: any EmployeeStore.Type, _ directory: String, _ rows: [EmployeeRow],
        _ context: BenchContext, sizes: inout [String: [String: Int64]]
    ) throws -> Outcome {
        let reporter = context.reporter
        let label = type.label
        let n = rows.count
        let rowBytes = rows.reduce(0) { $0 + $1.payloadBytes }
        var outcome = Outcome()

        var store: (any EmployeeStore)? = try type.init(directory: directory)
        var seconds = try measure { try store?.insertAll(rows) }
        reporter.timing(
            "objects-insert", engine: label, operations: n, bytes: rowBytes, seconds: seconds)
        try store?.close()
        store = nil
        recordSizes("after-load", label, directory, &sizes)
        let child = try ChildProcess.spawn(["open-objects", label, directory, "\(n)"])
        sizes["objects-rss-open", default: [:]][label] = child["rss"]
        sizes["objects-rss-anon-open", default: [:]][label] = child["rssAnon"]

        var first: Int64?
        seconds = try measure {
            let opened = try type.init(directory: directory)
            first = try opened.fetchFingerprint(id: Int64(max(n / 2, 1)))
            store = opened
        }
        try context.expect("objects-reopen", label, "Employee found", first != nil, equals: true)
        reporter.timing(
            "objects-reopen", engine: label, operations: 1, bytes: 0, seconds: seconds,
            note: "open \(n) Employees + fetch one by id")
        guard let store else { return outcome }

        // Distinct ids: every fetch reads the store on both engines (the target's row).
        let distinct = EmployeeData.distinctIDs(
            context.sizes.fetchesByID, from: n, seed: Seed.access &+ 3)
        try store.beginFetches()
        seconds = try measure {
            for id in distinct {
                if let fingerprint = try store.fetchFingerprint(id: id) {
                    outcome.byDistinctID.add(fingerprint)
                }
            }
        }
        try store.endFetches()
        try context.expect(
            "objects-fetch-id", label, "objects fetched", outcome.byDistinctID.records,
            equals: distinct.count)
        reporter.timing(
            "objects-fetch-id", engine: label, operations: distinct.count,
            bytes: distinct.count * rowBytes / max(n, 1), seconds: seconds,
            note: "distinct ids, one fresh context / one read transaction")

        // Uniform ids with repeats: a context may serve a repeat it still holds without
        // reading the store (SQLite reads every time).
        var rng = SeededGenerator(seed: Seed.access)
        let fetches = context.sizes.fetchesByID
        try store.beginFetches()
        seconds = try measure {
            for _ in 0..<fetches {
                if let fingerprint = try store.fetchFingerprint(id: Int64(rng.id(upTo: n))) {
                    outcome.byID.add(fingerprint)
                }
            }
        }
        try store.endFetches()
        try context.expect(
            "objects-fetch-id-repeats", label, "objects fetched", outcome.byID.records,
            equals: fetches)
        reporter.timing(
            "objects-fetch-id-repeats", engine: label, operations: fetches,
            bytes: fetches * rowBytes / max(n, 1), seconds: seconds,
            note: "uniform ids with repeats, one fresh context / one read transaction")

        (outcome.engineers, seconds) = try bestOfThree {
            try store.fetchSummary(designation: EmployeeData.fetchedDesignation)
        }
        try checkEngineers(outcome.engineers, rows, context, label, "objects-fetch-engineers")
        reporter.timing(
            "objects-fetch-engineers", engine: label, operations: 1,
            bytes: outcome.engineers.count * rowBytes / max(n, 1), seconds: seconds,
            note: "\(outcome.engineers.count) objects, no index, best of 3")

        let changes = context.sizes.employeeChanges
        let updated = EmployeeData.distinctIDs(changes, from: n, seed: Seed.access &+ 1)
        seconds = try measure { try store.updateSalaries(ids: updated, salary: newSalary) }
        reporter.timing(
            "objects-update", engine: label, operations: changes, bytes: changes * 8,
            seconds: seconds, note: type.updateSummary)
        let deleted = EmployeeData.distinctIDs(changes, from: n, seed: Seed.access &+ 2)
        // The update's objects are released here, not inside the delete's timing.
        store.releaseObjects()
        seconds = try measure { try store.delete(ids: deleted) }
        reporter.timing(
            "objects-delete", engine: label, operations: changes, bytes: 0, seconds: seconds,
            note: type.deleteSummary)
        seconds = try measure {
            outcome.batchRaised = try store.batchRaise(
                designation: EmployeeData.raisedDesignation, by: 1_000)
        }
        reporter.timing(
            "objects-batch-update", engine: label, operations: outcome.batchRaised,
            bytes: outcome.batchRaised * 8, seconds: seconds,
            note: "salary += 1000 where designation = \(EmployeeData.raisedDesignation): "
                + type.batchUpdateSummary)
        seconds = try measure {
            outcome.batchDeleted = try store.batchDelete(
                designation: EmployeeData.batchDeletedDesignation)
        }
        reporter.timing(
            "objects-batch-delete", engine: label, operations: outcome.batchDeleted, bytes: 0,
            seconds: seconds,
            note: "where designation = \(EmployeeData.batchDeletedDesignation): "
                + type.batchDeleteSummary)
        try store.close()
        recordSizes("after-changes", label, directory, &sizes)

        let reopened = try type.init(directory: directory)
        var compaction: String?
        seconds = try measure { compaction = try reopened.compact() }
        if let compaction {
            reporter.timing(
                "objects-compact", engine: label, operations: 1, bytes: 0, seconds: seconds,
                note: compaction)
        } else {
            reporter.unavailable("objects-compact", engine: label, reason: "no compaction API yet")
        }
        try reopened.close()
        if compaction != nil {
            recordSizes("after-compact", label, directory, &sizes)
        }
        let indexed = try type.init(directory: directory)
        if try indexed.createDesignationIndex() {
            let (summary, indexedSeconds) = try bestOfThree {
                try indexed.fetchSummary(designation: EmployeeData.fetchedDesignation)
            }
            outcome.engineersIndexed = summary
            reporter.timing(
                "objects-fetch-engineers-indexed", engine: label, operations: 1,
                bytes: summary.count * rowBytes / max(n, 1), seconds: indexedSeconds,
                note: "\(summary.count) objects, index on designation, best of 3")
        } else {
            reporter.unavailable(
                "objects-fetch-engineers-indexed", engine: label, reason: "no indexes yet")
        }

        for row in try indexed.all() {
            outcome.final.add(row.id &* 1_000_003 &+ row.fingerprint)
        }
        try context.expect(
            "objects", label, "Employees left", outcome.final.records,
            equals: n - changes - outcome.batchDeleted)
        try indexed.close()
        return outcome
    }

    /// The salary the update round gives Employee `id`: the same on both engines.
    static func newSalary(_ id: Int64) -> Int64 { 30_000 + (id &* 7919) % 170_001 }

    /// Runs `body` three times; returns its last result and the best time.
    static func bestOfThree<T>(_ body: () throws -> T) throws -> (T, Double) {
        var best = Double.infinity
        var result: T?
        for _ in 0..<3 {
            best = min(best, try measure { result = try body() })
        }
        return (result!, best)
    }

    /// The fetch must return exactly the Engineers of the generated data, sorted by salary.
    static func checkEngineers(
        _ summary: FetchSummary, _ rows: [EmployeeRow], _ context: BenchContext, _ label: String,
        _ workload: String
    ) throws {
        var expected = FetchSummary()
        for row in rows.lazy.filter({ $0.designation == EmployeeData.fetchedDesignation })
            .sorted(by: { $0.salary < $1.salary })
        {
            expected.add(id: row.id, salary: row.salary)
        }
        try context.expect(workload, label, "Engineers", summary, equals: expected)
    }
}
