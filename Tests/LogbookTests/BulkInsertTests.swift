import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Bulk inserts in bounded memory (issue 12): inserted objects the app no longer holds are
/// encoded for the next save and released, yet every pending-insert semantic still holds.
@Suite struct BulkInsertTests {
    static let count = 10_000

    private func insertDropped(
        _ context: ModelContext, _ count: Int = Self.count, from start: Int = 0
    ) {
        for i in start..<start + count {
            context.insert(
                Employee(
                    name: "E\(i)", designation: i % 2 == 0 ? "Engineer" : "Manager",
                    salary: Int64(i)))
        }
    }

    @Test func valuesByPositionMustMatchTheAttributesOneForOne() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open())
        #expect(throws: LogbookError.valueCount(entity: "Employee", expected: 3, found: 1)) {
            try context.insert(entity: "Employee", attributeValues: [.string("Ann")])
        }
        #expect(!context.hasChanges)
    }

    @Test func droppedInsertsAreReleasedAndAllSaved() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        weak var first: Employee?
        do {
            let employee = Employee(name: "first", salary: -1)
            first = employee
            context.insert(employee)
        }
        insertDropped(context)
        // The app let go of the first object: the context did too, before the save.
        #expect(first == nil)
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        try container.close()
        let reopened = try fixture.open()
        let all = try ModelContext(reopened).fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary)]))
        #expect(all.count == Self.count + 1)
        #expect(all.first?.name == "first")
        #expect(all.last?.name == "E\(Self.count - 1)")
        #expect(all.map(\.salary) == [-1] + (0..<Int64(Self.count)).map { $0 })
    }

    /// A loop of inserts the app lets go of writes its records in the order it inserted them
    /// (primary-key order): the object being inserted when a staging pass runs is still the
    /// app's, and was once left for the save, after every object inserted later; a fetch then
    /// sorted what it read back into key order.
    @Test func droppedInsertsLieInTheLogInInsertionOrder() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        insertDropped(context)
        try context.save()
        try container.close()
        let store = try LogStore(path: fixture.url.path)
        defer { try? store.close() }
        var keys: [UInt64] = []
        // An object's key is its primary key, 8 bytes big-endian (FORMAT.md Part 2).
        try store.forEach(in: "Employee") { key, _ in
            keys.append(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
        }
        #expect(keys.count == Self.count)
        // The keys that follow a greater one (none when every record lies in order).
        #expect(zip(keys, keys.dropFirst()).filter { $0 > $1 }.map(\.1) == [])
        #expect(keys.first == 1 && keys.last == UInt64(Self.count))
    }

    @Test func stagedInsertsTakePartInFetchesAndLookups() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        insertDropped(context)
        // A fetch that includes pending changes sees them.
        let engineers = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Engineer" },
                sortBy: [SortDescriptor(\.salary, order: .reverse)]))
        #expect(engineers.count == Self.count / 2)
        #expect(engineers.first?.salary == Int64(Self.count - 2))
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == Self.count)
        // …one that does not, does not.
        var stored = FetchDescriptor<Employee>()
        stored.includePendingChanges = false
        #expect(try context.fetchCount(stored) == 0)
        // Lookups by identifier find them; editing one is saved.
        let id = PersistentIdentifier(entityName: "Employee", primaryKey: 7)
        let seventh = try #require(try context.model(for: id, as: Employee.self))
        #expect(seventh.name == "E6")
        seventh.salary = 777
        insertDropped(context, Self.count, from: Self.count)
        #expect(context.insertedModels.count == 2 * Self.count)
        try context.save()
        let check = ModelContext(container)
        #expect(try check.fetchCount(FetchDescriptor<Employee>()) == 2 * Self.count)
        #expect(try check.model(for: id, as: Employee.self)?.salary == 777)
    }

    @Test func heldObjectsStayLiveAndTheirLaterEditsAreSaved() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        var held: [Employee] = []
        for i in 0..<Self.count {
            let employee = Employee(name: "E\(i)", salary: Int64(i))
            context.insert(employee)
            if i % 100 == 0 { held.append(employee) }
        }
        for employee in held { employee.salary = -employee.salary }
        try context.save()
        let check = ModelContext(container)
        let negative = try check.fetchCount(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.salary < 0 }))
        #expect(negative == held.count - 1)  // -0 is 0
        #expect(held.allSatisfy { $0.modelContext === context && !$0.isDeleted })
    }

    @Test func rollbackDropsStagedInserts() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        insertDropped(context)
        context.rollback()
        #expect(!context.hasChanges)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 0)
        insertDropped(context, 10)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 10)
    }

    @Test func aFailedSaveKeepsStagedInsertsForTheNextOne() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Note",
                attributes: [
                    AttributeDescription("text", .string),
                    AttributeDescription("rank", .integer, defaultValue: .integer(0)),
                ])
        ])
        let container = try fixture.open(schema: schema)
        let context = ModelContext(container)
        for i in 0..<Self.count { try context.insert(entity: "Note", values: ["text": "n\(i)"]) }
        // A note without its required text is kept as an object, and fails the save.
        let broken = try context.insert(entity: "Note", values: ["rank": 1])
        #expect(throws: LogbookError.self) { try context.save() }
        #expect(try container.store.count(in: "Note") == 0)
        #expect(context.hasChanges)
        try broken.setValue("fixed", forKey: "text")
        try context.save()
        #expect(try container.store.count(in: "Note") == Self.count + 1)
        let texts = try ModelContext(container).fetch(entity: "Note", where: "rank == 1")
        #expect(texts.map { $0["text"] as? String } == ["fixed"])
    }
}
