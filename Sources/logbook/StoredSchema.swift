import Foundation
import LogStore
import Logbook

// The one file that speaks the object layer's API (`Logbook`): reading the schema stored in a
// store, decoding object records, string predicates, and saving imported objects. Everything
// else in the tool works with the types below.

/// An attribute as the stored schema describes it.
struct AttributeInfo: Sendable, Equatable {
    /// The attribute's name.
    var name: String
    /// The type of its values.
    var type: FieldType
    /// Whether it may be `nil`.
    var isOptional: Bool
    /// The default of new objects, if any.
    var defaultValue: FieldValue?
    /// Whether the schema asks for an index on it.
    var isIndexed: Bool
    /// Whether no two objects may share a value.
    var isUnique: Bool
}

/// An entity as the stored schema describes it; its objects live in the keyspace of its name.
struct EntityInfo: Sendable, Equatable {
    /// The entity's (and its keyspace's) name.
    var name: String
    /// Attributes in stored order.
    var attributes: [AttributeInfo]
}

/// One object record decoded with the stored schema.
struct DecodedObject: Sendable {
    /// The entity (and keyspace).
    var entity: String
    /// The primary key (the `42` of `Employee/42`).
    var id: UInt64
    /// How many times the object was saved.
    var version: UInt64
    /// Attribute values in schema order.
    var fields: [(name: String, value: FieldValue)]
}

/// The schema a store holds, able to decode its object records (every stored schema version).
/// Immutable.
struct StoredSchema: Sendable {
    /// The keyspace holding schema records; the tool never decodes it as objects.
    static let keyspace = "logbook.schema"

    /// The newest stored schema version.
    let version: UInt32
    /// Entities in stored order.
    let entities: [EntityInfo]
    private let decoder: RecordDecoder

    private init(decoder: RecordDecoder) {
        self.decoder = decoder
        version = decoder.schema.version
        entities = decoder.schema.entities.map(EntityInfo.init)
    }

    /// The schema stored in `store`, or `nil` if it holds none (a store written with `LogStore`
    /// alone).
    /// - Throws: `LogbookError.corruptRecord` for a damaged schema record.
    static func read(from store: LogStore) throws -> StoredSchema? {
        guard try Schema.stored(in: store) != nil else { return nil }
        return StoredSchema(decoder: try RecordDecoder(store: store))
    }

    /// The entity called `name`, if any.
    func entity(named name: String) -> EntityInfo? { entities.first { $0.name == name } }

    /// Decodes the record under `key` in the entity keyspace `keyspace`, or returns `nil` if the
    /// keyspace is no entity's.
    /// - Throws: `LogbookError.corruptRecord` for a record that does not decode.
    func decode(keyspace: String, key: [UInt8], value: [UInt8]) throws -> DecodedObject? {
        guard decoder.isEntityKeyspace(keyspace) else { return nil }
        let record = try decoder.decode(keyspace: keyspace, key: key, value: value)
        return DecodedObject(
            entity: keyspace, id: record.id.primaryKey, version: record.version,
            fields: record.attributes.map { ($0.name, FieldValue($0.value)) })
    }

    /// Parses a Core Data-style predicate (`salary > 1000 AND name BEGINSWITH[c] "a"`), checked
    /// against `entity` when given.
    /// - Throws: ``CommandError/usage(_:)`` naming the syntax error's position, or an unknown
    ///   attribute.
    func filter(_ expression: String, entity: String?) throws -> ObjectFilter {
        do {
            let predicate = try StringPredicate(format: expression, arguments: [])
            if let entity, let described = decoder.schema.entity(named: entity) {
                try predicate.validate(for: described)
            }
            return ObjectFilter(predicate: predicate)
        } catch {
            throw CommandError.usage("--where: \(error)")
        }
    }
}

/// A parsed `--where` predicate.
struct ObjectFilter: Sendable {
    /// The parsed predicate.
    let predicate: StringPredicate

    /// Whether `object` satisfies the predicate; `false` when it cannot be evaluated on it
    /// (an attribute the entity lacks).
    func matches(_ object: DecodedObject) -> Bool {
        let values = Dictionary(
            object.fields.map { ($0.name, $0.value.attributeValue) },
            uniquingKeysWith: { a, _ in a })
        return (try? predicate.evaluate(values)) ?? false
    }
}

/// Writes imported objects through the object layer, with its validation.
enum ObjectWriter {
    /// Opens the store at `path` for writing (creating it with `schema` if it holds none), inserts
    /// `objects` and saves them as one atomic batch. Returns the number saved.
    /// - Throws: ``CommandError/failed(_:)`` when another process writes the store; the object
    ///   layer's errors (validation names the entity and attribute).
    static func save(
        _ objects: [(entity: String, values: [String: FieldValue])], schema: [EntityInfo]?,
        to path: String
    ) throws -> Int {
        let requested = schema.map { Schema($0.map(Entity.init)) }
        let container: ModelContainer
        do {
            container = try ModelContainer(schema: requested, at: URL(fileURLWithPath: path))
        } catch LogbookError.store(.locked) {
            throw CommandError.failed(
                "the store at \(path) is open for writing by another process; close it there first")
        }
        defer { try? container.close() }
        let context = container.mainContext
        for object in objects {
            try context.insert(
                entity: object.entity, values: object.values.mapValues { $0.attributeValue })
        }
        try context.save()
        return objects.count
    }
}

extension EntityInfo {
    /// The tool's description of an object-layer entity.
    init(_ entity: Entity) {
        self.init(
            name: entity.name,
            attributes: entity.attributes.map {
                AttributeInfo(
                    name: $0.name, type: FieldType($0.type), isOptional: $0.isOptional,
                    defaultValue: $0.defaultValue.map(FieldValue.init), isIndexed: $0.isIndexed,
                    isUnique: $0.isUnique)
            })
    }
}

extension Entity {
    /// The object-layer entity the tool's description stands for.
    init(_ info: EntityInfo) {
        self.init(
            name: info.name,
            attributes: info.attributes.map {
                AttributeDescription(
                    $0.name, AttributeType($0.type), optional: $0.isOptional,
                    defaultValue: $0.defaultValue?.attributeValue, indexed: $0.isIndexed,
                    unique: $0.isUnique)
            })
    }
}

extension FieldType {
    /// The tool's name for an object-layer attribute type.
    init(_ type: AttributeType) {
        switch type {
        case .string: self = .string
        case .integer: self = .integer
        case .double: self = .double
        case .bool: self = .bool
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        }
    }
}

extension AttributeType {
    /// The object-layer attribute type of the tool's type.
    init(_ type: FieldType) {
        switch type {
        case .string: self = .string
        case .integer: self = .integer
        case .double: self = .double
        case .bool: self = .bool
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        }
    }
}

extension FieldValue {
    /// The tool's form of an object-layer value.
    init(_ value: AttributeValue) {
        switch value {
        case .null: self = .null
        case .string(let v): self = .string(v)
        case .integer(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .bool(let v): self = .bool(v)
        case .date(let v): self = .date(v)
        case .data(let v): self = .data([UInt8](v))
        case .uuid(let v): self = .uuid(v)
        }
    }

    /// The object layer's form of the value.
    var attributeValue: AttributeValue {
        switch self {
        case .null: return .null
        case .string(let v): return .string(v)
        case .integer(let v): return .integer(v)
        case .double(let v): return .double(v)
        case .bool(let v): return .bool(v)
        case .date(let v): return .date(v)
        case .data(let v): return .data(Data(v))
        case .uuid(let v): return .uuid(v)
        }
    }
}
