import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// History through the container: the saves after a token, contexts as of a past state, and
/// retention through compaction (issue 15).
@MainActor @Suite struct ContainerHistoryTests {
    /// What a run of random saves did, save by save, to compare history with.
    struct Model {
        typealias Row = (name: String, designation: String, salary: Int64)
        struct Save {
            var author: String?
            /// (kind, primary key, updated attributes), sorted.
            var changes: [Change]
            var state: [UInt64: Row]
        }
        struct Change: Hashable, Comparable {
            var kind: String
            var pk: UInt64
            var attributes: [String]
            static func < (a: Self, b: Self) -> Bool { (a.pk, a.kind) < (b.pk, b.kind) }
        }
        var saves: [Save] = []
        var state: [UInt64: Row] = [:]
    }

    static let designations = ["Engineer", "Manager", "Designer", "Analyst"]

    /// Makes `count` random saves (inserts, updates, deletes, and now and then a batch update or
    /// delete) in `container`'s main context.
    static func randomSaves(
        _ count: Int, in container: ModelContainer, model: inout Model, rng: inout SeededGenerator
    ) throws {
        let context = container.mainContext
        for s in 0..<count {
            context.author = s % 3 == 0 ? nil : "author \(s % 3)"
            var changes: [Model.Change] = []
            let live = model.state.keys.sorted()
            if live.count > 10 && Int.random(in: 0..<10, using: &rng) == 0 {
                // A batch operation by designation.
                let designation = designations.randomElement(using: &rng)!
                let matching = live.filter { model.state[$0]!.designation == designation }
                if Bool.random(using: &rng) {
                    try context.delete(
                        model: Employee.self, where: #Predicate { $0.designation == designation })
                    for pk in matching {
                        model.state[pk] = nil
                        changes.append(Model.Change(kind: "delete", pk: pk, attributes: []))
                    }
                } else {
                    try context.update(
                        model: Employee.self, where: #Predicate { $0.designation == designation }
                    ) { $0.salary += 1 }
                    for pk in matching {
                        model.state[pk]!.salary += 1
                        changes.append(Model.Change(kind: "update", pk: pk, attributes: ["salary"]))
                    }
                }
                if !matching.isEmpty {
                    model.saves.append(
                        Model.Save(
                            author: context.author, changes: changes.sorted(), state: model.state))
                }
                continue
            }
            var touched: Set<UInt64> = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let op = live.isEmpty ? 0 : Int.random(in: 0..<3, using: &rng)
                if op == 0 {
                    let e = Employee(
                        name: "e\(Int.random(in: 0..<1000, using: &rng))",
                        designation: designations.randomElement(using: &rng)!,
                        salary: Int64.random(in: 0..<100_000, using: &rng))
                    context.insert(e)
                    let pk = e.persistentModelID.primaryKey
                    model.state[pk] = (e.name, e.designation, e.salary)
                    changes.append(Model.Change(kind: "insert", pk: pk, attributes: []))
                    touched.insert(pk)
                    continue
                }
                let pk = live.randomElement(using: &rng)!
                guard !touched.contains(pk), model.state[pk] != nil else { continue }
                touched.insert(pk)
                let id = PersistentIdentifier(entityName: "Employee", primaryKey: pk)
                let e = try #require(try context.model(for: id, as: Employee.self))
                if op == 1 {
                    var attributes: [String] = []
                    if Bool.random(using: &rng) {
                        e.name = "renamed \(Int.random(in: 0..<1000, using: &rng))"
                        attributes.append("name")
                    }
                    if attributes.isEmpty || Bool.random(using: &rng) {
                        e.salary = Int64.random(in: 0..<100_000, using: &rng)
                        attributes.append("salary")
                    }
                    model.state[pk] = (e.name, e.designation, e.salary)
                    changes.append(
                        Model.Change(kind: "update", pk: pk, attributes: attributes.sorted()))
                } else {
                    context.delete(e)
                    model.state[pk] = nil
                    changes.append(Model.Change(kind: "delete", pk: pk, attributes: []))
                }
            }
            try context.save()
            model.saves.append(
                Model.Save(author: context.author, changes: changes.sorted(), state: model.state))
        }
    }

