import Foundation
import Logbook
import TestSupport
import Testing

/// Records of an older schema version whose fields are the first of today's (fields appended
/// since, the store not compacted) decode through the stored schema as the tools read them:
/// every current field once, in order, a null as null, and each appended field with the
/// default it had in the version that added it.
@Suite struct RecordDecoderPrefixTests {
    private static func schema(levelDefault: Int64) -> Schema {
        Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("nickname", .string, optional: true),
                    AttributeDescription("level", .integer, defaultValue: .integer(levelDefault)),
                    AttributeDescription("note", .string, optional: true),
                ])
        ])
    }

    @Test func appendedFieldsReadAsTheDefaultTheyWereAddedWith() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.child("store"))
        let v1 = Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("nickname", .string, optional: true),
                ])
        ])
        let first = try ModelContainer(schema: v1, at: url)
        let context = ModelContext(first)
        try context.insert(entity: "Employee", values: ["name": "Ann", "nickname": "A"])
        try context.insert(entity: "Employee", values: ["name": "Bo"])
        try context.save()
        try first.close()
        // Level and note appended with level's default 7, then that default changed to 9.
        try ModelContainer(schema: Self.schema(levelDefault: 7), at: url).close()
        let third = try ModelContainer(schema: Self.schema(levelDefault: 9), at: url)
        let later = ModelContext(third)
        try later.insert(entity: "Employee", values: ["name": "Cy", "level": 1, "note": "new"])
        try later.save()
        try third.close()

        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: url.path, options: options)
        defer { try? store.close() }
        let decoder = try RecordDecoder(store: store)
        var rows: [UInt64: [AttributeValue]] = [:]
        try store.forEach(in: "Employee") { key, value in
            var fields: [AttributeValue] = []
            let (pk, _) = try decoder.decodeFields(keyspace: "Employee", key: key, value: value) {
                i, field in
                #expect(i == fields.count, "field \(i) came after \(fields.count) fields")
                fields.append(field)
            }
            rows[pk] = fields
        }
        #expect(
            rows == [
                1: [.string("Ann"), .string("A"), .integer(7), .null],
                2: [.string("Bo"), .null, .integer(7), .null],
                3: [.string("Cy"), .null, .integer(1), .string("new")],
            ])
    }
}
