import Foundation
import Logbook
import TestSupport
import Testing

/// Adding an index to a stored entity is a new schema version whose records keep their layout:
/// the records of the old version are read as current ones (by the in-place scan, the index
/// build and the object decoder), with the right values.
@MainActor @Suite struct IndexMigrationTests {
    static func schema(indexed: Bool) -> Schema {
        Schema([
            Entity(
                name: "Worker",
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("team", .string, indexed: indexed),
                    AttributeDescription("salary", .integer),
                    AttributeDescription("note", .string, optional: true),
                ])
        ])
    }

    @Test func recordsWrittenBeforeAnIndexWasAddedReadAsCurrentOnes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var expected: [String: (String, Int64, String?)] = [:]
        do {
            let container = try fixture.open(schema: Self.schema(indexed: false))
            for i in 0..<300 {
                let name = "w\(i)"
                let team = "t\(i % 7)"
                let note: String? = i % 3 == 0 ? nil : "n\(i)"
                try container.mainContext.insert(
                    entity: "Worker",
                    values: ["name": name, "team": team, "salary": Int64(i * 10), "note": note])
                expected[name] = (team, Int64(i * 10), note)
            }
            try container.mainContext.save()
            #expect(container.schema.version == 1)
            try container.close()
        }
        let container = try fixture.open(schema: Self.schema(indexed: true))
        #expect(
            container.schema.version == 2, "adding the index made no new version: proves nothing")
        let context = ModelContext(container)
        let descriptor = EntityFetchDescriptor(
            entityName: "Worker", predicate: try StringPredicate("team == 't3' AND salary >= 500"),
            sortBy: [("salary", true)])
        let explained = try context.explain(descriptor)
        #expect(explained.access == .index)
        let found = try context.fetch(descriptor)
        let wanted = expected.filter { $0.value.0 == "t3" && $0.value.1 >= 500 }
        #expect(found.count == wanted.count && !found.isEmpty)
        for object in found {
            let name = try #require(object["name"] as? String)
            let row = try #require(expected[name])
            #expect(object["team"] as? String == row.0)
            #expect(object["salary"] as? Int64 == row.1)
            #expect(object["note"] as? String == row.2)
        }
        #expect(found.map { $0["salary"] as! Int64 } == wanted.map(\.value.1).sorted())
        // A scan over old records, with a predicate on the optional field.
        let notes = try context.fetch(entity: "Worker", where: "note == nil")
        #expect(notes.count == expected.values.filter { $0.2 == nil }.count)
        // Old and new records side by side after a save, and after reopening.
        found[0]["salary"] = 1
        try context.save()
        try container.close()
        let reopened = try fixture.open(schema: Self.schema(indexed: true))
        let all = try ModelContext(reopened).fetch(entity: "Worker", where: "team == 't3'")
        #expect(all.count == expected.values.filter { $0.0 == "t3" }.count)
        #expect(all.contains { $0["salary"] as? Int64 == 1 })
    }
}
