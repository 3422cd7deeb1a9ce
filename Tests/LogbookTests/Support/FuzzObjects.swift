// The body of the `objects` fuzz target (Tests/Fuzz/README.md): shared by the libFuzzer build,
// which compiles this file into the Logbook module with -D FUZZING, and by
// FuzzObjectsCorpusTests, which replays the committed corpus on every `swift test`.
import Foundation

#if !FUZZING
    import Logbook
#endif

/// A store holding the schema the `objects` target decodes with: an Employee with a field of
/// every type. Returns its decoder.
func fuzzObjectsDecoder(at path: String) throws -> RecordDecoder {
    try? FileManager.default.removeItem(atPath: path)
    let schema = Schema([
        Entity(
            name: "Employee",
            attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("designation", .string, optional: true),
                AttributeDescription("salary", .integer),
                AttributeDescription("joined", .date, optional: true),
                AttributeDescription("photo", .data, optional: true),
                AttributeDescription("score", .double),
                AttributeDescription("active", .bool),
                AttributeDescription("token", .uuid, optional: true),
            ])
    ])
    let container = try ModelContainer(schema: schema, at: URL(filePath: path))
    return try RecordDecoder(store: container.store)
}

/// Input: `mode: u8, rest`. Mode even: `rest` as UTF-8 is a string predicate, parsed and
/// evaluated; mode odd: `rest` is an Employee record's value, decoded. Returns the errors met
/// that are not `LogbookError`s (there must be none).
@discardableResult
func fuzzObjects(_ input: [UInt8], decoder: RecordDecoder) -> [Error] {
    guard let mode = input.first else { return [] }
    let rest = Array(input.dropFirst())
    var unexpected: [Error] = []
    do {
        if mode & 1 == 0 {
            let predicate = try StringPredicate(
                format: String(decoding: rest, as: UTF8.self), arguments: [1_000, "Ann", nil])
            _ = try predicate.evaluate([
                "name": .string("Ann"), "designation": .null, "salary": .integer(2_000_000),
                "score": .double(0.5), "active": .bool(true),
            ])
        } else {
            _ = try decoder.decode(
                keyspace: "Employee", key: [0, 0, 0, 0, 0, 0, 0, 7], value: rest)
        }
    } catch is LogbookError {
    } catch {
        unexpected.append(error)
    }
    return unexpected
}
