import Foundation
import Logbook
import TestSupport
import Testing

/// Unique constraints answered by their indexes: clashes within one context, across two
/// contexts and against the store, single and compound, under both policies.
@MainActor @Suite struct UniqueConstraintTests {
    @Test func aClashWithAStoredObjectNamesBothObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Staff.self, Team.self])
        let context = container.mainContext
        let ann = Staff("Ann", email: "ann@example.com")
        context.insert(ann)
        try context.save()
        let copy = Staff("Ann2", email: "ann@example.com")
        context.insert(copy)
        #expect(
            throws: LogbookError.uniqueConstraint(
                entity: "Staff", attribute: "email", value: "\"ann@example.com\"",
                object: copy.persistentModelID.description,
                existing: ann.persistentModelID.description)
        ) { try context.save() }
        #expect(try container.store.count(in: "Staff") == 1)
        #expect(context.insertedModels.count == 1)
        // A change to a free value saves; a change back to a taken one does not.
        copy.email = "copy@example.com"
        try context.save()
        copy.email = "ann@example.com"
        #expect(throws: LogbookError.self) { try context.save() }
        context.rollback()
        // Two objects swapping their values in one save is no clash.
        ann.email = "copy@example.com"
        copy.email = "ann@example.com"
        try context.save()
        // A deleted object's value is free in the same save.
        context.delete(ann)
        context.insert(Staff("Cy", email: "copy@example.com"))
        try context.save()
        #expect(try container.indexProblems() == [])
    }

    @Test func aClashAcrossTwoContextsIsFoundAtTheSecondSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Staff.self, Team.self])
        let first = ModelContext(container)
        let second = ModelContext(container)
        first.insert(Staff("A", email: "same@example.com"))
        let late = Staff("B", email: "same@example.com")
        second.insert(late)
        try first.save()
        do {
            try second.save()
            Issue.record("the second save should clash")
        } catch LogbookError.uniqueConstraint(_, let attribute, _, let object, let existing) {
            #expect(attribute == "email")
            #expect(object == late.persistentModelID.description)
            #expect(existing.hasPrefix("Staff/"))
        }
        #expect(try container.store.count(in: "Staff") == 1)
    }

    @Test func nilNeverClashes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Tag",
                attributes: [
                    AttributeDescription("code", .string, optional: true, unique: true),
                    AttributeDescription("kind", .integer, optional: true),
                ], indexes: [IndexDescription(["code", "kind"], unique: true)])
        ])
        let container = try fixture.open(schema: schema)
        let context = container.mainContext
        for _ in 0..<3 { try context.insert(entity: "Tag", values: ["kind": 1]) }
        try context.save()
        try context.insert(entity: "Tag", values: ["code": "a", "kind": 1])
        try context.insert(entity: "Tag", values: ["code": "b", "kind": 1])
        try context.save()
        try context.insert(entity: "Tag", values: ["code": "a", "kind": 2])
        #expect(throws: LogbookError.self) { try context.save() }
    }

    @Test func aCompoundConstraintClashesOnlyOnAllItsValues() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Member",
                attributes: [
                    AttributeDescription("first", .string), AttributeDescription("last", .string),
                ], indexes: [IndexDescription(["first", "last"], unique: true)])
        ])
        let container = try fixture.open(schema: schema)
        let context = container.mainContext
        try context.insert(entity: "Member", values: ["first": "Ann", "last": "Lee"])
        try context.insert(entity: "Member", values: ["first": "Ann", "last": "Kay"])
        try context.insert(entity: "Member", values: ["first": "Bo", "last": "Lee"])
        try context.save()
        let clash = try context.insert(entity: "Member", values: ["first": "Ann", "last": "Lee"])
        do {
            try context.save()
            Issue.record("a repeated (first, last) should clash")
        } catch LogbookError.uniqueConstraint(_, let attribute, let value, let object, let existing)
        {
            #expect(attribute == "(first, last)")
            #expect(value == "(\"Ann\", \"Lee\")")
            #expect(object == clash.persistentModelID.description)
            #expect(existing == "Member/1")
        }
        // The batch update checks the constraint too.
        context.rollback()
        #expect(throws: LogbookError.self) {
            try context.update(entity: "Member", where: "first == 'Bo'", set: ["first": "Ann"])
        }
        #expect(
            try context.update(entity: "Member", where: "first == 'Bo'", set: ["first": "Cy"]) == 1)
        #expect(try container.indexProblems() == [])
    }

    @Test func upsertUpdatesTheStoredObjectWhichKeepsItsIdentifier() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Account.self, Member.self])
        let context = container.mainContext
        let stored = Account("ann@example.com", name: "Ann", visits: 1)
        context.insert(stored)
        try context.save()
        let id = stored.persistentModelID
        // In another context, which does not hold the stored object: the insert becomes it.
        let other = ModelContext(container)
        let again = Account("ann@example.com", name: "Ann Lee", visits: 2)
        other.insert(again)
        try other.save()
        #expect(again.persistentModelID == id)
        #expect(try container.store.count(in: "Account") == 1)
        let fresh = ModelContext(container)
        let read = try #require(try fresh.model(for: id, as: Account.self))
        #expect(read.name == "Ann Lee" && read.visits == 2)
        // In a context that holds it: that object takes the values; the insert leaves.
        let holder = ModelContext(container)
        let held = try #require(try holder.model(for: id, as: Account.self))
        let third = Account("ann@example.com", name: "A. Lee", visits: 3)
        holder.insert(third)
        try holder.save()
        #expect(held.name == "A. Lee" && held.visits == 3)
        #expect(third.modelContext == nil)
        #expect(held.persistentModelID == id)
        #expect(try container.store.count(in: "Account") == 1)
        // Two inserts of one value in a save: the later values win, one object is stored.
        context.insert(Account("bo@example.com", name: "Bo", visits: 1))
        context.insert(Account("bo@example.com", name: "Bo Kay", visits: 5))
        try context.save()
        let bos = try ModelContext(container).fetch(
            FetchDescriptor<Account>(predicate: #Predicate { $0.email == "bo@example.com" }))
        #expect(bos.map(\.name) == ["Bo Kay"])
        #expect(try container.indexProblems() == [])
    }

    @Test func upsertOnACompoundConstraint() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Account.self, Member.self])
        let context = container.mainContext
        context.insert(Member("Ann", "Lee", age: 30))
        context.insert(Member("Ann", "Kay", age: 40))
        try context.save()
        let update = Member("Ann", "Lee", age: 31)
        let other = ModelContext(container)
        other.insert(update)
        try other.save()
        let people = try ModelContext(container).fetch(
            FetchDescriptor<Member>(sortBy: [SortDescriptor(\.last)]))
        #expect(people.map { "\($0.first) \($0.last) \($0.age)" } == ["Ann Kay 40", "Ann Lee 31"])
        // A change (not an insert) that clashes still throws under upsert.
        let kay = try #require(
            try context.fetch(FetchDescriptor<Member>(predicate: #Predicate { $0.last == "Kay" }))
                .first)
        kay.last = "Lee"
        #expect(throws: LogbookError.self) { try context.save() }
    }
}
