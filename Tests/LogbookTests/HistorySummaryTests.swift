import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// ``HistoryReader/nextSummary(keepingFirst:of:)``: every change counted, only the changes asked
/// for kept, and those exactly as ``HistoryReader/next()`` gives them.
@MainActor @Suite struct HistorySummaryTests {
    @Test func summariesCountEveryChangeAndKeepTheSameChangesAsNext() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Employee.self])
        var model = ContainerHistoryTests.Model()
        var rng = SeededGenerator(seed: testSeed("summariesCountEveryChange"))
        try ContainerHistoryTests.randomSaves(40, in: container, model: &model, rng: &rng)
        var transactions: [HistoryTransaction] = []
        let whole = try container.historyReader(values: true)
        while let transaction = try whole.next() { transactions.append(transaction) }
        #expect(transactions.count == model.saves.count)
        let reader = try container.historyReader(values: true)
        for (i, transaction) in transactions.enumerated() {
            let limit = i % 4 == 0 ? 0 : i % 4 == 1 ? 1 : i % 4 == 2 ? 3 : .max
            let summary = try #require(try reader.nextSummary(keepingFirst: limit))
            #expect(summary.token == transaction.token)
            #expect(summary.timestamp == transaction.timestamp)
            #expect(summary.author == transaction.author)
            #expect(summary.insertCount == transaction.inserted.count)
            #expect(summary.updateCount == transaction.updated.count)
            #expect(summary.deleteCount == transaction.deleted.count)
            #expect(summary.changeCount == transaction.changes.count)
            #expect(summary.entities == (transaction.changes.isEmpty ? [] : ["Employee"]))
            #expect(summary.changes == Array(transaction.changes.prefix(limit)))
        }
        #expect(try reader.nextSummary() == nil)
    }

    @Test func oneObjectsChangesAreKeptWithTheirUpdatedFields() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Employee.self])
        let context = container.mainContext
        let people = (0..<6).map { Employee(name: "E\($0)", designation: "D", salary: Int64($0)) }
        for person in people { context.insert(person) }
        try context.save()
        // One save that updates several objects, each a different field: the third object's
        // update is not the save's first, so its fields come from a later run of the record.
        people[0].salary = 100
        people[1].name = "renamed"
        people[2].designation = "Lead"
        people[2].salary = 7
        people[4].name = "x"
        try context.save()
        context.delete(people[2])
        try context.save()
        let target = people[2].persistentModelID
        let reader = try container.historyReader(values: true)
        var kept: [HistoryChange] = []
        var saves = 0
        while let summary = try reader.nextSummary(keepingFirst: 10, of: target) {
            saves += 1
            kept += summary.changes
        }
        #expect(saves == 3)
        #expect(kept.map(\.kind) == [.insert, .update, .delete])
        #expect(kept.allSatisfy { $0.identifier == target })
        #expect(kept[1].updatedAttributes == ["designation", "salary"])
        #expect(kept[1].record?.values["designation"] == .string("Lead"))
        #expect(kept[2].record == nil)
    }

    @Test func aLargeSaveIsCountedWithoutKeepingItsChanges() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Employee.self])
        let context = container.mainContext
        for i in 0..<20_000 { context.insert(Employee(name: "E\(i)")) }
        try context.save()
        let summary = try #require(try container.historyReader().nextSummary())
        #expect(summary.insertCount == 20_000)
        #expect(summary.changes.isEmpty)
    }
}
