import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// A store whose older records decode only through renamed, removed, widened or newly required
/// fields has its schema records from that change on in format 4, which a Logbook that reads
/// formats 1 to 3 refuses (FORMAT.md Part 2, "Versioning rule"); additive changes keep the
/// format older readers know.
@MainActor @Suite struct SchemaFormatMarkerTests {
    static let employee = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("nickname", .string, optional: true),
            AttributeDescription("level", .int32),
        ])

    static let readOnly = {
        var options = LogStoreOptions()
        options.readOnly = true
        return options
    }()

    /// A store of `employee` (schema format 3: `level` is an `Int32`) holding Ann (level 1, no nickname) and Bob ("B", level 2).
    private func seeded() throws -> LogbookFixture {
        let fixture = LogbookFixture()
        let container = try fixture.open(schema: Schema([Self.employee]))
        try container.mainContext.insert(
            entity: "Employee", values: ["name": "Ann", "nickname": nil, "level": 1])
        try container.mainContext.insert(
            entity: "Employee", values: ["name": "Bob", "nickname": "B", "level": 2])
        try container.mainContext.save()
        try container.close()
        return fixture
    }

    /// Opens `fixture` with `employee` changed by `change`, then closes it.
    private func migrate(_ fixture: LogbookFixture, _ change: (inout Entity) -> Void) throws {
        var entity = Self.employee
        change(&entity)
        try fixture.open(schema: Schema([entity])).close()
    }

    /// The format byte of each stored schema record, by version.
    private func formats(_ fixture: LogbookFixture) throws -> [UInt32: UInt8] {
        let store = try LogStore(path: fixture.url.path, options: Self.readOnly)
        defer { try? store.close() }
        var formats: [UInt32: UInt8] = [:]
        try store.forEach(in: Keyspaces.schema) { key, value in
            formats[Keyspaces.schemaVersion(ofKey: key)!] = value.first!
        }
        return formats
    }

    /// Decodes every schema record of `fixture` as a reader of formats 1 to 3 does.
    private func readAsFormat3Reader(_ fixture: LogbookFixture) throws {
        let store = try LogStore(path: fixture.url.path, options: Self.readOnly)
        defer { try? store.close() }
        try store.forEach(in: Keyspaces.schema) { key, value in
            _ = try SchemaCodec.decode(value, key: "\(key)", newestFormat: 3)
        }
    }

    @Test func aRenameIsWrittenInFormat4WhichAFormat3ReaderRefuses() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        try migrate(fixture) {
            $0.attributes[0] = AttributeDescription("fullName", .string, originalName: "name")
        }
        let found = try formats(fixture)
        #expect(found == [1: 3, 2: 4], "\(found)")
        #expect {
            try readAsFormat3Reader(fixture)
        } throws: { error in
            guard case .corruptRecord(let keyspace, _, let reason) = error as? LogbookError else {
                return false
            }
            return keyspace == Keyspaces.schema && reason.contains("schema format 4")
        }
        // This library reads it, and the records written before the rename.
        var entity = Self.employee
        entity.attributes[0] = AttributeDescription("fullName", .string)
        let container = try fixture.open(schema: Schema([entity]))
        defer { try? container.close() }
        let names = try container.mainContext.fetch(entity: "Employee", sortBy: "level").map {
            try $0.value(forKey: "fullName") as? String
        }
        #expect(names == ["Ann", "Bob"])
        #expect(try StoreCheck.run(storeAt: fixture.url.path).isDamaged == false)
    }

    @Test func aWideningIsWrittenInFormat4AndEveryLaterVersionToo() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        try migrate(fixture) { $0.attributes[2] = AttributeDescription("level", .integer) }
        // A later additive change does not lower the format: the widening is still in the chain.
        try migrate(fixture) {
            $0.attributes[2] = AttributeDescription("level", .integer)
            $0.attributes.append(AttributeDescription("note", .string, optional: true))
        }
        let found = try formats(fixture)
        #expect(found == [1: 3, 2: 4, 3: 4], "\(found)")
    }

    @Test func removingOrRequiringAFieldIsWrittenInFormat4() throws {
        let removed = try seeded()
        defer { removed.remove() }
        try migrate(removed) { $0.attributes.remove(at: 1) }
        #expect(try formats(removed)[2] == 4)

        let required = try seeded()
        defer { required.remove() }
        try migrate(required) {
            $0.attributes[1] = AttributeDescription("nickname", .string, defaultValue: .string("-"))
        }
        #expect(try formats(required)[2] == 4)
    }

    @Test func addingAFieldKeepsTheFormatOlderReadersRead() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        try migrate(fixture) {
            $0.attributes.append(AttributeDescription("note", .string, optional: true))
        }
        let found = try formats(fixture)
        #expect(found == [1: 3, 2: 3], "\(found)")
        try readAsFormat3Reader(fixture)
    }
}