    static func changes(of transaction: HistoryTransaction) -> [Model.Change] {
        transaction.changes.map {
            Model.Change(
                kind: $0.kind.rawValue, pk: $0.identifier.primaryKey,
                attributes: $0.updatedAttributes.sorted())
        }.sorted()
    }

    static func state(of context: ModelContext) throws -> [UInt64: Model.Row] {
        var state: [UInt64: Model.Row] = [:]
        for e in try context.fetch(FetchDescriptor<Employee>()) {
            state[e.persistentModelID.primaryKey] = (e.name, e.designation, e.salary)
        }
        return state
    }

    static func same(_ a: [UInt64: Model.Row], _ b: [UInt64: Model.Row]) -> Bool {
        a.count == b.count
            && a.allSatisfy { pair in b[pair.key].map { $0 == pair.value } ?? false }
    }

    static func options(segmentSize: Int = 4096) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = segmentSize
        options.autoCompactionDeadFraction = nil
        return options
    }

    @Test func historyListsEverySaveWithWhatItChanged() throws {
        let seed = testSeed("container history")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try ModelContainer(
            for: [Employee.self], at: fixture.url, options: Self.options())
        let start = try container.currentHistoryToken
        #expect(start.sequence > 0)  // the schema and the store's identity were written
        #expect(try container.oldestHistoryToken.sequence == 0)
        var model = Model()
        try Self.randomSaves(120, in: container, model: &model, rng: &rng)
        for reopen in [false, true] {
            if reopen {
                try container.close()
                container = try ModelContainer(
                    for: [Employee.self], at: fixture.url, options: Self.options())
            }
            let transactions = try container.history(after: start)
            #expect(transactions.count == model.saves.count, "seed \(seed)")
            for (transaction, save) in zip(transactions, model.saves) {
                #expect(Self.changes(of: transaction) == save.changes, "seed \(seed)")
                #expect(transaction.author == save.author)
                #expect(abs(transaction.timestamp.timeIntervalSinceNow) < 600)
                #expect(transaction.token.storeIdentifier == start.storeIdentifier)
            }
            #expect(
                zip(transactions, transactions.dropFirst()).allSatisfy { $0.sequence < $1.sequence }
            )
            #expect(try container.history(after: nil) == transactions)
            // After any token, the rest.
            for (i, transaction) in transactions.enumerated() where i % 9 == 0 {
                #expect(
                    try container.history(after: transaction.token)
                        == Array(transactions[(i + 1)...]))
            }
            #expect(try container.history(after: container.currentHistoryToken).isEmpty)
        }
        try container.close()
    }

    @Test func aContextAsOfAnyTokenHoldsThatState() throws {
        let seed = testSeed("container asOf")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try ModelContainer(
            for: [Employee.self], at: fixture.url, options: Self.options())
        var model = Model()
        try Self.randomSaves(80, in: container, model: &model, rng: &rng)
        let transactions = try container.history()
        #expect(transactions.count == model.saves.count)
        for (transaction, save) in zip(transactions, model.saves) {
            let past = try container.context(asOf: transaction.token)
            #expect(Self.same(try Self.state(of: past), save.state), "seed \(seed)")
            // Predicates and sorting on the past state.
            let engineers = try past.fetch(
                FetchDescriptor<Employee>(
                    predicate: #Predicate { $0.designation == "Engineer" && $0.salary > 20_000 },
                    sortBy: [SortDescriptor(\.salary, order: .reverse)]))
            let expected = save.state.values.filter {
                $0.designation == "Engineer" && $0.salary > 20_000
            }.map(\.salary).sorted(by: >)
            #expect(engineers.map(\.salary) == expected, "seed \(seed)")
            #expect(try past.fetchCount(FetchDescriptor<Employee>()) == save.state.count)
            #expect(past.container === container)
        }
        // The state before the first save: no employees.
        let empty = try container.context(
            asOf: HistoryToken(
                storeIdentifier: try container.currentHistoryToken.storeIdentifier, sequence: 0))
        #expect(try empty.fetch(FetchDescriptor<Employee>()).isEmpty)
        try container.close()
    }

    @Test func aPastContextCannotSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        container.mainContext.insert(Employee(name: "Ann", designation: "Engineer", salary: 1))
        try container.mainContext.save()
        let token = try container.currentHistoryToken
        let past = try container.context(asOf: token)
        let ann = try #require(try past.fetch(FetchDescriptor<Employee>()).first)
        ann.salary = 2
        #expect(throws: LogbookError.pastStateIsReadOnly(token: token)) { try past.save() }
        #expect(throws: LogbookError.pastStateIsReadOnly(token: token)) {
            try past.delete(model: Employee.self)
        }
        #expect(throws: LogbookError.pastStateIsReadOnly(token: token)) {
            try past.update(model: Employee.self) { $0.salary = 3 }
        }
        #expect(try container.mainContext.fetch(FetchDescriptor<Employee>()).map(\.salary) == [1])
    }

    @Test func batchOperationsAndDeleteRulesAreSaves() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Team", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription(
                        "members", destination: "Member", toMany: true, inverse: "team",
                        deleteRule: .nullify)
                ]),
            Entity(
                name: "Member",
                attributes: [
                    AttributeDescription("name", .string), AttributeDescription("level", .integer),
                ],
                relationships: [RelationshipDescription("team", destination: "Team")]),
        ])
        let container = try fixture.open(schema: schema)
        let context = container.mainContext
        context.author = "setup"
        let team = try context.insert(entity: "Team", values: ["name": "Red"])
        for i in 0..<3 {
            let member = try context.insert(
                entity: "Member", values: ["name": "m\(i)", "level": i])
            member["team"] = team
        }
        try context.save()
        let afterSetup = try container.currentHistoryToken
        context.author = "batch"
        #expect(
            try context.update(entity: "Member", where: "level >= %@", 1, set: ["level": 9]) == 2)
        #expect(try context.delete(entity: "Team") == 1)
        let transactions = try container.history(after: afterSetup)
        #expect(transactions.count == 2)
        #expect(transactions.allSatisfy { $0.author == "batch" })
        let update = transactions[0]
        #expect(update.updated.map(\.description).sorted() == ["Member/2", "Member/3"])
        #expect(update.changes.allSatisfy { $0.updatedAttributes == ["level"] })
        let delete = transactions[1]
        #expect(delete.deleted.map(\.description) == ["Team/1"])
        // The nullify rule rewrote every member: an update of its to-one relationship.
        #expect(delete.updated.map(\.description).sorted() == ["Member/1", "Member/2", "Member/3"])
        #expect(
            delete.changes.filter { $0.kind == .update }.allSatisfy {
                $0.updatedAttributes == ["team"]
            })
        // The state before the delete still has the team and its members.
        let before = try container.context(asOf: update.token)
        let teams = try before.fetch(entity: "Team")
        #expect(teams.count == 1)
        let members = try before.fetch(entity: "Member", sortBy: "name", ascending: true)
        #expect(members.map { $0["level"] as? Int64 } == [0, 9, 9])
        try container.close()
    }

    @Test func retentionBySavesSurvivesCompactionAndReopening() throws {
        let seed = testSeed("container retention")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try ModelContainer(
            for: [Employee.self], at: fixture.url, options: Self.options(segmentSize: 2048))
        #expect(try container.historyRetention == .untilCompaction)
        try container.setHistoryRetention(.saves(10))
        #expect(try container.historyRetention == .saves(10))
        var model = Model()
        try Self.randomSaves(150, in: container, model: &model, rng: &rng)
        let before = try container.store.stats()
        try container.store.compact()
        #expect(try container.store.stats().fileBytes < before.fileBytes)
        for reopen in [false, true] {
            if reopen {
                try container.close()
                container = try ModelContainer(
                    for: [Employee.self], at: fixture.url, options: Self.options(segmentSize: 2048))
                #expect(try container.historyRetention == .saves(10))
            }
            let oldest = try container.oldestHistoryToken
            let transactions = try container.history(after: oldest)
            // At least the last ten saves, each as it was made, and the states between them.
            #expect(transactions.count >= 10, "seed \(seed)")
            #expect(transactions.count < model.saves.count, "seed \(seed)")
            let saves = model.saves.suffix(transactions.count)
            for (transaction, save) in zip(transactions, saves) {
                #expect(Self.changes(of: transaction) == save.changes, "seed \(seed)")
                #expect(
                    Self.same(
                        try Self.state(of: container.context(asOf: transaction.token)), save.state),
                    "seed \(seed)")
            }
            // Older history is gone, and the error says from where it is available.
            let older = HistoryToken(
                storeIdentifier: oldest.storeIdentifier, sequence: oldest.sequence - 1)
            #expect(throws: LogbookError.historyUnavailable(requested: older, oldest: oldest)) {
                try container.history(after: older)
            }
            #expect(throws: LogbookError.historyUnavailable(requested: older, oldest: oldest)) {
                try container.context(asOf: older)
            }
        }
        try container.close()
    }

    @Test func retentionByDaysKeepsTheSavesOfThatPeriod() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try ModelContainer(
            for: [Employee.self], at: fixture.url, options: Self.options(segmentSize: 1024))
        let context = container.mainContext
        for i in 0..<40 {
            context.insert(Employee(name: "old \(i)", designation: "Engineer", salary: Int64(i)))
            try context.save()
        }
        let cut = try container.currentHistoryToken
        // Awaited, not slept: the main actor, which runs every @MainActor test, stays free.
        try await Task.sleep(for: .seconds(1.5))
        for i in 0..<40 {
            context.insert(Employee(name: "new \(i)", designation: "Engineer", salary: Int64(i)))
            try context.save()
        }
        // One second: only the newer saves are kept.
        try container.setHistoryRetention(.days(1.0 / 86_400))
        try container.store.compact()
        let oldest = try container.oldestHistoryToken
        #expect(oldest.sequence > 0)
        #expect(oldest <= cut)
        let kept = try container.history(after: oldest)
        #expect(kept.suffix(40).allSatisfy { $0.inserted.first.map { _ in true } ?? false })
        #expect(kept.count >= 40 && kept.count < 80)
        try container.close()
    }

    @Test func tokensAreCheckedAndRoundTrip() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let other = LogbookFixture()
        defer { other.remove() }
        let container = try fixture.open()
        container.mainContext.insert(Employee(name: "Ann"))
        try container.mainContext.save()
        let token = try container.currentHistoryToken
        let elsewhere = try other.open().currentHistoryToken
        #expect(elsewhere.storeIdentifier != token.storeIdentifier)
        #expect(throws: LogbookError.self) { try container.history(after: elsewhere) }
        do {
            _ = try container.history(after: elsewhere)
        } catch LogbookError.invalidHistoryToken(let text, let reason) {
            #expect(text == elsewhere.description)
            #expect(reason.contains("another store"))
        }
        let future = HistoryToken(
            storeIdentifier: token.storeIdentifier, sequence: token.sequence + 5)
        do {
            _ = try container.context(asOf: future)
            Issue.record("a future token was taken")
        } catch LogbookError.invalidHistoryToken(_, let reason) {
            #expect(reason.contains("ahead"))
        }
        // String and Codable forms survive a restart.
        #expect(HistoryToken(token.description) == token)
        #expect(HistoryToken("not a token") == nil)
        let json = try JSONEncoder().encode(token)
        #expect(try JSONDecoder().decode(HistoryToken.self, from: json) == token)
        #expect(String(decoding: json, as: UTF8.self).contains("\"sequence\""))
        try container.close()
        let reopened = try fixture.open()
        #expect(try reopened.history(after: token).isEmpty)
        #expect(try reopened.currentHistoryToken.storeIdentifier == token.storeIdentifier)
    }

    @Test func aStoreFromBeforeHistoryStartsItsHistoryWhenOpened() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        // A store written without history: objects and counters only, through the engine.
        try fixture.open().close()
        let store = try LogStore(path: fixture.url.path)
        try store.delete(Array("storeIdentifier".utf8), in: "logbook.meta")
        try store.delete(Array("historySince".utf8), in: "logbook.meta")
        try store.close()
        var readOnly = LogStoreOptions()
        readOnly.readOnly = true
        let reader = try ModelContainer(for: [Employee.self], at: fixture.url, options: readOnly)
        #expect(throws: LogbookError.historyNotRecorded(path: fixture.url.path)) {
            try reader.history()
        }
        try reader.close()
        let container = try fixture.open()
        let since = try container.oldestHistoryToken
        #expect(since.sequence > 0)
        container.mainContext.insert(Employee(name: "Bo"))
        try container.mainContext.save()
        #expect(try container.history().map(\.inserted.count) == [1])
        try container.close()
    }
}
