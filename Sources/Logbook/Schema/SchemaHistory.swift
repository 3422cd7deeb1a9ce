import LogStore

/// Every schema version a store holds; records name the version they were written with, so
/// records from before a migration decode with their own layout.
struct SchemaHistory: Sendable {
    /// Versions by number; empty for a store without a schema.
    private(set) var versions: [UInt32: Schema] = [:]
    /// The fields each version renamed (``FieldRename``), by version.
    private(set) var renames: [UInt32: [FieldRename]] = [:]

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
            for version in history.versions.keys {
                let key = Keyspaces.renamesKey(version: version)
                guard let bytes = try store.get(key, in: Keyspaces.meta) else { continue }
                history.renames[version] = try FieldRename.decode(bytes, version: version)
            }
        }
        return history
    }

    /// Whether some version up to `version` renamed, removed, widened or made required a field
    /// of the version before it: records older than that change decode only through it, so the
    /// schema records from there on are written in format 4, which older readers refuse
    /// (FORMAT.md Part 2, "Versioning rule").
    func changesFields(through version: UInt32) -> Bool {
        let numbers = versions.keys.filter { $0 <= version }.sorted()
        return zip(numbers, numbers.dropFirst()).contains { older, newer in
            versions[newer]!.changesFields(of: versions[older]!, renames: renames[newer] ?? [])
        }
    }

    mutating func add(_ schema: Schema, renames: [FieldRename] = []) {
        versions[schema.version] = schema
        if !renames.isEmpty { self.renames[schema.version] = renames }
    }

    /// The name in version `target` of the field `entity` called `name` in version `version`:
    /// the renames of the versions after `version`, up to `target`, applied in order; `nil` if a
    /// version in between does not have the field (it was removed, and perhaps added anew:
    /// then it is another field, whose values older records do not hold).
    func name(of name: String, in entity: String, from version: UInt32, to target: UInt32)
        -> String?
    {
        guard version < target else { return name }
        var name = name
        for v in versions.keys.sorted() where v > version && v <= target {
            if let rename = renames[v]?.first(where: { $0.entity == entity && $0.from == name }) {
                name = rename.to
            }
            guard let described = versions[v]?.entity(named: entity),
                described.attributeIndex(name) != nil
                    || described.relationship(named: name).map({ !$0.isToMany }) == true
            else { return nil }
        }
        return name
    }
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
