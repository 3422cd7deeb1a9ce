import Foundation
import Logbook
import TestSupport
import Testing

/// The schema stored in the store, its versions, and lightweight migration.
@MainActor @Suite struct SchemaMigrationTests {
    static let v1 = Schema([
        Entity(
            name: "Employee",
            attributes: [
                AttributeDescription("name", .string), AttributeDescription("salary", .integer),
            ])
    ])

    private func withOneEmployee(_ fixture: LogbookFixture) throws {
        let container = try fixture.open(schema: Self.v1)
        try container.mainContext.insert(
            entity: "Employee", values: ["name": "Ann", "salary": 100])
        try container.mainContext.save()
        try container.close()
    }

    @Test func theStoreHoldsItsSchema() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let stored = try #require(try Schema.stored(in: container.store))
        #expect(stored.version == 1)
        #expect(stored.entities.map(\.name) == ["Employee"])
        #expect(
            stored.entity(named: "Employee")?.attributes.map(\.name) == [
                "name", "designation", "salary",
            ])
        #expect(
            stored.entity(named: "Employee")?.attributes.map(\.type) == [
                .string, .string, .integer,
            ])
        #expect(stored.entity(named: "Employee")?.attributes[1].isIndexed == true)
        #expect(stored.fingerprint == container.schema.fingerprint)
    }

    @Test func reopeningWithTheSameSchemaKeepsTheVersion() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        let container = try fixture.open(schema: Self.v1)
        #expect(container.schema.version == 1)
        #expect(try container.store.count(in: "logbook.schema") == 1)
    }

    @Test func openingWithoutASchemaUsesTheStoredOne() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        let container = try fixture.open(schema: nil)
        #expect(container.schema.entities.map(\.name) == ["Employee"])
        #expect(
            try container.mainContext.fetch(entity: "Employee").first?["name"] as? String == "Ann")
    }

    @Test func addingAnOptionalAttributeMigrates() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        var v2 = Self.v1.entities[0]
        v2.attributes.append(AttributeDescription("nickname", .string, optional: true))
        v2.attributes.append(AttributeDescription("level", .integer, defaultValue: .integer(1)))
        let container = try fixture.open(schema: Schema([v2]))
        #expect(container.schema.version == 2)
        let context = container.mainContext
        let ann = try #require(try context.fetch(entity: "Employee").first)
        #expect(try ann.value(forKey: "nickname") == nil)
        #expect(try ann.value(forKey: "level") as? Int64 == 1)
        #expect(try ann.value(forKey: "salary") as? Int64 == 100)
        try context.insert(
            entity: "Employee", values: ["name": "Bob", "salary": 5, "nickname": "B", "level": 3])
        try context.save()
        let rows = try ModelContext(container).fetch(
            entity: "Employee", where: "level >= 1", sortBy: "name")
        #expect(rows.compactMap { $0["nickname"] as? String } == ["B"])
        #expect(rows.count == 2)
    }

    @Test func addingAnEntityMigratesAndKeepsTheOthers() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        let withCompany = Schema(
            Self.v1.entities + [
                Entity(name: "Company", attributes: [AttributeDescription("name", .string)])
            ])
        let container = try fixture.open(schema: withCompany)
        #expect(container.schema.entities.map(\.name) == ["Employee", "Company"])
        #expect(try container.mainContext.fetch(entity: "Employee").count == 1)
    }

    @Test func changingATypeIsRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        let changed = Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("name", .string), AttributeDescription("salary", .string),
                ])
        ])
        #expect(
            throws: LogbookError.incompatibleSchema(
                entity: "Employee", attribute: "salary",
                reason:
                    "its type changed from Int64 to String, which is not a widening; convert its values in a custom migration stage"
            )
        ) { try fixture.open(schema: changed) }
    }

    @Test func removingAnAttributeMigrates() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        let smaller = Schema([
            Entity(name: "Employee", attributes: [AttributeDescription("name", .string)])
        ])
        let container = try fixture.open(schema: smaller)
        #expect(container.schema.version == 2)
        #expect(
            try container.mainContext.fetch(entity: "Employee").first?["name"] as? String == "Ann")
    }

    @Test func addingARequiredAttributeWithoutDefaultIsRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        var v2 = Self.v1.entities[0]
        v2.attributes.append(AttributeDescription("badge", .string))
        #expect(throws: LogbookError.self) { try fixture.open(schema: Schema([v2])) }
    }

    @Test func classAddingADefaultedAttributeMigratesADynamicStore() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try withOneEmployee(fixture)
        let container = try fixture.open()
        let ann = try #require(try container.mainContext.fetch(FetchDescriptor<Employee>()).first)
        #expect(ann.name == "Ann")
        #expect(ann.designation == "")
        #expect(ann.salary == 100)
    }

    @Test func invalidSchemasAreRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let reserved = Schema([
            Entity(name: "logbook.x", attributes: [AttributeDescription("a", .string)])
        ])
        #expect(throws: LogbookError.self) { try fixture.open(schema: reserved) }
        let twice = Schema([
            Entity(
                name: "E",
                attributes: [
                    AttributeDescription("a", .string), AttributeDescription("a", .integer),
                ])
        ])
        #expect(throws: LogbookError.self) { try fixture.open(schema: twice) }
        let badDefault = Schema([
            Entity(
                name: "E",
                attributes: [AttributeDescription("a", .string, defaultValue: .integer(1))])
        ])
        #expect(throws: LogbookError.self) { try fixture.open(schema: badDefault) }
    }

    @Test func aStoreWithoutSchemaNeedsOne() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        #expect(throws: LogbookError.self) { try fixture.open(schema: nil) }
    }
}

/// A model whose defaults are not constants.
final class Ticket: PersistentModel {
    @Attribute var opened = Date()
    @Attribute var token = UUID()
    @Attribute var title = "untitled"
    init() {}
}

@Suite struct NonConstantDefaultTests {
    @Test func reopeningAModelWithDateAndUUIDDefaultsKeepsTheSchemaVersion() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([Ticket.self])
            #expect(container.schema.version == 1)
            let attributes = try #require(container.schema.entity(named: "Ticket")?.attributes)
            #expect(attributes.map(\.defaultValue) == [nil, nil, .string("untitled")])
            try container.close()
        }
        let reopened = try fixture.open([Ticket.self])
        #expect(reopened.schema.version == 1)
    }
}
