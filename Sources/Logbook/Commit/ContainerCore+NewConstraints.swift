import LogStore

extension ContainerCore {
    /// Refuses a migration from `old` to `new` that adds a unique constraint the stored objects
    /// break: reads every object of each entity that gains one (through `history`, which holds
    /// `new`), and throws at the first two that share the constrained values, before anything
    /// is written.
    /// - Throws: ``LogbookError/uniqueConstraint(entity:attribute:value:object:existing:)``
    ///   naming both objects (`existing` is the one stored first);
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``; ``LogbookError/store(_:)``.
    /// - Complexity: O(objects of those entities); nothing for a migration that adds none.
    static func checkNewUniqueConstraints(
        from old: Schema, to new: Schema, history: SchemaHistory, store: LogStore
    ) throws {
        for (e, entity) in new.entities.enumerated() {
            guard let before = old.entity(named: entity.name) else { continue }
            let existing = Set(
                IndexDefinition.all(of: before, binding: e).filter(\.isUnique).map(\.names))
            let added = IndexDefinition.all(of: entity, binding: e).filter {
                $0.isUnique && !existing.contains($0.names)
            }
            guard !added.isEmpty else { continue }
            let codec = RecordCodec(entity: entity, schemaVersion: new.version, history: history)
            let fieldCount = entity.storedFields.attributes.count
            var seen = [[[UInt8]: UInt64]](repeating: [:], count: added.count)
            try wrapStoreErrors {
                try store.forEach(in: entity.name) { key, value in
                    guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else { return }
                    var values = [AttributeValue](repeating: .null, count: fieldCount)
                    _ = try codec.decode(value, key: String(pk)) { values[$0] = $1 }
                    for (d, definition) in added.enumerated() {
                        guard let prefix = Self.constrainedKey(definition, values) else { continue }
                        if let first = seen[d].updateValue(pk, forKey: prefix) {
                            let shown = definition.fields.map { values[$0].description }
                            throw LogbookError.uniqueConstraint(
                                entity: entity.name,
                                attribute: definition.names.count == 1
                                    ? definition.names[0]
                                    : "(\(definition.names.joined(separator: ", ")))",
                                value: shown.count == 1
                                    ? shown[0] : "(\(shown.joined(separator: ", ")))",
                                object: PersistentIdentifier(
                                    entityName: entity.name, primaryKey: pk
                                )
                                .description,
                                existing: PersistentIdentifier(
                                    entityName: entity.name, primaryKey: first
                                ).description)
                        }
                    }
                }
            }
        }
    }

    /// The constrained values' key, or `nil` when one is `nil` (such objects never clash).
    private static func constrainedKey(_ definition: IndexDefinition, _ values: [AttributeValue])
        -> [UInt8]?
    {
        var key: [UInt8] = []
        for (f, field) in definition.fields.enumerated() {
            let value = values[field]
            if value.isNull && (f == 0 || !definition.wholeComposite) { return nil }
            IndexKey.append(value, to: &key)
        }
        return key
    }
}
