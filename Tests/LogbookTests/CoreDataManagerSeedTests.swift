import Foundation
import Logbook
import TestSupport
import Testing

/// The CoreDataManager seed's flows, dynamic style: entities by name, values by key.
@MainActor @Suite struct CoreDataManagerSeedTests {
    static let people = Schema([
        Entity(
            name: "People",
            attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("sex", .string, defaultValue: .string("")),
                AttributeDescription("age", .integer, defaultValue: .integer(0)),
            ])
    ])

    @Test func dictionaryInsertThenSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        let kevin = try context.insert(entity: "People", values: ["name": "Kevin"])
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        let fetched = try ModelContext(container).fetch(entity: "People")
        #expect(fetched.count == 1)
        #expect(fetched.first?["name"] as? String == "Kevin")
        #expect(fetched.first?["age"] as? Int64 == 0)
        #expect(fetched.first?.persistentModelID == kevin.persistentModelID)
    }

    @Test func closureInsertThenSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        try context.insert(entity: "People") { object in
            try object.setValue("Tom", forKey: "name")
            object["age"] = 18
        }
        try context.save()
        let tom = try #require(try ModelContext(container).fetch(entity: "People").first)
        #expect(try tom.value(forKey: "name") as? String == "Tom")
        #expect(try tom.value(forKey: "age") as? Int64 == 18)
    }

    @Test func queryWithPredicateAndSortKeyAscendingAndDescending() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        for (name, sex, age) in [
            ("Ann", "Woman", 30), ("Bob", "Man", 25), ("Cid", "Man", 40), ("Dan", "Man", 18),
        ] {
            try context.insert(entity: "People", values: ["name": name, "sex": sex, "age": age])
        }
        try context.save()
        let ascending = try context.fetch(
            entity: "People", where: "sex = %@", "Man", sortBy: "age", ascending: true)
        #expect(ascending.compactMap { $0["name"] as? String } == ["Dan", "Bob", "Cid"])
        let descending = try context.fetch(
            entity: "People", where: "sex = %@", "Man", sortBy: "age", ascending: false)
        #expect(descending.compactMap { $0["name"] as? String } == ["Cid", "Bob", "Dan"])
    }

    @Test func updateFetchedObjectThenSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        try context.insert(entity: "People", values: ["name": "Kevin", "age": 20])
        try context.save()
        let people = try context.fetch(entity: "People")
        people[0]["name"] = "Tom"
        people[0]["age"] = 18
        #expect(context.changedModels.count == 1)
        try context.save()
        let again = try ModelContext(container).fetch(entity: "People")
        #expect(again.first?["name"] as? String == "Tom")
        #expect(again.first?["age"] as? Int64 == 18)
    }

    @Test func deleteThenSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        try context.insert(entity: "People", values: ["name": "Kevin"])
        try context.insert(entity: "People", values: ["name": "Tom"])
        try context.save()
        let people = try context.fetch(entity: "People", sortBy: "name")
        context.delete(people[0])
        try context.save()
        #expect(
            try ModelContext(container).fetch(entity: "People").compactMap { $0["name"] as? String }
                == ["Tom"])
    }

    @Test func unknownKeyAndWrongTypeThrowNamingEntityAndKey() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        #expect(throws: LogbookError.unknownAttribute(entity: "People", attribute: "height")) {
            try context.insert(entity: "People", values: ["name": "Kevin", "height": 180])
        }
        #expect(!context.hasChanges, "a failed dictionary insert inserts nothing")
        let kevin = try context.insert(entity: "People", values: ["name": "Kevin"])
        #expect(
            throws: LogbookError.typeMismatch(
                entity: "People", attribute: "age", expected: "Int64", found: "String")
        ) {
            try kevin.setValue("ten", forKey: "age")
        }
        #expect(throws: LogbookError.unknownEntity("Robot")) {
            try context.insert(entity: "Robot", values: [:])
        }
    }

    @Test func failedSubscriptWriteIsThrownBySave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.people)
        let context = container.mainContext
        let kevin = try context.insert(entity: "People", values: ["name": "Kevin"])
        kevin["age"] = "old"
        #expect(
            throws: LogbookError.typeMismatch(
                entity: "People", attribute: "age", expected: "Int64", found: "String")
        ) {
            try context.save()
        }
    }

    @Test func dynamicAccessWorksOnTypedModels() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        let object = try context.insert(
            entity: "Employee", values: ["name": "Kevin", "salary": 10])
        let kevin = try #require(object as? Employee)
        #expect(kevin.salary == 10)
        kevin["salary"] = 20
        #expect(kevin.salary == 20)
        try context.save()
        let rows = try context.fetch(
            entity: "Employee", where: "salary > %@", 5, sortBy: "name", ascending: true)
        #expect(rows.count == 1)
        #expect(rows.first === kevin)
    }
}
