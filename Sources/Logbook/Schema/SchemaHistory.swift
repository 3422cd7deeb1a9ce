import LogStore

/// Every schema version a store holds; records name the version they were written with, so
/// records from before a migration decode with their own layout.
struct SchemaHistory: Sendable {
    /// Versions by number; empty for a store without a schema.
    private(set) var versions: [UInt32: Schema] = [:]

    /// The newest version, or `nil` for a store without a schema.
    var current: Schema? { versions.keys.max().flatMap { versions[$0] } }

    /// Reads every schema record of `store`.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    static func read(from store: LogStore) throws -> SchemaHistory {
        var history = SchemaHistory()
        try wrapStoreErrors {
            try store.forEach(in: Keyspaces.schema) { key, value in
                guard let version = Keyspaces.schemaVersion(ofKey: key) else {
                    throw LogbookError.corruptRecord(
                        entity: Keyspaces.schema,
                        key: key.map { String($0) }.joined(separator: "."),
                        reason: "a schema key has 4 bytes")
                }
                let schema = try SchemaCodec.decode(value, key: String(version))
                guard schema.version == version else {
                    throw LogbookError.corruptRecord(
                        entity: Keyspaces.schema, key: String(version),
                        reason: "the record says version \(schema.version)")
                }
                history.versions[version] = schema
            }
        }
        return history
    }

    mutating func add(_ schema: Schema) { versions[schema.version] = schema }
}

extension Schema {
    /// The newest schema stored in `store`, or `nil` if the store holds none (not written by
    /// Logbook). This is how tools decode records without the app's classes.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a damaged schema record,
    ///   ``LogbookError/store(_:)`` for engine errors.
    public static func stored(in store: LogStore) throws -> Schema? {
        try SchemaHistory.read(from: store).current
    }

    /// Every schema version stored in `store`, oldest first; empty if the store holds none.
    /// Records name the version they were written with; ``RecordDecoder`` reads every one.
    /// - Throws: as ``stored(in:)``.
    public static func storedVersions(in store: LogStore) throws -> [Schema] {
        try SchemaHistory.read(from: store).versions.sorted { $0.key < $1.key }.map(\.value)
    }
}

/// Runs `body`, turning `LogStoreError` into ``LogbookError/store(_:)``.
@inline(__always) @discardableResult
func wrapStoreErrors<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as LogStoreError { throw LogbookError.store(error) }
}
