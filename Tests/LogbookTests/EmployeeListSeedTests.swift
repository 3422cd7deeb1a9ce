import Foundation
import Logbook
import TestSupport
import Testing

/// The Employee list app of the seed: add employees, list them, update a salary, delete one —
/// across fresh contexts and reopened stores.
@MainActor @Suite struct EmployeeListSeedTests {
    @Test func addThreeEmployeesAndListThem() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        context.insert(Employee(name: "Ann", designation: "Engineer", salary: 2_000_000))
        context.insert(Employee(name: "Bob", designation: "Designer", salary: 1_500_000))
        context.insert(Employee(name: "Cid", designation: "Manager", salary: 2_500_000))
        try context.save()

        let listed = try ModelContext(container).fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)]))
        #expect(listed.map(\.name) == ["Ann", "Bob", "Cid"])
        #expect(listed.map(\.designation) == ["Engineer", "Designer", "Manager"])
        #expect(listed.map(\.salary) == [2_000_000, 1_500_000, 2_500_000])
    }

    @Test func updatedSalaryIsSeenInAFreshContextAndAfterReopening() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open()
            let context = container.mainContext
            context.insert(Employee(name: "Ann", designation: "Engineer", salary: 2_000_000))
            try context.save()

            let ann = try #require(try context.fetch(FetchDescriptor<Employee>()).first)
            ann.salary = 3_000_000
            #expect(context.hasChanges)
            try context.save()
            #expect(!context.hasChanges)

            let fresh = ModelContext(container)
            #expect(try fresh.fetch(FetchDescriptor<Employee>()).map(\.salary) == [3_000_000])
            try container.close()
        }
        let reopened = try fixture.open()
        let employees = try reopened.mainContext.fetch(FetchDescriptor<Employee>())
        #expect(employees.map(\.salary) == [3_000_000])
        #expect(employees.map(\.name) == ["Ann"])
    }

    @Test func deletedEmployeeIsGoneAfterReopening() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open()
            let context = container.mainContext
            for name in ["Ann", "Bob", "Cid"] { context.insert(Employee(name: name)) }
            try context.save()
            let bob = try #require(
                try context.fetch(
                    FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Bob" })
                ).first)
            context.delete(bob)
            try context.save()
            try container.close()
        }
        let reopened = try fixture.open()
        let names = try reopened.mainContext.fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])
        ).map(\.name)
        #expect(names == ["Ann", "Cid"])
    }

    @Test func newEmployeesAfterReopenGetNewIdentifiers() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var first: PersistentIdentifier?
        do {
            let container = try fixture.open()
            let ann = Employee(name: "Ann")
            container.mainContext.insert(ann)
            first = ann.persistentModelID
            try container.mainContext.save()
            try container.close()
        }
        let reopened = try fixture.open()
        let bob = Employee(name: "Bob")
        reopened.mainContext.insert(bob)
        try reopened.mainContext.save()
        #expect(bob.persistentModelID != first)
        #expect(try reopened.mainContext.fetchCount(FetchDescriptor<Employee>()) == 2)
    }
}
