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

/// Saves imported objects through the object layer, with its validation, as one atomic
/// commit: either every object inserted lands or none does.
///
/// The store is opened for writing when the first object comes (or at ``finish(fileSchema:)``
/// for a file without objects), so a file that fails before its first object changes nothing.
final class ObjectSaver {
    private let path: String
    private let storeHasSchema: Bool
    private var container: ModelContainer?
    private var context: ModelContext?
    private(set) var count = 0

    /// A saver into the store at `path` (created if missing), which holds a schema or not.
    init(path: String, storeHasSchema: Bool) {
        self.path = path
        self.storeHasSchema = storeHasSchema
    }

    deinit { try? container?.close() }

    /// Inserts `object`; `fileSchema` is the schema a store without one is created with.
    /// - Throws: ``CommandError/failed(_:)`` when another process writes the store; the object
    ///   layer's errors.
    func insert(_ object: ImportedObject, fileSchema: Schema?) throws {
        let context = try open(fileSchema)
        try context.insert(entity: object.entity.name, attributeValues: object.values)
        count += 1
    }

    /// Saves what was inserted and closes the store; returns how many objects were saved.
    /// - Throws: as ``insert(_:fileSchema:)``; the object layer's validation errors.
    func finish(fileSchema: Schema?) throws -> Int {
        try open(fileSchema).save()
        try container?.close()
        container = nil
        return count
    }

    /// Closes the store without saving anything inserted.
    func abandon() {
        context = nil
        try? container?.close()
        container = nil
    }

    private func open(_ fileSchema: Schema?) throws -> ModelContext {
        if let context { return context }
        do {
            // The store's own schema wins; the file's is for a store that has none.
            container = try ModelContainer(
                schema: storeHasSchema ? nil : fileSchema, at: URL(fileURLWithPath: path))
        } catch LogbookError.store(.locked) {
            throw CommandError.failed(
                "the store at \(path) is open for writing by another process; close it there first")
        }
        let context = container!.mainContext
        self.context = context
        return context
    }
}
