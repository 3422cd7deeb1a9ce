// The body of the `import` fuzz target (README.md): compiled by build.sh with the `logbook` tool's
// sources (all but main.swift), whose import parsers it drives. `swift test` replays the corpus
// through the built tool instead (LogbookCLITests.FuzzImportCorpusTests), since the tool's
// module is not importable by the tests.
import Foundation
import LogStore
import Logbook

/// What the `import` target reads against: an Employee with a field of every type, one unique
/// and one with a default, and a Company.
let fuzzImportSchema = Schema([
    Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("designation", .string, optional: true),
            AttributeDescription("salary", .integer, defaultValue: .integer(0)),
            AttributeDescription("score", .double),
            AttributeDescription("active", .bool),
            AttributeDescription("joined", .date, optional: true),
            AttributeDescription("photo", .data, optional: true),
            AttributeDescription("token", .uuid, optional: true),
            AttributeDescription("email", .string, optional: true, unique: true),
        ]),
    Entity(name: "Company", attributes: [AttributeDescription("name", .string)]),
])

/// Input: `mode: u8, rest`. Mode bit 0 clear: `rest` is JSON Lines, read against the schema
/// above (bit 1: against no schema, so the file's `{"_schema": …}` line must give it); set: CSV
/// rows of Employee. Every object read must hold one value per attribute, each `nil` or of the
/// attribute's type, every required one present; a problem must be a `LineError` (or, past
/// the limit, `ItemTooLong`). For JSON Lines, every line the fast parser
/// (``ObjectLineParser``) reads must be valid JSON that gives the same values.
///
/// `scratch` is a file this process may overwrite. Returns what broke.
func fuzzImport(_ input: [UInt8], scratch: String) -> [String] {
    guard let mode = input.first else { return [] }
    let rest = Array(input.dropFirst())
    guard FileManager.default.createFile(atPath: scratch, contents: Data(rest)),
        let reader = InputReader(path: scratch)
    else { return ["cannot write \(scratch)"] }
    let csv = mode & 1 != 0
    var source: any ImportSource =
        csv
        ? CSVSource(input: reader, file: "fuzz", entity: fuzzImportSchema.entities[0])
        : JSONLinesSource(
            input: reader, file: "fuzz", storeSchema: mode & 2 != 0 ? nil : fuzzImportSchema)
    var problems: [String] = []
    var unique = UniqueValues()
    do {
        while let object = try source.next() {
            problems += fuzzImportCheck(object)
            try unique.add(object, file: "fuzz")
        }
    } catch is LineError {
    } catch is InputReader.ItemTooLong {
    } catch {
        problems.append("not a LineError: \(error)")
    }
    if !csv { problems += fuzzImportFastLines(rest) }
    return problems
}

/// What is wrong with an object a source returned.
private func fuzzImportCheck(_ object: ImportedObject) -> [String] {
    let attributes = object.entity.attributes
    guard object.values.count == attributes.count else {
        return ["\(object.values.count) values for \(attributes.count) attributes"]
    }
    var problems: [String] = []
    for (attribute, value) in zip(attributes, object.values) {
        switch value {
        case nil:
            if !attribute.isOptional && attribute.defaultValue == nil {
                problems.append("required \(attribute.name) missing")
            }
        case .null?:
            if !attribute.isOptional { problems.append("required \(attribute.name) null") }
        case let value?:
            if value.type != attribute.type {
                problems.append("\(attribute.name) holds \(value), not \(attribute.type)")
            }
        }
    }
    return problems
}

/// Each line of `bytes` the fast parser reads, read again as JSON: it must parse, and give the
/// same entity, `_id` and values.
private func fuzzImportFastLines(_ bytes: [UInt8]) -> [String] {
    let parser = ObjectLineParser(entities: fuzzImportSchema.entities)
    var problems: [String] = []
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        var line = Array(line)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        line.withUnsafeBufferPointer { line in
            guard let (entity, fast, id) = parser.parse(line) else { return }
            let json: JSONValue
            do {
                json = try JSONParser.parse(line)
            } catch {
                problems.append("the fast parser read a line that is not JSON (\(error))")
                return
            }
            guard json["_entity"]?.string == entity.name, case .object(let members) = json else {
                problems.append("the fast parser read entity \(entity.name) from \(json)")
                return
            }
            if let id, json["_id"] != .number(String(id)) {
                problems.append("the fast parser read _id \(id) from \(json)")
                return
            }
            var values = [AttributeValue?](repeating: nil, count: entity.attributes.count)
            for (key, value) in members where key != "_entity" && key != "_id" {
                guard let index = entity.attributeIndex(key),
                    let field = AttributeValue(json: value, as: entity.attributes[index])
                else {
                    problems.append("the fast parser read \(key): \(value.summary)")
                    return
                }
                values[index] = field
            }
            if values != fast {
                problems.append("the fast parser read \(fast), the JSON parser \(values)")
            }
        }
    }
    return problems
}
