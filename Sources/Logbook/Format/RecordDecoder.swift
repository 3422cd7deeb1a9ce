import LogStore

/// One object record decoded with the store's own schema.
public struct DecodedRecord: Sendable, Hashable {
    /// The object's identifier.
    public let id: PersistentIdentifier
    /// The object version (how many times it was saved).
    public let version: UInt64
    /// Stored fields in order: the attributes, then each to-one relationship under its name,
    /// holding the destination's primary key as an integer (or `null`).
    public let attributes: [(name: String, value: AttributeValue)]

    /// The values by attribute name (what ``StringPredicate/evaluate(_:)`` takes).
    public var values: [String: AttributeValue] {
        Dictionary(attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.id == b.id && a.version == b.version
            && a.attributes.elementsEqual(b.attributes) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(version)
    }
}

/// Decodes the records of a store with the schema stored in it — no app classes needed. This
/// is how the `logbook` tool reads objects.
///
/// Immutable, `Sendable`.
public struct RecordDecoder: Sendable {
    /// The store's newest schema.
    public let schema: Schema
    /// Per entity, its codec and its stored fields' names with their initial values (each
    /// decoded record starts as a copy).
    let codecs: [String: (codec: RecordCodec, fields: [(name: String, value: AttributeValue)])]

    /// Reads the schema (every version) stored in `store`.
    /// - Throws: ``LogbookError/invalidSchema(_:)`` if the store holds no schema,
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    public init(store: LogStore) throws {
        let history = try SchemaHistory.read(from: store)
        guard let current = history.current else {
            throw LogbookError.invalidSchema("the store at \(store.path) holds no Logbook schema")
        }
        schema = current
        var codecs: [String: (RecordCodec, [(name: String, value: AttributeValue)])] = [:]
        for entity in current.entities {
            let codec = RecordCodec(
                entity: entity, schemaVersion: current.version, history: history)
            codecs[entity.name] = (
                codec, codec.entity.attributes.map { ($0.name, $0.initialValue) }
            )
        }
        self.codecs = codecs
    }

    /// The object version an object record holds (how many times the object was saved),
    /// read without decoding the record; `nil` if the record is too short to hold one.
    public static func objectVersion(ofRecord value: UnsafeRawBufferPointer) -> UInt64? {
        RecordCodec.objectVersion(of: value)
    }

    /// Whether `keyspace` holds object records (an entity's), as opposed to `logbook.` ones.
    public func isEntityKeyspace(_ keyspace: String) -> Bool { codecs[keyspace] != nil }

    /// Decodes the record under `key` in the entity keyspace `keyspace`.
    /// - Throws: ``LogbookError/unknownEntity(_:)`` for a keyspace that is no entity's,
    ///   ``LogbookError/corruptRecord(entity:key:reason:)`` for a record that does not decode.
    public func decode(keyspace: String, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
        throws
        -> DecodedRecord
    {
        var attributes = codecs[keyspace]?.fields ?? []
        let (pk, version) = try decodeFields(keyspace: keyspace, key: key, value: value) { i, v in
            attributes[i].value = v
        }
        return DecodedRecord(
            id: PersistentIdentifier(entityName: keyspace, primaryKey: pk), version: version,
            attributes: attributes)
    }

    /// Decodes the record under `key` in the entity keyspace `keyspace` field by field, without
    /// building a ``DecodedRecord``: calls `field` with each stored field's position (as in
    /// ``DecodedRecord/attributes``) and value, in order. For tools that write records out as
    /// they read them.
    /// - Returns: the object's primary key and version.
    /// - Throws: as ``decode(keyspace:key:value:)-(_,UnsafeRawBufferPointer,_)``.
    public func decodeFields(
        keyspace: String, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
        _ field: (Int, AttributeValue) -> Void
    ) throws -> (primaryKey: UInt64, version: UInt64) {
        guard let (codec, fields) = codecs[keyspace] else {
            throw LogbookError.unknownEntity(keyspace)
        }
        guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else {
            throw LogbookError.corruptRecord(
                entity: keyspace, key: key.map { String($0, radix: 16) }.joined(),
                reason: "a key has 8 bytes")
        }
        if let version = try codec.decodeCurrent(
            value, primaryKey: pk, field: { i, r in field(i, try r.value(codec.shape(i))) },
            null: { field($0, .null) })
        {
            return (pk, version)
        }
        // A record of an older version that only lacks the last fields (a store migrated
        // lightweight and not compacted since): read in place too.
        if let version = try codec.decodePrefix(
            value, primaryKey: pk, field: { i, r in field(i, try r.value(codec.shape(i))) },
            null: { field($0, .null) }, missing: field)
        {
            return (pk, version)
        }
        if let version = try codec.decodeInFieldOrder(value, primaryKey: pk, field) {
            return (pk, version)
        }
        // An older schema version's record: its fields come in its own order, so collect them.
        var values = fields.map(\.value)
        let version = try codec.decode(value, key: String(pk)) { i, v in values[i] = v }
        for (i, value) in values.enumerated() { field(i, value) }
        return (pk, version)
    }

    /// What compaction rewrites object records with so that each is written in the store's
    /// newest schema version, as a container's compaction does (FORMAT.md Part 2, "Object
    /// records"): for tools that compact a store without the app's model.
    package var recordUpgrader: any CompactionRewriter {
        RecordUpgrader(codecs.values.map(\.codec))
    }

    /// A check of the records of the entity keyspace `keyspace` (`nil` for a keyspace that is
    /// no entity's), for tools that check a store record by record: the function throws what
    /// ``decode(keyspace:key:value:)-(_,UnsafeRawBufferPointer,_)`` throws for a record that does
    /// not decode, without building its values, and returns whether the record holds a to-one
    /// relationship that is not `null`.
    package func checker(forKeyspace keyspace: String) -> (
        (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    )? {
        guard let codec = codecs[keyspace]?.codec else { return nil }
        return { key, value in
            guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else {
                throw LogbookError.corruptRecord(
                    entity: keyspace, key: key.map { String($0, radix: 16) }.joined(),
                    reason: "a key has 8 bytes")
            }
            return try codec.check(value, key: String(pk))
        }
    }

    /// Decodes a record given as arrays.
    /// - Throws: as ``decode(keyspace:key:value:)-(_,UnsafeRawBufferPointer,_)``.
    public func decode(keyspace: String, key: [UInt8], value: [UInt8]) throws -> DecodedRecord {
        try key.withUnsafeBytes { k in
            try value.withUnsafeBytes { v in try decode(keyspace: keyspace, key: k, value: v) }
        }
    }

    /// Every record of `entity`, in primary-key order.
    /// - Throws: as ``decode(keyspace:key:value:)-(_,UnsafeRawBufferPointer,_)``, ``LogbookError/store(_:)``.
    public func records(of entity: String, in store: LogStore) throws -> [DecodedRecord] {
        var result: [DecodedRecord] = []
        try wrapStoreErrors {
            try store.forEach(in: entity) { key, value in
                result.append(try decode(keyspace: entity, key: key, value: value))
            }
        }
        return result.sorted { $0.id.primaryKey < $1.id.primaryKey }
    }
}
