import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// Lightweight migrations rewrite no record; compaction, which copies records anyway, writes the
/// ones of older schema versions in the current version, so decoding through the chain of
/// versions is needed only until then (FORMAT.md Part 2, "Object records").
@MainActor @Suite struct CompactionUpgradeTests {
    static let employee = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("nickname", .string, optional: true),
            AttributeDescription("level", .int32),
            AttributeDescription("salary", .integer),
            AttributeDescription("badge", .string, optional: true),
        ])

    /// `employee` after a rename, a widening, a removal, optional made required with a
    /// default, and an added attribute.
    static let migrated = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("fullName", .string, originalName: "name"),
            AttributeDescription("nickname", .string, defaultValue: .string("none")),
            AttributeDescription("level", .integer, indexed: true),
            AttributeDescription("salary", .double),
            AttributeDescription("note", .string, defaultValue: .string("-")),
        ])

    /// Every Employee record's schema version and object version, by primary key.
    private func versions(_ store: LogStore) throws -> [UInt64: [UInt64]] {
        var versions: [UInt64: [UInt64]] = [:]
        try store.forEach(in: "Employee") { key, value in
            var reader = ByteReader(value)
            versions[Keyspaces.primaryKey(ofObjectKey: key)!] = [
                try reader.varint(), try reader.varint(),
            ]
        }
        return versions
    }

    /// Every Employee as text, by full name.
    private func rows(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(entity: "Employee", sortBy: "fullName").map { row in
            try ["fullName", "nickname", "level", "salary", "note"].map {
                "\(try row.value(forKey: $0) ?? "nil")"
            }.joined(separator: "|")
        }
    }

    @Test func compactionWritesOlderRecordsInTheCurrentVersionAndTheyReadTheSame() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let first = try fixture.open(schema: Schema([Self.employee]))
        for i in 0..<300 {
            try first.mainContext.insert(
                entity: "Employee",
                values: [
                    "name": "E\(1000 + i)", "nickname": i % 3 == 0 ? nil : "n\(i)",
                    "level": i % 7, "salary": i * 100, "badge": "b\(i)",
                ])
        }
        try first.mainContext.save()
        // Saved twice: object version 2, still of schema version 1.
        for row in try first.mainContext.fetch(entity: "Employee", where: "level == 3") {
            try row.setValue("again", forKey: "badge")
        }
        try first.mainContext.save()
        try first.close()

        let container = try fixture.open(schema: Schema([Self.migrated]))
        #expect(container.schema.version == 2)
        // One object saved under the new version: already current, copied as it is.
        let saved = try #require(
            try container.mainContext.fetch(entity: "Employee", where: "fullName == 'E1001'").first)
        try saved.setValue("late", forKey: "note")
        try container.mainContext.save()

        let before = try rows(container)
        let versionsBefore = try versions(container.store)
        #expect(Set(versionsBefore.values.map { $0[0] }) == [1, 2])
        let report = try container.store.compact()
        #expect(report.segmentsCompacted > 0)
        let after = try versions(container.store)
        #expect(Set(after.values.map { $0[0] }) == [2], "a record of version 1 remains")
        #expect(after.mapValues { $0[1] } == versionsBefore.mapValues { $0[1] })
        #expect(try rows(container) == before)
        #expect(
            try ModelContext(container).fetch(entity: "Employee", where: "level == 3").count
                == 43)
        try container.close()

        // Reopened: the same objects, and the check finds nothing wrong.
        let reopened = try fixture.open(schema: Schema([Self.migrated]))
        defer { try? reopened.close() }
        #expect(try rows(reopened) == before)
        #expect(try StoreCheck.run(storeAt: fixture.url.path).isDamaged == false)
    }

    @Test func theEngineAloneCopiesRecordsAsTheyAre() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let first = try fixture.open(schema: Schema([Self.employee]))
        try first.mainContext.insert(
            entity: "Employee", values: ["name": "Ann", "level": 1, "salary": 5])
        try first.mainContext.save()
        try first.close()
        try fixture.open(schema: Schema([Self.migrated])).close()
        // The engine alone knows no schema: its compaction keeps the bytes.
        let store = try LogStore(path: fixture.url.path)
        defer { try? store.close() }
        try store.compact()
        #expect(Set(try versions(store).values.map { $0[0] }) == [1])
    }
}
