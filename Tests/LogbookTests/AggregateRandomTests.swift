import Foundation
import Logbook
import TestSupport
import Testing

/// Aggregates against the same numbers computed in Swift from fetched objects, on random data:
/// on a store without indexes and on one where every attribute is indexed, with pending
/// changes, after batch updates, and through ``ModelContainer/context(asOf:)``.
@Suite struct AggregateRandomTests {
    /// What the tests read of an object, whichever class holds it.
    struct Row {
        var designation: String
        var salary: Int64
        var rating: Double
        var hired: Date
        var level: Int?
        var firm: String?
    }

    static let designations = ["Engineer", "Manager", "Clerk", "Designer", "Analyst"]

    /// The expected rows of a grouping by `key`: count, salary sum, rating sum and mean, the
    /// extremes of hired and level, and the count of levels.
    static func expected<Key: Hashable>(_ rows: [Row], by key: (Row) -> Key)
        -> [Key: (
            count: Int, salary: Int64, rating: Double, hiredMin: Date?, hiredMax: Date?,
            levelMin: Int?, levelMax: Int?, levels: Int
        )]
    {
        Dictionary(grouping: rows, by: key).mapValues { group in
            let levels = group.compactMap(\.level)
            return (
                group.count, group.reduce(0) { $0 + $1.salary },
                group.reduce(0) { $0 + $1.rating }, group.map(\.hired).min(),
                group.map(\.hired).max(), levels.min(), levels.max(), levels.count
            )
        }
    }

