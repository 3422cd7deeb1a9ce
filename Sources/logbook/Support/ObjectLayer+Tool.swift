import Foundation
import LogStore
import Logbook

// What the tool adds to the object layer's types: reading the schema a store may hold, the
// `--where` filter, and saving imported objects.

extension RecordDecoder {
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
    /// The names of a decoded record's fields: the attributes, then the stored relationships
    /// (``DecodedRecord/attributes``).
    var fieldNames: [String] {
        attributes.map(\.name) + relationships.filter(\.isStored).map(\.name)
    }

    /// The stored fields' descriptions, in record order: the attributes, then each stored
    /// relationship, a to-one as an optional integer (the related object's id), a
    /// many-to-many's links as optional data.
    var storedFieldDescriptions: [AttributeDescription] {
        attributes
            + relationships.filter(\.isStored).map {
                AttributeDescription($0.name, $0.isToMany ? .data : .integer, optional: true)
            }
    }

    /// The stored fields' descriptions: the attributes, then each to-one relationship as an
    /// optional integer (the related object's id).
    var fieldDescriptions: [AttributeDescription] {
        attributes
            + relationships.filter { !$0.isToMany }.map {
                AttributeDescription($0.name, .integer, optional: true)
            }
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
/// commit written in pieces: every few megabytes of input the objects inserted so far are
/// saved into one ``StreamingCommit``, which ``finish(fileSchema:)`` ends. Either every object
/// lands or none does, also if the process dies on the way; memory holds one piece, not the
/// file.
///
/// The store is opened for writing when the first object comes (or at ``finish(fileSchema:)``
/// for a file without objects), so a file that fails before its first object changes nothing.
final class ObjectSaver {
    /// The input bytes and objects after which the inserted objects are saved into the commit;
    /// `LOGBOOK_IMPORT_PIECE` sets the objects (for tests).
    static let pieceBytes = 2 << 20
    static let pieceObjects =
        ProcessInfo.processInfo.environment["LOGBOOK_IMPORT_PIECE"].flatMap { Int($0) }.map {
            max($0, 1)
        } ?? 100_000

    private let path: String
    private let storeHasSchema: Bool
    private var container: ModelContainer?
    private var commit: StreamingCommit?
    private var context: ModelContext?
    /// The keys of the file's objects and references, from the store's open on.
    private var keys: FileKeys?
    private let file: String
    /// The entity of a file of one entity's objects (CSV), or `nil`.
    private let fileEntity: String?
    private var pendingObjects = 0
    private var pendingBytes = 0
    /// Objects inserted so far.
    private(set) var count = 0
    /// What opening the store for writing recovered (a torn tail it cut), once opened.
    private(set) var recovery: RecoveryReport?

    /// A saver into the store at `path` (created if missing), which holds a schema or not, of
    /// the objects of the file named `file`: of `fileEntity` only (a CSV file, whose references
    /// to other entities name objects in the store), or of any entity.
    init(path: String, storeHasSchema: Bool, file: String, fileEntity: String? = nil) {
        self.path = path
        self.storeHasSchema = storeHasSchema
        self.file = file
        self.fileEntity = fileEntity
    }

    deinit { abandon() }

    /// Inserts `object`, read from `bytes` of input; `fileSchema` is the schema a store without
    /// one is created with.
    /// - Throws: ``CommandError/failed(_:)`` when another process writes the store; the object
    ///   layer's errors.
    func insert(_ object: ImportedObject, bytes: Int, fileSchema: Schema?) throws {
        let (context, commit) = try open(fileSchema)
        let (primaryKey, links) = try keys!.keys(of: object)
        let inserted = try context.insert(
            entity: object.entity.name, attributeValues: object.values, primaryKey: primaryKey,
            links: links)
        if primaryKey == nil {
            try keys!.claim(
                inserted.persistentModelID.primaryKey, of: object.entity.name, line: object.line)
        }
        count += 1
        pendingObjects += 1
        pendingBytes += bytes
        if pendingObjects >= Self.pieceObjects || pendingBytes >= Self.pieceBytes {
            try context.save(into: commit)
            // A fresh context for the next piece: the saved objects go with this one.
            if let container { self.context = ModelContext(container) }
            pendingObjects = 0
            pendingBytes = 0
        }
    }

    /// Saves the rest, ends the commit (durably: the store's default) and closes the store;
    /// returns how many objects were saved.
    /// - Throws: as ``insert(_:bytes:fileSchema:)``; the object layer's validation errors; the
    ///   engine's error for a commit that cannot finish.
    func finish(fileSchema: Schema?) throws -> Int {
        let (context, commit) = try open(fileSchema)
        if let container { try keys?.checkReferences { try Self.holds(container, $0, $1) } }
        try context.save(into: commit)
        try wrapped { _ = try commit.finish() }
        self.context = nil
        self.commit = nil
        try container?.close()
        container = nil
        return count
    }

    /// Cancels the commit (nothing inserted lands) and closes the store.
    func abandon() {
        commit?.cancel()
        commit = nil
        context?.rollback()
        context = nil
        try? container?.close()
        container = nil
    }

    private func open(_ fileSchema: Schema?) throws -> (ModelContext, StreamingCommit) {
        if let context, let commit { return (context, commit) }
        let container: ModelContainer
        do {
            // The store's own schema wins; the file's is for a store that has none.
            container = try ModelContainer(
                schema: storeHasSchema ? nil : fileSchema, at: URL(fileURLWithPath: path))
        } catch LogbookError.store(.locked) {
            throw CommandError.failed(
                "the store at \(path) is open for writing by another process; close it there first")
        }
        self.container = container
        recovery = container.store.recovery
        // Before any insert: the hierarchies' last keys the file's keys go after.
        keys = try FileKeys(schema: container.schema, file: file, fileEntity: fileEntity) {
            try container.lastPrimaryKey(of: $0)
        }
        let commit = try wrapped { try container.store.beginCommit() }
        // Not the main context: it autosaves at close, which would land a refused import.
        let context = ModelContext(container)
        self.context = context
        self.commit = commit
        return (context, commit)
    }

    /// Whether `container`'s store holds an object with primary key `key` of `entity` or of an
    /// entity that inherits from it.
    private static func holds(_ container: ModelContainer, _ entity: String, _ key: UInt64)
        throws -> Bool
    {
        let schema = container.schema
        func inherits(_ name: String) -> Bool {
            var next: String? = name
            for _ in 0...schema.entities.count {
                guard let current = next else { return false }
                if current == entity { return true }
                next = schema.entity(named: current)?.superentity
            }
            return false
        }
        for candidate in schema.entities where inherits(candidate.name) {
            let id = PersistentIdentifier(entityName: candidate.name, primaryKey: key)
            if try container.store.get(id.storeKey, in: candidate.name) != nil { return true }
        }
        return false
    }

    /// Runs `body`, reporting the engine's errors as the object layer does.
    private func wrapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as LogStoreError {
            throw LogbookError.store(error)
        }
    }
}
