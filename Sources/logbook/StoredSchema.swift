import LogStore

// The one file that speaks the object layer's API (`Logbook`): reading the schema stored in a
// store, decoding object records, string predicates, and saving imported objects. Everything
// else in the tool works with the types below.

/// An attribute as the stored schema describes it.
struct AttributeInfo: Sendable, Equatable {
    var name: String
    var type: FieldType
    var isOptional: Bool
    /// The default of new objects, if any.
    var defaultValue: FieldValue?
    var isIndexed: Bool
    var isUnique: Bool
}

/// An entity as the stored schema describes it; its objects live in the keyspace of its name.
struct EntityInfo: Sendable, Equatable {
    var name: String
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

/// The schema a store holds, able to decode its object records. Immutable.
struct StoredSchema: Sendable {
    /// The keyspace holding schema records; the tool never decodes it as objects.
    static let keyspace = "logbook.schema"

    /// The newest stored schema version.
    let version: UInt32
    /// Entities in stored order.
    let entities: [EntityInfo]

    /// The schema stored in `store`, or `nil` if it holds none (a store written with `LogStore`
    /// alone).
    /// - Throws: the object layer's error for a damaged schema record.
    static func read(from store: LogStore) throws -> StoredSchema? {
        nil  // until the object layer is on main
    }

    /// The entity called `name`, if any.
    func entity(named name: String) -> EntityInfo? { entities.first { $0.name == name } }

    /// Decodes the record under `key` in the entity keyspace `keyspace`, or returns `nil` if the
    /// keyspace is no entity's.
    /// - Throws: the object layer's error for a record that does not decode.
    func decode(keyspace: String, key: [UInt8], value: [UInt8]) throws -> DecodedObject? {
        nil
    }

    /// Parses a Core Data-style predicate (`salary > 1000 AND name BEGINSWITH[c] "a"`), checked
    /// against `entity` when given.
    /// - Throws: ``CommandError/usage(_:)`` naming the syntax error's position, or an unknown
    ///   attribute.
    func filter(_ expression: String, entity: String?) throws -> ObjectFilter {
        throw CommandError.failed("--where needs the object layer, which this build lacks")
    }
}

/// A parsed `--where` predicate.
struct ObjectFilter: Sendable {
    /// Whether `object` satisfies the predicate; `false` when it cannot be evaluated on it
    /// (an attribute the entity lacks).
    func matches(_ object: DecodedObject) -> Bool { false }
}

/// Writes imported objects through the object layer, with its validation.
enum ObjectWriter {
    /// Opens the store at `path` for writing (creating it with `schema` if it holds none), inserts
    /// `objects` and saves them as one atomic batch. Returns the number saved.
    /// - Throws: the object layer's errors (validation names the entity and attribute; `locked`
    ///   when another process writes the store).
    static func save(
        _ objects: [(entity: String, values: [String: FieldValue])], schema: [EntityInfo]?,
        to path: String
    ) throws -> Int {
        throw CommandError.failed("import needs the object layer, which this build lacks")
    }
}
