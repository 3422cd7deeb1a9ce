import LogStore

extension ModelContext {
    /// Writes every pending insert, change and delete as one atomic commit, then clears them.
    ///
    /// Before writing it validates (required values, types, unique attributes, failed
    /// key-value writes) and checks that no other context saved a changed or deleted object
    /// since this one read it (see ``mergePolicy``). If it throws, nothing of this save is in
    /// the store and the context still holds every change. Durable when it returns (with the
    /// store's default `.sync` durability).
    /// - Throws: ``LogbookError/missingValue(entity:attribute:object:)``,
    ///   ``LogbookError/typeMismatch(entity:attribute:expected:found:)``,
    ///   ``LogbookError/uniqueConstraint(entity:attribute:value:object:)``,
    ///   ``LogbookError/conflict(entity:object:expectedVersion:foundVersion:)``,
    ///   ``LogbookError/unknownEntity(_:)``, ``LogbookError/store(_:)``.
    /// - Complexity: O(pending objects), plus a scan of each entity with unique attributes.
    public func save() throws { try save(appendingTo: nil) }

    /// ``save()``, with the batch appended to `commit` instead of committed on its own
    /// (``save(into:)``).
    func save(appendingTo commit: StreamingCommit?) throws {
        guard hasChanges else { return }
        if let failure = failures.first { throw failure }
        let core = self.core
        try core.saveLock.withLock { _ in
            for e in table.inserted where table.entries[Int(e)].state == .inserted {
                if let failure = table.failures[e] { throw failure }
            }
            for e in table.changed where table.entries[Int(e)].isChanged {
                if let failure = table.failures[e] { throw failure }
            }
            try checkUniqueness()
            try checkDenyRules()
            try resolveConflicts(core.store)
            // Staged inserts are already encoded: the save appends the rest to their batch, and
            // gives it back as it was if the save fails.
            var batch = table.takeStaged()
            let staged = batch.mark()
            do {
                try write(into: &batch, appendingTo: commit)
            } catch {
                batch.truncate(to: staged)
                table.restoreStaged(batch)
                throw error
            }
        }
    }

    /// Appends every pending change to `batch`, commits it (or appends it to `commit`), and
    /// records the save.
    private func write(into batch: inout WriteBatch, appendingTo commit: StreamingCommit?) throws {
        var writer = ByteWriter(capacity: 128)
        var savedEntities = [Bool](repeating: false, count: core.bindings.count)
        var insertedEntities = table.stagedCount.map { $0 > 0 }
        for e in table.inserted where table.entries[Int(e)].state == .inserted {
            try encode(e, into: &batch, &writer)
            insertedEntities[Int(table.entries[Int(e)].entity)] = true
        }
        for e in table.changed where table.entries[Int(e)].isChanged {
            try encode(e, into: &batch, &writer)
            savedEntities[Int(table.entries[Int(e)].entity)] = true
        }
        for e in table.deleted where table.entries[Int(e)].state == .deleted {
            let entry = table.entries[Int(e)]
            RecordCodec.withKey(entry.primaryKey) { key in
                batch.delete(key, in: core.bindings[Int(entry.entity)].keyspace)
            }
            savedEntities[Int(entry.entity)] = true
        }
        for (entity, inserted) in insertedEntities.enumerated() where inserted {
            savedEntities[entity] = true
            batch.put(
                RecordCodec.key(core.lastPrimaryKey(entity)),
                for: ContainerCore.counterKey(core.bindings[entity].entity.name),
                in: ContainerCore.metaKeyspace)
        }
        if !batch.isEmpty {
            try wrapStoreErrors {
                if let commit { try commit.append(batch) } else { _ = try core.store.commit(batch) }
            }
        }
        let generation = core.recordSave(
            of: Set(savedEntities.indices.filter { savedEntities[$0] }), saver: serial)
        table.didSave(generation: generation)
    }

    /// Appends the record of entry `e` (the next object version) to `batch`.
    /// - Throws: ``LogbookError/missingValue(entity:attribute:object:)``.
    @inline(__always)
    private func encode(_ e: Int32, into batch: inout WriteBatch, _ writer: inout ByteWriter)
        throws
    {
        let entry = table.entries[Int(e)]
        let binding = core.bindings[Int(entry.entity)]
        // Invariant: entries on the pending lists hold their object.
        try encodeRecord(
            of: table.objects[Int(e)].unsafelyUnwrapped, binding, pk: entry.primaryKey,
            version: entry.version + 1, into: &writer)
        writer.bytes.withUnsafeBytes { value in
            RecordCodec.withKey(entry.primaryKey) { key in
                batch.put(value, for: key, in: binding.keyspace)
            }
        }
    }

