import LogStore
import Logbook

/// Reads a JSON Lines file as `logbook export --format jsonl` writes it, checks every line
/// against the schema, and saves all objects as one atomic batch: either every object is in
/// the store afterwards or none is.
///
/// The schema is the store's; a new store (or one without a schema) takes the file's
/// `{"_schema": …}` line. Objects get new identifiers from the store (`_id` is read but not
/// kept); a store that is new and an export of objects numbered 1, 2, 3, … give the same ones.
struct Importer {
    /// One problem, with the 1-based line of the file it is on.
    struct LineError: Error, CustomStringConvertible {
        /// The file as named on the command line.
        var file: String
        /// 1-based.
        var line: Int
        /// What is wrong with the line.
        var message: String
        var description: String { "\(file):\(line): \(message)" }
    }

    /// The objects read, in file order.
    private(set) var objects: [(entity: String, values: [String: AttributeValue])] = []
    /// The line each object is on (parallel to ``objects``).
    private(set) var lines: [Int] = []
    /// The file's schema line, if it has one.
    private(set) var fileSchema: Schema?
    /// The file as named on the command line.
    let file: String

    /// Objects already read and checked, with their lines.
    init(file: String, objects: [(entity: String, values: [String: AttributeValue])], lines: [Int])
    {
        self.file = file
        self.objects = objects
        self.lines = lines
    }

    /// Parses JSON Lines `text` (the contents of `file`) against `storeSchema` (the store's, or
    /// `nil`).
    /// - Throws: ``LineError`` at the first line that does not parse or does not fit the schema.
    init(text: String, file: String, storeSchema: Schema?) throws {
        self.file = file
        var entities: [String: Entity] = [:]
        for entity in storeSchema?.entities ?? [] { entities[entity.name] = entity }
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            if trimmed.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            func fail(_ message: String) -> LineError {
                LineError(file: file, line: lineNumber, message: message)
            }
            let json: JSONValue
            do {
                json = try JSONParser.parse(String(trimmed))
            } catch {
                throw fail("\(error)")
            }
            if let schemaJSON = json["_schema"] {
                do {
                    let schema = try SchemaJSON.decode(schemaJSON)
                    fileSchema = schema
                    if storeSchema == nil {
                        for entity in schema.entities { entities[entity.name] = entity }
                    }
                } catch {
                    throw fail("\(error)")
                }
                continue
            }
            guard case .object(let members) = json else {
                throw fail("a line holds one JSON object")
            }
            guard let entityName = json["_entity"]?.string else {
                throw fail("the object has no \"_entity\" member naming its entity")
            }
            guard let entity = entities[entityName] else {
                throw fail(
                    entities.isEmpty
                        ? "the store has no schema and no {\"_schema\": …} line came before"
                        : "no entity \"\(entityName)\" in the schema")
            }
            var values: [String: AttributeValue] = [:]
            for (key, value) in members where key != "_entity" && key != "_id" {
                guard let attribute = entity.attributes.first(where: { $0.name == key }) else {
                    throw fail("\(entityName) has no attribute \"\(key)\"")
                }
                guard let field = AttributeValue(json: value, as: attribute.type) else {
                    throw fail(
                        "\(entityName).\(key) holds \(attribute.type), not \(value.summary)"
                    )
                }
                if field == .null && !attribute.isOptional {
                    throw fail("\(entityName).\(key) is required and cannot be null")
                }
                values[key] = field
            }
            for attribute in entity.attributes
            where values[attribute.name] == nil && !attribute.isOptional
                && attribute.defaultValue == nil
            {
                throw fail("\(entityName).\(attribute.name) is required but missing")
            }
            objects.append((entityName, values))
            lines.append(lineNumber)
        }
    }
}

extension Importer {
    /// Checks the unique attributes of `entities`: no two objects of the file share a value,
    /// and none repeats a value `existing` (the store's, by entity and attribute) holds.
    /// - Throws: ``LineError`` at the line of the object that repeats a value.
    func checkUniqueness(
        _ entities: [Entity], existing: [String: [String: Set<String>]]
    ) throws {
        var seen = existing
        for (object, line) in zip(objects, lines) {
            guard let entity = entities.first(where: { $0.name == object.entity }) else { continue }
            for attribute in entity.attributes where attribute.isUnique {
                let value = object.values[attribute.name] ?? attribute.defaultValue ?? .null
                if value == .null { continue }
                let key = value.text(as: .json)
                guard
                    seen[entity.name, default: [:]][attribute.name, default: []].insert(key)
                        .inserted
                else {
                    throw LineError(
                        file: file, line: line,
                        message: "\(entity.name).\(attribute.name) must be unique, and \(key) is "
                            + "already in the store or earlier in the file")
                }
            }
        }
    }
}

extension JSONValue {
    /// A short description for error messages: `the string "x"`, `the number 3`, ….
    var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "\(b)"
        case .number(let n): return "the number \(n)"
        case .string(let s): return "the string " + Formatting.quoted(String(s.prefix(40)))
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
