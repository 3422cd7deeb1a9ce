import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Validation at save, and the rule that a failed save leaves the store untouched and the
/// context's changes pending.
@MainActor @Suite struct SaveValidationTests {
    static let people = Schema([
        Entity(
            name: "People",
            attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("email", .string, optional: true, unique: true),
            ])
    ])

    @Test func missingRequiredValueNamesEntityAttributeAndObject() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        let nameless = try context.insert(entity: "People", values: ["email": "x@example.com"])
        let id = nameless.persistentModelID
        #expect(
            throws: LogbookError.missingValue(
                entity: "People", attribute: "name", object: id.description)
        ) {
            try context.save()
        }
        #expect(context.hasChanges)
        #expect(try container.store.count(in: "People") == 0)
        nameless["name"] = "Kevin"
        try context.save()
        #expect(try container.store.count(in: "People") == 1)
    }

    @Test func settingNilOnARequiredAttributeOfAClassThrows() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let ann = Employee(name: "Ann")
        container.mainContext.insert(ann)
        #expect(
            throws: LogbookError.typeMismatch(
                entity: "Employee", attribute: "name", expected: "String", found: "nil")
        ) {
            try ann.setValue(nil, forKey: "name")
        }
    }

    @Test func uniqueClashAmongPendingObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        let first = try context.insert(
            entity: "People", values: ["name": "A", "email": "same@example.com"])
        let second = try context.insert(
            entity: "People", values: ["name": "B", "email": "same@example.com"])
        #expect(
            throws: LogbookError.uniqueConstraint(
                entity: "People", attribute: "email", value: "\"same@example.com\"",
                object: second.persistentModelID.description,
                existing: first.persistentModelID.description)
        ) { try context.save() }
        #expect(try container.store.count(in: "People") == 0)
    }

    @Test func uniqueClashWithAStoredObject() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Contact.self])
        let context = container.mainContext
        context.insert(Contact(email: "ann@example.com"))
        try context.save()
        context.insert(Contact(email: "ann@example.com"))
        #expect(throws: LogbookError.self) { try context.save() }
        #expect(context.insertedModels.count == 1)
        #expect(try container.store.count(in: "Contact") == 1)
    }

    @Test func changingAUniqueValueToItsOwnValueIsFine() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Contact.self])
        let context = container.mainContext
        let ann = Contact(email: "ann@example.com")
        context.insert(ann)
        try context.save()
        ann.email = "ann@example.com"
        ann.age = 3
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Contact>()).first?.age == 3)
    }

    @Test func failedWriteLeavesStoreUntouchedAndContextIntact() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let faults = FaultInjectingFileSystem()
        var options = LogStoreOptions()
        options.fileSystem = faults
        do {
            let container = try ModelContainer(
                for: [Employee.self], at: fixture.url, options: options)
            // Not the main context: it would save what is pending at close.
            let context = ModelContext(container)
            context.insert(Employee(name: "Ann", salary: 100))
            try context.save()
            let ann = try #require(try context.fetch(FetchDescriptor<Employee>()).first)
            ann.salary = 200
            let bob = Employee(name: "Bob")
            context.insert(bob)
            faults.inject(.error(EIO), on: "write", times: Int.max)
            #expect(throws: LogbookError.self) { try context.save() }
            #expect(context.hasChanges)
            #expect(context.insertedModels.count == 1)
            #expect(context.changedModels.count == 1)
            #expect(ann.salary == 200)
            faults.heal()
            _ = try? container.close()
        }
        let reopened = try fixture.open()
        let stored = try reopened.mainContext.fetch(FetchDescriptor<Employee>())
        #expect(stored.map(\.name) == ["Ann"])
        #expect(stored.map(\.salary) == [100])
    }
}
