import LogStore

extension ContainerCore {
    /// Gives the objects of the entities that join a hierarchy in the migration from `old` to
    /// `new` keys of that hierarchy's one sequence (FORMAT.md Part 2, "Joining a hierarchy"),
    /// adding the rewrite to `batch`, the migration's one commit.
    ///
    /// An entity joins when its hierarchy's top entity changes: a class that gains a superclass
    /// among the model's classes, as a store written before inheritance holds `Dog` and
    /// `Animal` as two unrelated entities, each with its own keys. Its objects, in key order,
    /// take the next keys of the new top's sequence; every stored reference to them (to-one
    /// keys and link lists, in any entity) is rewritten to the new keys, and a reference to an
    /// object that no longer exists is dropped (it could name a new key). Values, object
    /// versions and other entities' keys are kept. The save records before the commit name the
    /// old keys, so the store's history restarts after it, as after a custom migration.
    /// - Throws: ``LogbookError/incompatibleSchema(entity:attribute:reason:)`` for a store that
    ///   syncs with PostgreSQL (its replica names the old keys);
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``; ``LogbookError/store(_:)``.
    /// - Returns: the history's new start (`historySince`), or `nil` when no entity joins.
    /// - Complexity: O(records of the joining entities and of the entities that refer to
    ///   them); nothing when no entity joins a hierarchy.
    static func joinHierarchies(
        from old: Schema, to new: Schema, history: SchemaHistory, store: LogStore,
        writing batch: inout WriteBatch
    ) throws -> UInt64? {
        let oldRoots = Dictionary(
            uniqueKeysWithValues: old.entities.indices.map {
                (old.entities[$0].name, old.entities[old.hierarchyRoot(of: $0)].name)
            })
        let newRoots = Dictionary(
            uniqueKeysWithValues: new.entities.indices.map {
                (new.entities[$0].name, new.entities[new.hierarchyRoot(of: $0)].name)
            })
        let joining = new.entities.map(\.name).filter { name in
            oldRoots[name].map { $0 != newRoots[name] } ?? false
        }
        guard let first = joining.first else { return nil }
        return try wrapStoreErrors {
            if try store.keyspaces().contains(SyncRecords.keyspace) {
                throw LogbookError.incompatibleSchema(
                    entity: first, attribute: nil,
                    reason:
                        "it joins the hierarchy of \(newRoots[first] ?? first), which gives its objects new keys, and the store syncs with PostgreSQL under the old ones"
                )
            }
            // The last key of each new sequence: the largest counter of its members.
            var last: [String: UInt64] = [:]
            for entity in old.entities {
                let stored = try store.get(Keyspaces.counterKey(entity.name), in: Keyspaces.meta)
                let counter = stored.flatMap(Keyspaces.number(ofValue:)) ?? 0
                let root = newRoots[entity.name] ?? entity.name
                last[root] = max(last[root] ?? 0, counter)
            }
            // Old key → new key, by the joining entities' old hierarchy (keys are unique in it).
            var renumbered: [String: [UInt64: UInt64]] = [:]
            for name in joining {
                var keys: [UInt64] = []
                try store.forEach(in: name) { key, _ in
                    if let pk = Keyspaces.primaryKey(ofObjectKey: key) { keys.append(pk) }
                }
                let root = newRoots[name] ?? name
                for pk in keys.sorted() {
                    last[root, default: 0] += 1
                    renumbered[oldRoots[name] ?? name, default: [:]][pk] = last[root]
                }
            }
            for name in Set(joining.compactMap { newRoots[$0] }).sorted() {
                batch.put(
                    Keyspaces.numberValue(last[name] ?? 0), for: Keyspaces.counterKey(name),
                    in: Keyspaces.meta)
            }
            for entity in new.entities where oldRoots[entity.name] != nil {
                try rewrite(
                    entity, moving: joining.contains(entity.name), renumbered: renumbered,
                    joining: Set(joining), oldRoots: oldRoots, version: new.version,
                    history: history, store: store, batch: &batch)
            }
            // History starts after the last commit before the migration's (which is no save).
            let since = store.lastSequence
            batch.put(
                Keyspaces.numberValue(since), for: Keyspaces.historySinceKey, in: Keyspaces.meta)
            return since
        }
    }

    /// Adds to `batch` the records of `entity` that change: under their new keys if it is
    /// `moving`, with their references to objects of `joining` entities renumbered.
    private static func rewrite(
        _ entity: Entity, moving: Bool, renumbered: [String: [UInt64: UInt64]],
        joining: Set<String>, oldRoots: [String: String], version: UInt32,
        history: SchemaHistory, store: LogStore, batch: inout WriteBatch
    ) throws {
        let attributeCount = entity.attributes.count
        // The stored relationships to joining entities, with their field and key map.
        let references: [(field: Int, toMany: Bool, keys: [UInt64: UInt64])] =
            entity.storedRelationships.enumerated().compactMap { r, relationship in
                guard joining.contains(relationship.destination) else { return nil }
                let root = oldRoots[relationship.destination] ?? relationship.destination
                return (attributeCount + r, relationship.isToMany, renumbered[root] ?? [:])
            }
        guard moving || !references.isEmpty else { return }
        let own = renumbered[oldRoots[entity.name] ?? entity.name] ?? [:]
        let codec = RecordCodec(entity: entity, schemaVersion: version, history: history)
        let fieldCount = entity.storedFields.attributes.count
        var writer = ByteWriter()
        try store.forEach(in: entity.name) { key, value in
            guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else { return }
            let target = moving ? own[pk] ?? pk : pk
            if moving { batch.delete([UInt8](key), in: entity.name) }
            guard !references.isEmpty else {
                batch.put([UInt8](value), for: Keyspaces.objectKey(target), in: entity.name)
                return
            }
            var values = [AttributeValue](repeating: .null, count: fieldCount)
            let objectVersion = try codec.decode(value, key: String(pk)) { values[$0] = $1 }
            for reference in references {
                let value = values[reference.field]
                if reference.toMany {
                    let keys = LinkList.keys(value) ?? []
                    values[reference.field] = LinkList.value(keys.compactMap { reference.keys[$0] })
                } else if case .integer(let key) = value {
                    values[reference.field] =
                        reference.keys[UInt64(bitPattern: key)].map {
                            .integer(Int64(bitPattern: $0))
                        } ?? .null
                }
            }
            writer.bytes.removeAll(keepingCapacity: true)
            codec.encode(objectVersion: objectVersion, into: &writer) { i, w in
                if values[i].isNull { return false }
                w.value(values[i], as: codec.shape(i))
                return true
            }
            batch.put(writer.bytes, for: Keyspaces.objectKey(target), in: entity.name)
        }
    }
}
