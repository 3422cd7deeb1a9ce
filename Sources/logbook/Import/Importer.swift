import LogStore
import Logbook

/// One object read from an import file, checked against its entity.
struct ImportedObject {
    /// The entity.
    var entity: Entity
    /// One value per attribute, in the entity's order; `nil` for one the file leaves out (it
    /// takes its default).
    var values: [AttributeValue?]
    /// The 1-based line it starts on.
    var line: Int
    /// Its `_id` in the file, which its references name it by; `nil` if the file gives none.
    var id: Int64? = nil
    /// Its stored relationships' keys, in the file's numbering, by position in
    /// ``Entity/relationships``.
    var links: [(relationship: Int, keys: [UInt64])] = []
}

/// One problem with an import file, with the 1-based line it is on.
struct LineError: Error, CustomStringConvertible {
    /// The file as named on the command line.
    var file: String
    /// 1-based.
    var line: Int
    /// What is wrong with the line.
    var message: String
    var description: String { "\(file):\(line): \(message)" }
}

/// Where `import` reads objects from: one at a time, each checked before it is returned.
protocol ImportSource {
    /// The schema the file carries (a JSON Lines `{"_schema": …}` line), once read.
    var fileSchema: Schema? { get }
    /// The next object, or `nil` at the end of the file.
    /// - Throws: ``LineError`` for the first line that does not parse or does not fit.
    mutating func next() throws -> ImportedObject?
}

/// Reads JSON Lines as `logbook export --format jsonl` writes them, one line at a time.
///
/// The schema is the store's; a new store (or one without a schema) takes the file's
/// `{"_schema": …}` line, which must come before the objects. `_id` is read but not kept: the
/// store gives objects new identifiers.
struct JSONLinesSource: ImportSource {
    private let input: InputReader
    private let file: String
    private let storeSchema: Schema?
    private var entities: [String: Entity] = [:]
    private var lineNumber = 0
    private(set) var fileSchema: Schema?
    /// The parser of the lines that look as export writes them, once the entities are known.
    private var fast: ObjectLineParser?

    private enum Line {
        case blank
        case fast(ImportedObject)
        case json(JSONValue)
    }

    /// A source reading `input` (the file named `file` on the command line), checked against
    /// `storeSchema` (the store's, or `nil`).
    init(input: InputReader, file: String, storeSchema: Schema?) {
        self.input = input
        self.file = file
        self.storeSchema = storeSchema
        for entity in storeSchema?.entities ?? [] { entities[entity.name] = entity }
        if let storeSchema { fast = ObjectLineParser(entities: storeSchema.entities) }
    }

