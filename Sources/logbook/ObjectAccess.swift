import Foundation
import LogStore
import Logbook

// What the tool adds to the object layer's types: reading the schema a store may hold, the
// `--where` filter, and saving imported objects.

extension RecordDecoder {
    /// The keyspace holding schema records; the tool never decodes it as objects.
    static let schemaKeyspace = "logbook.schema"

    /// A decoder for the schema `store` holds, or `nil` if it holds none (a store written with
    /// `LogStore` alone).
    /// - Throws: `LogbookError.corruptRecord` for a damaged schema record.
    static func stored(in store: LogStore) throws -> RecordDecoder? {
        guard try Schema.stored(in: store) != nil else { return nil }
        return try RecordDecoder(store: store)
    }

    /// Parses a Core Data-style predicate (`salary > 1000 AND name BEGINSWITH[c] "a"`), checked
    /// against `entity` when given.
    /// - Throws: ``CommandError/usage(_:)`` naming the syntax error's position, or an unknown
    ///   attribute.
    func filter(_ expression: String, entity: String?) throws -> ObjectFilter {
        do {
            let predicate = try StringPredicate(format: expression, arguments: [])
            if let entity, let described = schema.entity(named: entity) {
                try predicate.validate(for: described)
            }
            return ObjectFilter(predicate: predicate)
        } catch {
            throw CommandError.usage("--where: \(error)")
        }
    }
}

extension Entity {
    /// The names of a decoded record's fields: the attributes, then the to-one relationships
    /// (``DecodedRecord/attributes``).
    var fieldNames: [String] {
        attributes.map(\.name) + relationships.filter { !$0.isToMany }.map(\.name)
    }
}

/// A parsed `--where` predicate.
struct ObjectFilter: Sendable {
    /// The parsed predicate.
    let predicate: StringPredicate

    /// Whether `record` satisfies the predicate; `false` when it cannot be evaluated on it
    /// (an attribute the entity lacks).
    func matches(_ record: DecodedRecord) -> Bool {
        (try? predicate.evaluate(record.values)) ?? false
    }
}

/// Writes imported objects through the object layer, with its validation.
enum ObjectWriter {
    /// Opens the store at `path` for writing (creating it with `schema` if it holds none), inserts
    /// `objects` and saves them as one atomic batch. Returns the number saved.
    /// - Throws: ``CommandError/failed(_:)`` when another process writes the store; the object
    ///   layer's errors (validation names the entity and attribute).
    static func save(
        _ objects: [(entity: String, values: [String: AttributeValue])], schema: Schema?,
        to path: String
    ) throws -> Int {
        let container: ModelContainer
        do {
            container = try ModelContainer(schema: schema, at: URL(fileURLWithPath: path))
        } catch LogbookError.store(.locked) {
            throw CommandError.failed(
                "the store at \(path) is open for writing by another process; close it there first")
        }
        defer { try? container.close() }
        let context = container.mainContext
        for object in objects {
            try context.insert(entity: object.entity, values: object.values)
        }
        try context.save()
        return objects.count
    }
}
