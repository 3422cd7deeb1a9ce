import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// An open that migrates a stored schema lightweight writes nothing: the new schema is
/// committed just before the container's first write, or at its close (FORMAT.md, "Schema").
@MainActor @Suite struct DeferredSchemaCommitTests {
    static let employee = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("salary", .integer),
        ])
    /// `employee` with `name` renamed and an optional attribute added.
    static let renamed = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("fullName", .string, originalName: "name"),
            AttributeDescription("salary", .integer),
            AttributeDescription("nickname", .string, optional: true),
        ])

    /// A store of `employee` with Ann and Bob.
    private func seeded() throws -> LogbookFixture {
        let fixture = LogbookFixture()
        let container = try fixture.open(schema: Schema([Self.employee]))
        for (name, salary) in [("Ann", 100), ("Bob", 200)] {
            try container.mainContext.insert(
                entity: "Employee", values: ["name": name, "salary": salary])
        }
        try container.mainContext.save()
        try container.close()
        return fixture
    }

    /// Every file of the store, by name, with its bytes (the lock file aside).
    private func files(_ path: String) -> [String: [UInt8]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var files: [String: [UInt8]] = [:]
        for name in names where name != "LOCK" { files[name] = readFile(path + "/" + name) }
        return files
    }

    /// The schema version a reader of the store at `path` sees, and its Employees' first field.
    private func readerSees(_ path: String) throws -> (version: UInt32, names: [String]) {
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: path, options: options)
        defer { try? store.close() }
        let decoder = try RecordDecoder(store: store)
        let field = decoder.schema.version == 1 ? "name" : "fullName"
        let names = try decoder.records(of: "Employee", in: store).map { record in
            if case .string(let name)? = record.values[field] { return name }
            return "?"
        }
        return (decoder.schema.version, names.sorted())
    }

    @Test func theOpenWritesNothingAndReadersSeeTheOldVersionUntilTheFirstSave() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let before = files(fixture.url.path)
        let container = try fixture.open(schema: Schema([Self.renamed]))
        #expect(container.schema.version == 2)
        let names = try ModelContext(container).fetch(entity: "Employee", sortBy: "salary").map {
            "\(try $0.value(forKey: "fullName") ?? "nil")"
        }
        #expect(names == ["Ann", "Bob"])
        #expect(files(fixture.url.path) == before)
        #expect(try readerSees(fixture.url.path).version == 1)
        try container.mainContext.insert(
            entity: "Employee", values: ["fullName": "Cy", "salary": 300, "nickname": "C"])
        try container.mainContext.save()
        // The save's commit comes after the schema's: a reader decodes all three in version 2.
        let after = try readerSees(fixture.url.path)
        #expect(after.version == 2)
        #expect(after.names.count == 3)
        try container.close()
        let again = try fixture.open(schema: Schema([Self.renamed]))
        defer { try? again.close() }
        #expect(again.schema.version == 2)
        #expect(try ModelContext(again).fetch(entity: "Employee").count == 3)
    }

    @Test func aCloseWithoutASaveCommitsTheSchema() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Schema([Self.renamed]))
        try container.close()
        #expect(try readerSees(fixture.url.path).version == 2)
        // A read-only open of the new model needs no migration now.
        var options = LogStoreOptions()
        options.readOnly = true
        let reader = try ModelContainer(
            schema: Schema([Self.renamed]), at: fixture.url, options: options)
        defer { try? reader.close() }
        #expect(reader.schema.version == 2)
    }

    @Test func aCopyTakenBeforeTheFirstSaveIsTheOldVersionAndMigratesAgain() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Schema([Self.renamed]))
        let copy = TemporaryDirectory("deferred-schema-copy")
        defer { copy.remove() }
        let copyPath = copy.child("store.logbook")
        try FileManager.default.copyItem(atPath: fixture.url.path, toPath: copyPath)
        try container.mainContext.insert(
            entity: "Employee", values: ["fullName": "Cy", "salary": 300])
        try container.mainContext.save()
        try container.close()
        // The state a crash after the open would have left: the old version, whole.
        #expect(try readerSees(copyPath) == (1, ["Ann", "Bob"]))
        let reopened = try ModelContainer(
            schema: Schema([Self.renamed]), at: URL(fileURLWithPath: copyPath))
        defer { try? reopened.close() }
        #expect(reopened.schema.version == 2)
        #expect(try ModelContext(reopened).fetch(entity: "Employee").count == 2)
    }
}
