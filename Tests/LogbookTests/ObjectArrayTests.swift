import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Logbook

/// A fetch's `[AnyObject]` handed out as `[Model]` without a copy behaves as an array built as
/// `[Model]`: reading, mutating in place and by growing, copying on write, and releasing every
/// object exactly once.
@Suite struct ObjectArrayTests {
    private final class Counted {
        static let alive = Atomic<Int>(0)
        let value: Int
        init(_ value: Int) {
            self.value = value
            Self.alive.add(1, ordering: .relaxed)
        }
        deinit { Self.alive.subtract(1, ordering: .relaxed) }
    }

    @Test func aReinterpretedArrayIsAnOrdinaryArrayOfItsClass() {
        let before = Counted.alive.load(ordering: .relaxed)
        do {
            let objects: [AnyObject] = (0..<100).map { Counted($0) }
            var models = ObjectArray.reinterpret(objects, as: Counted.self)
            #expect(models.map(\.value) == Array(0..<100))
            let copy = models
            models[3] = Counted(-3)
            models.removeFirst()
            for i in 100..<300 { models.append(Counted(i)) }
            models.sort { $0.value > $1.value }
            #expect(copy.map(\.value) == Array(0..<100))
            #expect(models.count == 299)
            #expect(models.first?.value == 299)
            #expect(models.last?.value == -3)
            #expect(Counted.alive.load(ordering: .relaxed) - before == 301)
        }
        #expect(Counted.alive.load(ordering: .relaxed) == before)
    }

    /// The fetch a user writes returns its objects through it.
    @Test func aFetchReturnsItsObjectsAsTheModelClass() throws {
        let container = try ModelContainer(
            for: [Employee.self], configuration: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for i in 0..<50 {
            context.insert(
                Employee(
                    name: "E\(i)", designation: i % 2 == 0 ? "Engineer" : "QA", salary: Int64(i)))
        }
        try context.save()
        var found = try ModelContext(container).fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Engineer" },
                sortBy: [SortDescriptor(\.salary)]))
        #expect(found.map(\.salary) == stride(from: 0, to: 50, by: 2).map { Int64($0) })
        found.append(Employee(name: "New", designation: "Engineer", salary: 100))
        #expect(found.count == 26)
    }
}