    /// Compares each changed or deleted object's version with the stored one and applies the
    /// merge policy. Objects refreshed from the store (`.storeWins`) are no longer changed.
    private func resolveConflicts(_ store: LogStore) throws {
        var foreign: [Int: UInt64] = [:]
        let pending =
            table.changed.filter { table.entries[Int($0)].isChanged }
            + table.deleted.filter { table.entries[Int($0)].state == .deleted }
        for e in pending {
            let entry = table.entries[Int(e)]
            let binding = core.bindings[Int(entry.entity)]
            let latestForeign =
                foreign[binding.index]
                ?? core.latestForeignSave(of: binding.index, saver: serial)
            foreign[binding.index] = latestForeign
            // No other context saved this entity since the object was read: no conflict.
            if entry.readGeneration >= latestForeign { continue }
            let stored = try wrapStoreErrors {
                try store.get(RecordCodec.key(entry.primaryKey), in: binding.keyspace)
            }
            let found =
                stored.flatMap { bytes in
                    bytes.withUnsafeBytes { RecordCodec.objectVersion(of: $0) }
                } ?? 0
            guard found != entry.version else { continue }
            if entry.state == .deleted && stored == nil { continue }
            let id = PersistentIdentifier(
                entityName: binding.entity.name, primaryKey: entry.primaryKey)
            switch mergePolicy {
            case .error:
                throw LogbookError.conflict(
                    entity: binding.entity.name, object: id.description,
                    expectedVersion: entry.version, foundVersion: found)
            case .contextWins:
                table.entries[Int(e)].version = found
            case .storeWins:
                table.entries[Int(e)].version = found
                table.entries[Int(e)].readGeneration = core.saveGeneration
                guard entry.state == .persisted, let stored,
                    let object = table.objects[Int(e)]
                else { continue }
                try stored.withUnsafeBytes { raw in
                    _ = try binding.codec.decode(raw, key: id.description) { i, value in
                        binding.write(object, i, value)
                    }
                }
                table.markClean(e)
            }
        }
    }

    /// Throws if two objects to be stored share a unique value, or one repeats a value stored
    /// for another object.
    private func checkUniqueness() throws {
        guard core.bindings.contains(where: { !$0.uniqueAttributes.isEmpty }) else { return }
        var byEntity: [Int: [Int32]] = [:]
        for e in table.inserted where table.entries[Int(e)].state == .inserted {
            let entity = Int(table.entries[Int(e)].entity)
            if !core.bindings[entity].uniqueAttributes.isEmpty {
                byEntity[entity, default: []].append(e)
            }
        }
        for e in table.changed where table.entries[Int(e)].isChanged {
            let entity = Int(table.entries[Int(e)].entity)
            if !core.bindings[entity].uniqueAttributes.isEmpty {
                byEntity[entity, default: []].append(e)
            }
        }
        for (entity, entries) in byEntity.sorted(by: { $0.key < $1.key }) {
            let binding = core.bindings[entity]
            var excluded = Set(
                table.deleted.filter {
                    table.entries[Int($0)].state == .deleted
                        && Int(table.entries[Int($0)].entity) == entity
                }.map { table.entries[Int($0)].primaryKey })
            let candidates = entries.compactMap { e -> (pk: UInt64, values: [AttributeValue])? in
                guard let object = table.objects[Int(e)] else { return nil }
                return (
                    table.entries[Int(e)].primaryKey,
                    binding.uniqueAttributes.map { binding.read(object, $0) }
                )
            }
            excluded.formUnion(candidates.map(\.pk))
            try checkUnique(binding, candidates, excluding: excluded)
        }
    }

    /// Throws if two of `candidates` (a primary key with the values of the entity's unique
    /// attributes, in `uniqueAttributes` order) share a value, or one repeats the value of a
    /// stored object not in `excluding`.
    /// - Throws: ``LogbookError/uniqueConstraint(entity:attribute:value:object:)``.
    func checkUnique(
        _ binding: EntityBinding, _ candidates: [(pk: UInt64, values: [AttributeValue])],
        excluding: Set<UInt64>
    ) throws {
        guard !binding.uniqueAttributes.isEmpty, !candidates.isEmpty else { return }
        let entity = binding.entity.name
        for (u, attribute) in binding.uniqueAttributes.enumerated() {
            let name = binding.entity.attributes[attribute].name
            var seen: [AttributeValue: UInt64] = [:]
            for candidate in candidates where !candidate.values[u].isNull {
                if seen.updateValue(candidate.pk, forKey: candidate.values[u]) != nil {
                    throw LogbookError.uniqueConstraint(
                        entity: entity, attribute: name, value: candidate.values[u].description,
                        object: PersistentIdentifier(entityName: entity, primaryKey: candidate.pk)
                            .description)
                }
            }
            try wrapStoreErrors {
                try core.store.forEach(in: binding.keyspace) { key, value in
                    guard let pk = RecordCodec.primaryKey(key), !excluding.contains(pk) else {
                        return
                    }
                    var storedValue = AttributeValue.null
                    _ = try binding.codec.decode(value, key: String(pk)) { i, v in
                        if i == attribute { storedValue = v }
                    }
                    if let other = seen[storedValue] {
                        throw LogbookError.uniqueConstraint(
                            entity: entity, attribute: name, value: storedValue.description,
                            object: PersistentIdentifier(entityName: entity, primaryKey: other)
                                .description)
                    }
                }
            }
        }
    }
}
