import Foundation
import Logbook
import TestSupport
import Testing

/// `enumerate(_:batchSize:)` and `fetch(_:batchSize:)` hold about one batch of objects (issue
/// 40: after enumerating 1,000 objects in batches of 64 the context held all 1,000, and the first
/// object passed to the block was still alive).
@MainActor @Suite struct EnumerateMemoryTests {
    private func store(_ fixture: LogbookFixture, count: Int) throws -> ModelContainer {
        let container = try fixture.open()
        let context = ModelContext(container)
        for i in 0..<count { context.insert(Employee(name: "e\(i)", salary: Int64(i))) }
        try context.save()
        return container
    }

    /// How many objects `context` has registered (its reflection's count).
    private func registered(_ context: ModelContext) -> Int {
        Mirror(reflecting: context).children.first { $0.label == "registered" }?.value as? Int ?? -1
    }

    @Test func enumerateLetsGoOfEachBatch() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try store(fixture, count: 1_000))
        weak var first: Employee?
        var seen = 0
        var most = 0
        try context.enumerate(FetchDescriptor<Employee>(), batchSize: 64) { employee in
            if seen == 0 { first = employee }
            seen += 1
            most = max(most, registered(context))
        }
        #expect(seen == 1_000)
        #expect(first == nil, "the first object is let go of")
        #expect(registered(context) == 0)
        #expect(most <= 64)
    }

    @Test func objectsTheBlockKeepsOrChangesStay() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try store(fixture, count: 300))
        var kept: [Employee] = []
        try context.enumerate(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary)]), batchSize: 16
        ) { employee in
            if employee.salary % 100 == 0 { kept.append(employee) }
            if employee.salary % 100 == 1 { employee.salary += 1_000 }
        }
        #expect(kept.map(\.salary) == [0, 100, 200])
        #expect(registered(context) == 6)
        // Uniquing holds for the kept objects; the changed ones are saved.
        let again = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.salary == 100 }))
        #expect(again.first === kept[1])
        #expect(context.hasChanges)
        try context.save()
        let raised = try ModelContext(context.container).fetchCount(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.salary > 1_000 }))
        #expect(raised == 3)
    }

    @Test func aBatchedFetchLetsGoOfTheBatchLeftBehind() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try store(fixture, count: 500))
        let results = try context.fetch(FetchDescriptor<Employee>(), batchSize: 50)
        weak var first: Employee?
        first = results[0]
        var total: Int64 = 0
        for employee in results { total += employee.salary }
        #expect(total == (0..<500).reduce(0, +))
        #expect(first == nil)
        #expect(registered(context) <= 50)
    }
}