    /// Checks the aggregates of a context against `rows` (what a fetch of it reads).
    static func check<Model: PersistentModel>(
        _ context: ModelContext, _ rows: [Row], _ type: Model.Type,
        designation: KeyPath<Model, String>, salary: KeyPath<Model, Int64>,
        rating: KeyPath<Model, Double>, hired: KeyPath<Model, Date>, level: KeyPath<Model, Int?>,
        firmName: KeyPath<Model, String?>, _ label: String
    ) throws {
        let functions: [AggregateFunction<Model>] = [
            .sum(salary), .sum(rating), .average(rating), .minimum(hired), .maximum(hired),
            .minimum(level), .maximum(level), .count(level), .average(salary),
        ]
        func compare(
            _ row: AggregateRow,
            _ e: (
                count: Int, salary: Int64, rating: Double, hiredMin: Date?, hiredMax: Date?,
                levelMin: Int?, levelMax: Int?, levels: Int
            ), _ what: String
        ) {
            #expect(row.count == e.count, "\(label) \(what): count")
            #expect(row.values[0] == .integer(e.salary), "\(label) \(what): salary sum")
            if case .double(let sum) = row.values[1] {
                #expect(
                    abs(sum - e.rating) <= 1e-9 * max(1, abs(e.rating)),
                    "\(label) \(what): rating sum")
            } else {
                Issue.record("\(label) \(what): rating sum \(row.values[1])")
            }
            if e.count > 0, case .double(let mean) = row.values[2] {
                let wanted = e.rating / Double(e.count)
                #expect(
                    abs(mean - wanted) <= 1e-9 * max(1, abs(wanted)),
                    "\(label) \(what): rating mean")
            }
            #expect(
                row.values[3] == (e.hiredMin.map { .date($0) } ?? .null),
                "\(label) \(what): hired min")
            #expect(
                row.values[4] == (e.hiredMax.map { .date($0) } ?? .null),
                "\(label) \(what): hired max")
            #expect(
                row.values[5] == (e.levelMin.map { .integer(Int64($0)) } ?? .null),
                "\(label) \(what): level min")
            #expect(
                row.values[6] == (e.levelMax.map { .integer(Int64($0)) } ?? .null),
                "\(label) \(what): level max")
            #expect(row.values[7] == .integer(Int64(e.levels)), "\(label) \(what): levels")
        }
        // All objects.
        let whole = try context.aggregate(AggregateDescriptor<Model>(computing: functions))
        let all = expected(rows) { _ in 0 }[0] ?? (0, 0, 0, nil, nil, nil, nil, 0)
        compare(whole[0], all, "all")
        // Per designation, per firm name, and both.
        let byDesignation = try context.aggregate(
            AggregateDescriptor<Model>(groupBy: [designation], computing: functions))
        let wanted = expected(rows) { $0.designation }
        #expect(byDesignation.map { $0[designation] } == wanted.keys.sorted(), "\(label): groups")
        for row in byDesignation {
            if let key = row[designation], let e = wanted[key] { compare(row, e, key) }
        }
        let byFirm = try context.aggregate(
            AggregateDescriptor<Model>(groupBy: [firmName, designation], computing: functions))
        let wantedByFirm = expected(rows) { [$0.firm ?? "∅", $0.designation] }
        #expect(byFirm.count == wantedByFirm.count, "\(label): firm groups")
        for row in byFirm {
            let firm = row[firmName].flatMap { $0 } ?? "∅"
            if let e = wantedByFirm[[firm, row[designation] ?? ""]] { compare(row, e, "\(firm)") }
        }
        // The shortcuts and counts the indexes may answer.
        #expect(try context.fetchCount(FetchDescriptor<Model>()) == rows.count, "\(label): count")
        #expect(try context.minimum(salary) == rows.map(\.salary).min(), "\(label): min salary")
        #expect(try context.maximum(salary) == rows.map(\.salary).max(), "\(label): max salary")
        #expect(try context.maximum(rating) == rows.map(\.rating).max(), "\(label): max rating")
        #expect(
            try context.distinct(designation) == Array(Set(rows.map(\.designation))).sorted(),
            "\(label): distinct")
        let counts = try context.aggregate(
            AggregateDescriptor<Model>(
                groupBy: [designation], computing: [.count(designation), .minimum(designation)]))
        for row in counts {
            #expect(
                row.count == rows.filter { $0.designation == row[designation] }.count,
                "\(label): count per designation")
            #expect(
                row.values == [.integer(Int64(row.count)), row.group[0]],
                "\(label): values of the key")
        }
        // A predicate, ordering by a value, a limit.
        var top = AggregateDescriptor<Model>(
            groupBy: [designation], computing: [.sum(salary)],
            sortBy: [.value(.sum(salary), order: .reverse), .group(designation)])
        top.limit = 2
        let expectedTop = wanted.map { ($0.key, $0.value.salary) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(2).map(\.0)
        #expect(
            try context.aggregate(top).compactMap { $0[designation] } == Array(expectedTop),
            "\(label): top")
    }

    private static func rows(_ workers: [Worker]) -> [Row] {
        workers.map {
            Row(
                designation: $0.designation, salary: $0.salary, rating: $0.rating, hired: $0.hired,
                level: $0.level, firm: $0.firm?.name)
        }
    }

    private static func rows(_ workers: [IndexedWorker]) -> [Row] {
        workers.map {
            Row(
                designation: $0.designation, salary: $0.salary, rating: $0.rating, hired: $0.hired,
                level: $0.level, firm: $0.firm?.name)
        }
    }

    private static func randomize<W: PersistentModel>(
        _ worker: W, _ rng: inout SeededGenerator,
        _ set: (W, String, Int64, Double, Date, Int?) -> Void
    ) {
        set(
            worker, designations.randomElement(using: &rng)!,
            Int64.random(in: -1_000_000...10_000_000, using: &rng),
            Double.random(in: -5...5, using: &rng).rounded(
                toPlaces: Int.random(in: 0...6, using: &rng)),
            Date(
                timeIntervalSinceReferenceDate: Double(Int.random(in: 0...10_000, using: &rng))
                    * 3_600),
            Bool.random(using: &rng) ? Int.random(in: -3...9, using: &rng) : nil)
    }

    @Test func aggregatesAgreeWithSwiftOnAStoreWithoutIndexes() throws {
        let seed = testSeed("aggregatesAgreeWithSwiftOnAStoreWithoutIndexes")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Worker.self, Firm.self])
        let context = ModelContext(container)
        var firms: [Firm] = []
        for name in ["Acme", "Globex", "Initech"] {
            let firm = Firm()
            firm.name = name
            context.insert(firm)
            firms.append(firm)
        }
        var tokens: [(HistoryToken, [Row])] = []
        for step in 0..<25 {
            for _ in 0..<Int.random(in: 0...30, using: &rng) {
                let worker = Worker()
                Self.randomize(worker, &rng) {
                    $0.designation = $1
                    $0.salary = $2
                    $0.rating = $3
                    $0.hired = $4
                    $0.level = $5
                }
                worker.firm = Bool.random(using: &rng) ? firms.randomElement(using: &rng) : nil
                context.insert(worker)
            }
            let existing = try context.fetch(FetchDescriptor<Worker>()).shuffled(using: &rng)
            for worker in existing.prefix(Int.random(in: 0...5, using: &rng)) {
                Self.randomize(worker, &rng) {
                    $0.designation = $1
                    $0.salary = $2
                    $0.rating = $3
                    $0.hired = $4
                    $0.level = $5
                }
            }
            for worker in existing.dropFirst(5).prefix(Int.random(in: 0...3, using: &rng)) {
                context.delete(worker)
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                firms.randomElement(using: &rng)!.name = ["Acme", "Umbrella", "Globex"]
                    .randomElement(using: &rng)!
            }
            // With pending changes, then saved, sometimes with a batch update after.
            let label = "seed \(seed) step \(step)"
            try Self.check(
                context, Self.rows(try context.fetch(FetchDescriptor<Worker>())), Worker.self,
                designation: \.designation, salary: \.salary, rating: \.rating, hired: \.hired,
                level: \.level, firmName: \.firm?.name, label + " pending")
            try context.save()
            if Bool.random(using: &rng) {
                let pick = Self.designations.randomElement(using: &rng)!
                try context.update(model: Worker.self, where: #Predicate { $0.designation == pick })
                {
                    $0.salary += 7
                    $0.level = nil
                }
                try Self.check(
                    context, Self.rows(try context.fetch(FetchDescriptor<Worker>())), Worker.self,
                    designation: \.designation, salary: \.salary, rating: \.rating, hired: \.hired,
                    level: \.level, firmName: \.firm?.name, label + " batch update")
            }
            if step % 6 == 0 {
                tokens.append(
                    (
                        try container.currentHistoryToken,
                        Self.rows(try context.fetch(FetchDescriptor<Worker>()))
                    ))
            }
        }
        // The past states, read as of their tokens.
        for (token, rows) in tokens {
            let past = try container.context(asOf: token)
            try Self.check(
                past, rows, Worker.self, designation: \.designation, salary: \.salary,
                rating: \.rating, hired: \.hired, level: \.level, firmName: \.firm?.name,
                "seed \(seed) as of \(token)")
        }
    }

    @Test func aggregatesAgreeWithSwiftOnAStoreWithIndexes() throws {
        let seed = testSeed("aggregatesAgreeWithSwiftOnAStoreWithIndexes")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([IndexedWorker.self, IndexedFirm.self])
        let context = ModelContext(container)
        var firms: [IndexedFirm] = []
        for name in ["Acme", "Globex"] {
            let firm = IndexedFirm()
            firm.name = name
            context.insert(firm)
            firms.append(firm)
        }
        for step in 0..<25 {
            for _ in 0..<Int.random(in: 0...30, using: &rng) {
                let worker = IndexedWorker()
                Self.randomize(worker, &rng) {
                    $0.designation = $1
                    $0.salary = $2
                    $0.rating = $3
                    $0.hired = $4
                    $0.level = $5
                }
                worker.firm = Bool.random(using: &rng) ? firms.randomElement(using: &rng) : nil
                context.insert(worker)
            }
            let existing = try context.fetch(FetchDescriptor<IndexedWorker>()).shuffled(using: &rng)
            for worker in existing.prefix(Int.random(in: 0...5, using: &rng)) {
                Self.randomize(worker, &rng) {
                    $0.designation = $1
                    $0.salary = $2
                    $0.rating = $3
                    $0.hired = $4
                    $0.level = $5
                }
            }
            for worker in existing.dropFirst(5).prefix(Int.random(in: 0...3, using: &rng)) {
                context.delete(worker)
            }
            let label = "seed \(seed) step \(step)"
            try Self.check(
                context, Self.rows(try context.fetch(FetchDescriptor<IndexedWorker>())),
                IndexedWorker.self,
                designation: \.designation, salary: \.salary, rating: \.rating, hired: \.hired,
                level: \.level, firmName: \.firm?.name, label + " pending")
            try context.save()
            try Self.check(
                ModelContext(container),
                Self.rows(try context.fetch(FetchDescriptor<IndexedWorker>())),
                IndexedWorker.self, designation: \.designation, salary: \.salary, rating: \.rating,
                hired: \.hired, level: \.level, firmName: \.firm?.name, label + " saved")
        }
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