    mutating func next() throws -> ImportedObject? {
        while true {
            let fast = self.fast
            let line: Line? = try input.next { bytes, isLast in
                guard
                    let end = ASCIIScan.firstIndex(of: UInt8(ascii: "\n"), in: bytes)
                        ?? (isLast ? bytes.count : nil)
                else { return nil }
                lineNumber += 1
                var content = bytes.part(0..<end)
                if content.last == UInt8(ascii: "\r") {
                    content = content.part(0..<content.count - 1)
                }
                let length = end < bytes.count ? end + 1 : end
                if content.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                    return (.blank, length)
                }
                if let (entity, values, id) = fast?.parse(content) {
                    return (
                        .fast(
                            ImportedObject(
                                entity: entity, values: values, line: lineNumber, id: id)),
                        length
                    )
                }
                do {
                    return (.json(try JSONParser.parse(content)), length)
                } catch {
                    throw fail("\(error)")
                }
            }
            switch line {
            case nil: return nil
            case .blank: continue
            case .fast(let object): return object
            case .json(let json): if let object = try object(json) { return object }
            }
        }
    }

    /// The object a parsed line holds, or `nil` for the schema line.
    private mutating func object(_ json: JSONValue) throws -> ImportedObject? {
        if let schemaJSON = json["_schema"] {
            do {
                let schema = try SchemaJSON.decode(schemaJSON)
                fileSchema = schema
                if storeSchema == nil {
                    for entity in schema.entities { entities[entity.name] = entity }
                    fast = ObjectLineParser(entities: Array(entities.values))
                }
            } catch {
                throw fail("\(error)")
            }
            return nil
        }
        guard case .object(let members) = json else { throw fail("a line holds one JSON object") }
        guard let entityName = json["_entity"]?.string else {
            throw fail("the object has no \"_entity\" member naming its entity")
        }
        guard let entity = entities[entityName] else {
            throw fail(
                entities.isEmpty
                    ? "the store has no schema and no {\"_schema\": …} line came before"
                    : "no entity \"\(entityName)\" in the schema")
        }
        var values = [AttributeValue?](repeating: nil, count: entity.attributes.count)
        var id: Int64? = nil
        var links: [(relationship: Int, keys: [UInt64])] = []
        for (key, value) in Self.flattened(members, of: entity) where key != "_entity" {
            if key == "_id" {
                guard let number = FileKeys.key(value) else {
                    throw fail("\(entityName)'s \"_id\" is \(value.summary), not a key (1 or more)")
                }
                id = Int64(bitPattern: number)
                continue
            }
            guard let index = entity.attributeIndex(key) else {
                if let r = entity.relationships.firstIndex(where: { $0.name == key && $0.isStored })
                {
                    guard let keys = FileKeys.keys(value, toMany: entity.relationships[r].isToMany)
                    else {
                        throw fail(
                            "\(entityName).\(key) holds \(value.summary), not "
                                + (entity.relationships[r].isToMany
                                    ? "a link list (hex of 8-byte keys, ascending) or null"
                                    : "a key or null"))
                    }
                    links.append((r, keys))
                    continue
                }
                throw fail("\(entityName) has no attribute \"\(key)\"")
            }
            let attribute = entity.attributes[index]
            guard let field = AttributeValue(json: value, as: attribute) else {
                throw fail(
                    "\(entityName).\(key) holds \(attribute.declaredType), not \(value.summary)")
            }
            if field == .null && !attribute.isOptional {
                throw fail("\(entityName).\(key) is required and cannot be null")
            }
            values[index] = field
        }
        for (attribute, value) in zip(entity.attributes, values)
        where value == nil && !attribute.isOptional && attribute.defaultValue == nil {
            throw fail("\(entityName).\(attribute.name) is required but missing")
        }
        return ImportedObject(
            entity: entity, values: values, line: lineNumber, id: id, links: links)
    }

    /// The members with each composite given as an object of its fields
    /// (`"address":{"city":"Pune"}`) written as its marker and dotted fields
    /// (`"address":{},"address.city":"Pune"`), as export writes them.
    static func flattened(_ members: [(key: String, value: JSONValue)], of entity: Entity)
        -> [(key: String, value: JSONValue)]
    {
        var result: [(key: String, value: JSONValue)] = []
        for (key, value) in members {
            guard case .object(let fields) = value, !fields.isEmpty,
                let i = entity.attributeIndex(key), entity.attributes[i].type == .composite
            else {
                result.append((key, value))
                continue
            }
            result.append((key, .object([])))
            result += flattened(fields.map { (key + "." + $0.key, $0.value) }, of: entity)
        }
        return result
    }

    private func fail(_ message: String) -> LineError {
        LineError(file: file, line: lineNumber, message: message)
    }
}

/// The values of unique attributes seen so far (the store's and the file's), by entity and
/// attribute, so that import names the line of an object that would clash. Memory grows with
/// the values of unique attributes only.
struct UniqueValues {
    private var seen: [String: [String: Set<String>]] = [:]

    /// The values of every unique attribute the live objects of `store` hold.
    /// - Throws: ``LogStoreError``, or the object layer's error for a record that does not
    ///   decode.
    init(of store: LogStore, decoder: RecordDecoder) throws {
        for entity in decoder.schema.entities {
            let unique = Set(entity.attributes.filter(\.isUnique).map(\.name))
            guard !unique.isEmpty else { continue }
            try store.forEach(in: entity.name) { key, value in
                let object = try decoder.decode(keyspace: entity.name, key: key, value: value)
                for field in object.attributes
                where unique.contains(field.name) && field.value != .null {
                    seen[entity.name, default: [:]][field.name, default: []].insert(
                        field.value.text(as: .json))
                }
            }
        }
    }

    /// No values yet.
    init() {}

    /// Adds the unique values of `object`.
    /// - Throws: ``LineError`` if one was seen before.
    mutating func add(_ object: ImportedObject, file: String) throws {
        let entity = object.entity
        for (attribute, value) in zip(entity.attributes, object.values) where attribute.isUnique {
            let value = value ?? attribute.defaultValue ?? .null
            if value == .null { continue }
            let key = value.text(as: .json)
            guard seen[entity.name, default: [:]][attribute.name, default: []].insert(key).inserted
            else {
                throw LineError(
                    file: file, line: object.line,
                    message: "\(entity.name).\(attribute.name) must be unique, and \(key) is "
                        + "already in the store or earlier in the file")
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
