import Foundation
import Logbook
import TestSupport
import Testing

/// `FetchDescriptor.propertiesToFetch` (issue 14): a fetch that decodes only the named
/// attributes; the others fault in on first access from the store, and saving such an object
/// writes its whole record.
@MainActor @Suite struct PartialFetchTests {
    /// Three Employees saved: Ann (Engineer, 100), Bob (Manager, 200), Cy (Engineer, 300).
    private func seeded(_ fixture: LogbookFixture) throws -> ModelContainer {
        let container = try fixture.open()
        for (name, designation, salary) in [
            ("Ann", "Engineer", 100), ("Bob", "Manager", 200), ("Cy", "Engineer", 300),
        ] {
            container.mainContext.insert(
                Employee(name: name, designation: designation, salary: Int64(salary)))
        }
        try container.mainContext.save()
        return container
    }

    private func salariesOnly() -> FetchDescriptor<Employee> {
        var descriptor = FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary)])
        descriptor.propertiesToFetch = [\.salary]
        return descriptor
    }

    @Test func unfetchedAttributesFaultInWithTheirStoredValues() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let employees = try context.fetch(salariesOnly())
        #expect(employees.map(\.salary) == [100, 200, 300])
        // Not decoded by the fetch: the reflection says so, and reads nothing.
        var dumped = ""
        dump(employees[0], to: &dumped)
        #expect(dumped.contains("<not fetched>"))
        #expect(employees.map(\.name) == ["Ann", "Bob", "Cy"])
        #expect(employees.map(\.designation) == ["Engineer", "Manager", "Engineer"])
        // Faulted in: nothing is pending.
        #expect(!context.hasChanges)
        dumped = ""
        dump(employees[0], to: &dumped)
        #expect(!dumped.contains("<not fetched>"))
    }

    @Test func aPredicateAndSortReadAttributesThatAreNotFetched() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        var descriptor = FetchDescriptor<Employee>(
            predicate: #Predicate { $0.designation == "Engineer" },
            sortBy: [SortDescriptor(\.name, order: .reverse)])
        descriptor.propertiesToFetch = [\.salary]
        let employees = try ModelContext(container).fetch(descriptor)
        #expect(employees.map(\.salary) == [300, 100])
        #expect(employees.map(\.name) == ["Cy", "Ann"])
    }

    @Test func savingAPartiallyFetchedObjectKeepsTheUnfetchedAttributes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let employees = try context.fetch(salariesOnly())
        // A change to a fetched attribute, with the others never read here.
        employees[1].salary = 250
        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<Employee>())
        #expect(stored.map(\.name) == ["Ann", "Bob", "Cy"])
        #expect(stored.map(\.designation) == ["Engineer", "Manager", "Engineer"])
        #expect(stored.map(\.salary) == [100, 250, 300])
        // A change to an unfetched attribute: rollback restores its stored value.
        employees[2].name = "Cyrus"
        context.rollback()
        #expect(employees[2].name == "Cy")
    }

    @Test func aKeyValueReadFaultsTheObjectIn() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let employees = try ModelContext(container).fetch(salariesOnly())
        #expect(try employees[0].value(forKey: "name") as? String == "Ann")
    }

    @Test func anObjectSavedByAnotherContextSinceFaultsInItsNewerState() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let employees = try context.fetch(salariesOnly())
        let other = ModelContext(container)
        let bob = try #require(
            try other.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Bob" }))
                .first)
        bob.name = "Robert"
        bob.salary = 220
        try other.save()
        // One stored state, the newer one: never the old salary beside the new name.
        #expect(employees[1].name == "Robert")
        #expect(employees[1].salary == 220)
        // And it saves without a conflict: it holds the version it now shows.
        employees[1].designation = "Director"
        try context.save()
        let stored = try #require(
            try ModelContext(container).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.salary == 220 })
            ).first)
        #expect(stored.name == "Robert")
        #expect(stored.designation == "Director")
    }

    @Test func anObjectDeletedBeforeItsFaultFiresBecomesDeleted() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let employees = try context.fetch(salariesOnly())
        let other = ModelContext(container)
        try other.delete(model: Employee.self, where: #Predicate { $0.name == "Ann" })
        // The typed report, and then the object is deleted here too.
        #expect(throws: LogbookError.self) { try context.fulfillFault(of: employees[0]) }
        do {
            try context.fulfillFault(of: employees[0])
        } catch {
            Issue.record("a second fault of a deleted object throws nothing: it is faulted")
        }
        #expect(employees[0].isDeleted)
        // Its unfetched attributes read as declared (Core Data's inaccessible faults).
        #expect(employees[0].name == "")
        #expect(employees[0].salary == 100)
        // A read that faults (no throwing API) marks it deleted the same way.
        let bob = employees[1]
        try other.delete(model: Employee.self, where: #Predicate { $0.name == "Bob" })
        #expect(bob.name == "")
        #expect(bob.isDeleted)
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == 1)
        // Nothing of this is pending: the context saves nothing and throws nothing.
        #expect(!context.hasChanges)
        try context.save()
    }

    @Test func theErrorOfAFaultOfADeletedObjectNamesIt() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let ann = try #require(try context.fetch(salariesOnly()).first)
        let id = ann.persistentModelID
        try ModelContext(container).delete(model: Employee.self)
        #expect(throws: LogbookError.objectNotFound(id.description)) {
            try context.fulfillFault(of: ann)
        }
    }

    @Test func aRegisteredObjectIsReturnedWhole() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let whole = try context.fetch(FetchDescriptor<Employee>())
        let partial = try context.fetch(salariesOnly())
        #expect(partial.map { ObjectIdentifier($0) } == whole.map { ObjectIdentifier($0) })
        var dumped = ""
        dump(partial[0], to: &dumped)
        #expect(!dumped.contains("<not fetched>"))
    }

    @Test func aPartialObjectCanBeDeletedAndTheDeleteSaved() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let employees = try context.fetch(salariesOnly())
        context.delete(employees[0])
        try context.save()
        #expect(
            try ModelContext(container).fetch(FetchDescriptor<Employee>()).map(\.name) == [
                "Bob", "Cy",
            ])
    }
}
