import Foundation
import Logbook
import TestSupport
import Testing

/// One test per rule of the Semantics article (Logbook.docc/Semantics.md): identity, pending
/// changes, saves, rollback.
@MainActor @Suite struct ContextSemanticsTests {
    private func seeded(_ fixture: LogbookFixture, _ names: [String] = ["Ann", "Bob", "Cid"]) throws
        -> ModelContainer
    {
        let container = try fixture.open()
        for (i, name) in names.enumerated() {
            container.mainContext.insert(
                Employee(name: name, designation: "Engineer", salary: Int64(i + 1) * 100))
        }
        try container.mainContext.save()
        return container
    }

    @Test func identifierIsAssignedAtInsert() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let ann = Employee(name: "Ann")
        #expect(ann.persistentModelID.isTemporary)
        container.mainContext.insert(ann)
        let id = ann.persistentModelID
        #expect(id.entityName == "Employee")
        try container.mainContext.save()
        #expect(ann.persistentModelID == id)
    }

    @Test func fetchSeesInsertedObjectsBeforeSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        let dan = Employee(name: "Dan", designation: "Engineer", salary: 50)
        context.insert(dan)
        let engineers = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" }))
        #expect(engineers.map(\.name) == ["Ann", "Bob", "Cid", "Dan"])
        #expect(engineers.last === dan)
    }

    @Test func fetchDoesNotSeeObjectsDeletedBeforeSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        let bob = try #require(
            try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Bob" }))
                .first)
        context.delete(bob)
        #expect(try context.fetch(FetchDescriptor<Employee>()).map(\.name) == ["Ann", "Cid"])
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == 2)
    }

    @Test func fetchComparesChangedValuesBeforeSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        let ann = try #require(
            try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Ann" }))
                .first)
        ann.designation = "Manager"
        let engineers = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" }))
        #expect(engineers.map(\.name) == ["Bob", "Cid"])
        let managers = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Manager" }))
        #expect(managers.first === ann)
    }

    @Test func fetchCanIgnorePendingChanges() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        context.insert(Employee(name: "Dan"))
        let bob = try #require(
            try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Bob" }))
                .first)
        context.delete(bob)
        var descriptor = FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])
        descriptor.includePendingChanges = false
        #expect(try context.fetch(descriptor).map(\.name) == ["Ann", "Bob", "Cid"])
    }

    @Test func fetchingTwiceGivesTheSameInstances() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        let first = try context.fetch(FetchDescriptor<Employee>())
        let second = try context.fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary, order: .reverse)]))
        #expect(first.count == 3)
        for employee in first { #expect(second.contains { $0 === employee }) }
        let id = first[0].persistentModelID
        #expect(try context.model(for: id, as: Employee.self) === first[0])
        #expect(context.registeredModel(for: id, as: Employee.self) === first[0])
    }

    @Test func otherContextsGetTheirOwnInstances() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let a = try ModelContext(container).fetch(FetchDescriptor<Employee>())
        let b = try ModelContext(container).fetch(FetchDescriptor<Employee>())
        #expect(a[0] !== b[0])
        #expect(a[0].persistentModelID == b[0].persistentModelID)
    }

    @Test func changeSetsAreExact() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        #expect(!context.hasChanges)
        let all = try context.fetch(FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)]))
        let dan = Employee(name: "Dan")
        context.insert(dan)
        all[0].salary += 1
        context.delete(all[1])
        #expect(context.hasChanges)
        #expect(context.insertedModels.map { $0 === dan } == [true])
        #expect(context.changedModels.map { $0 === all[0] } == [true])
        #expect(context.deletedModels.map { $0 === all[1] } == [true])
        try context.save()
        #expect(!context.hasChanges)
        #expect(
            context.insertedModels.isEmpty && context.changedModels.isEmpty
                && context.deletedModels.isEmpty)
    }

    @Test func readingWithoutWritingIsNoChange() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let all = try container.mainContext.fetch(FetchDescriptor<Employee>())
        _ = all.map(\.salary)
        #expect(!container.mainContext.hasChanges)
    }

    @Test func rollbackRestoresSavedValues() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        let ann = try #require(
            try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Ann" }))
                .first)
        ann.salary = 999
        ann.name = "Anne"
        ann.salary = 1_000
        context.rollback()
        #expect(ann.name == "Ann")
        #expect(ann.salary == 100)
        #expect(!context.hasChanges)
        try context.save()
        #expect(
            try ModelContext(container).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Ann" })
            ).first?.salary == 100)
    }

    @Test func rollbackForgetsInsertsAndRestoresDeletes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        context.insert(Employee(name: "Dan"))
        let bob = try #require(
            try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Bob" }))
                .first)
        bob.salary = 5
        context.delete(bob)
        context.rollback()
        #expect(!bob.isDeleted)
        #expect(bob.salary == 200)
        #expect(
            try context.fetch(FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])).map(
                \.name) == ["Ann", "Bob", "Cid"])
    }

    @Test func deletingANeverSavedObjectJustForgetsIt() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        let ghost = Employee(name: "Ghost")
        context.insert(ghost)
        context.delete(ghost)
        #expect(!context.hasChanges)
        #expect(context.insertedModels.isEmpty && context.deletedModels.isEmpty)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == 0)
        #expect(try container.store.count(in: "Employee") == 0)
    }

    @Test func identifiersSurviveReopening() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var saved = ""
        do {
            let container = try seeded(fixture)
            let bob = try #require(
                try container.mainContext.fetch(
                    FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Bob" })
                ).first)
            saved = bob.persistentModelID.description
            #expect(saved.hasPrefix("Employee/"))
            try container.close()
        }
        let container = try fixture.open()
        let id = try #require(PersistentIdentifier(saved))
        let bob = try #require(try container.mainContext.model(for: id, as: Employee.self))
        #expect(bob.name == "Bob")
        let json = try JSONEncoder().encode(id)
        #expect(try JSONDecoder().decode(PersistentIdentifier.self, from: json) == id)
    }

    @Test func modelForAnIdentifierThatIsGoneIsNil() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        #expect(
            try container.mainContext.model(
                for: PersistentIdentifier(entityName: "Employee", primaryKey: 999),
                as: Employee.self) == nil)
    }
}
