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
    public func save() throws {
        guard hasChanges else { return }
        if let failure = failures.first { throw failure }
        let container = self.container
        let store = container.store
        try container.saveLock.withLock { _ in
            let changedList = Array(changed.values)
            for backing in changedList {
                if let failure = backing.failure { throw failure }
            }
            for backing in insertedList where backing.state == .inserted {
                if let failure = backing.failure { throw failure }
            }
            try checkUniqueness(changedList)
            try checkDenyRules()
            let refreshed = try resolveConflicts(store)
            var batch = WriteBatch()
            var writer = ByteWriter(capacity: 128)
            var key = [UInt8](repeating: 0, count: 8)
            var insertedEntities = [Bool](repeating: false, count: container.bindings.count)
            var savedEntities = insertedEntities
            func encode(_ backing: ModelBacking) throws {
                let binding = backing.binding
                let object = backing.object
                let attributes = binding.stored.attributes
                var missing: Int? = nil
                writer.bytes.removeAll(keepingCapacity: true)
                binding.codec.encode(objectVersion: backing.version + 1, into: &writer) { i, w in
                    if binding.encodeValue(object, i, &w) { return true }
                    if !attributes[i].isOptional && missing == nil { missing = i }
                    return false
                }
                if let missing {
                    throw LogbookError.missingValue(
                        entity: binding.entity.name, attribute: attributes[missing].name,
                        object: backing.identifier.description)
                }
                setKey(&key, backing.primaryKey)
                batch.put(writer.bytes, for: key, in: binding.keyspace)
                savedEntities[binding.index] = true
            }
            for backing in insertedList where backing.state == .inserted {
                try encode(backing)
                insertedEntities[backing.binding.index] = true
            }
            for backing in changedList where !refreshed.contains(ObjectIdentifier(backing)) {
                try encode(backing)
            }
            for backing in deleted.values {
                setKey(&key, backing.primaryKey)
                batch.delete(key, in: backing.binding.keyspace)
                savedEntities[backing.binding.index] = true
            }
            for (entity, inserted) in insertedEntities.enumerated() where inserted {
                setKey(&key, container.lastPrimaryKey(entity))
                batch.put(
                    key, for: ModelContainer.counterKey(container.bindings[entity].entity.name),
                    in: ModelContainer.metaKeyspace)
            }
            if !batch.isEmpty {
                try wrapStoreErrors { _ = try store.commit(batch) }
            }
            let generation = container.recordSave(
                of: Set(savedEntities.indices.filter { savedEntities[$0] }), saver: serial)
            func didSave(_ backing: ModelBacking) {
                backing.version += 1
                backing.readGeneration = generation
                backing.state = .persisted
                backing.isChanged = false
                backing.snapshot = nil
                backing.pinned = nil
            }
            for backing in insertedList where backing.state == .inserted { didSave(backing) }
            for backing in changedList where !refreshed.contains(ObjectIdentifier(backing)) {
                didSave(backing)
            }
            for backing in deleted.values {
                backing.pinned = nil
                registry[backing.binding.index][backing.primaryKey] = nil
            }
        }
        insertedList.removeAll()
        insertedCount = 0
        changed.removeAll()
        deleted.removeAll()
    }

    @inline(__always)
    private func setKey(_ key: inout [UInt8], _ pk: UInt64) {
        withUnsafeBytes(of: pk.bigEndian) { raw in
            for i in 0..<8 { key[i] = raw[i] }
        }
    }

    /// Compares each changed or deleted object's version with the stored one and applies the
    /// merge policy. Returns the objects refreshed from the store (`.storeWins`), which are no
    /// longer changed and must not be written.
    private func resolveConflicts(_ store: LogStore) throws -> Set<ObjectIdentifier> {
        var refreshed = Set<ObjectIdentifier>()
        var foreign: [Int: UInt64] = [:]
        for backing in Array(changed.values) + Array(deleted.values) {
            let binding = backing.binding
            let latestForeign =
                foreign[binding.index]
                ?? container.latestForeignSave(of: binding.index, saver: serial)
            foreign[binding.index] = latestForeign
            // No other context saved this entity since the object was read: no conflict.
            if backing.readGeneration >= latestForeign { continue }
            let stored = try wrapStoreErrors {
                try store.get(RecordCodec.key(backing.primaryKey), in: binding.keyspace)
            }
            let found =
                stored.flatMap { bytes in
                    bytes.withUnsafeBytes { RecordCodec.objectVersion(of: $0) }
                } ?? 0
            guard found != backing.version else { continue }
            if backing.state == .deleted && stored == nil { continue }
            switch mergePolicy {
            case .error:
                throw LogbookError.conflict(
                    entity: binding.entity.name, object: backing.identifier.description,
                    expectedVersion: backing.version, foundVersion: found)
            case .contextWins:
                backing.version = found
            case .storeWins:
                backing.version = found
                backing.readGeneration = container.saveGeneration
                guard backing.state == .persisted, let stored else { continue }
                try stored.withUnsafeBytes { raw in
                    _ = try binding.codec.decode(raw, key: backing.identifier.description) {
                        i, value in
                        binding.write(backing.object, i, value)
                    }
                }
                backing.isChanged = false
                backing.snapshot = nil
                backing.pinned = nil
                changed[ObjectIdentifier(backing)] = nil
                refreshed.insert(ObjectIdentifier(backing))
            }
        }
        return refreshed
    }

    /// Throws if two objects to be stored share a unique value, or one repeats a value stored
    /// for another object.
    private func checkUniqueness(_ changedList: [ModelBacking]) throws {
        var byEntity: [Int: [ModelBacking]] = [:]
        guard container.bindings.contains(where: { !$0.uniqueAttributes.isEmpty }) else { return }
        for backing in insertedList
        where backing.state == .inserted && !backing.binding.uniqueAttributes.isEmpty {
            byEntity[backing.binding.index, default: []].append(backing)
        }
        for backing in changedList where !backing.binding.uniqueAttributes.isEmpty {
            byEntity[backing.binding.index, default: []].append(backing)
        }
        for (entityIndex, backings) in byEntity {
            let binding = container.bindings[entityIndex]
            for attribute in binding.uniqueAttributes {
                let name = binding.entity.attributes[attribute].name
                var seen: [AttributeValue: UInt64] = [:]
                var writingKeys = Set<UInt64>()
                for backing in backings {
                    writingKeys.insert(backing.primaryKey)
                    let value = binding.read(backing.object, attribute)
                    if value.isNull { continue }
                    if seen.updateValue(backing.primaryKey, forKey: value) != nil {
                        throw LogbookError.uniqueConstraint(
                            entity: binding.entity.name, attribute: name, value: value.description,
                            object: backing.identifier.description)
                    }
                }
                let deletedKeys = Set(
                    deleted.values.filter { $0.binding.index == entityIndex }.map(\.primaryKey))
                try wrapStoreErrors {
                    try container.store.forEach(in: binding.keyspace) { key, value in
                        guard let pk = RecordCodec.primaryKey(key), !writingKeys.contains(pk),
                            !deletedKeys.contains(pk)
                        else { return }
                        var storedValue = AttributeValue.null
                        _ = try binding.codec.decode(value, key: String(pk)) { i, v in
                            if i == attribute { storedValue = v }
                        }
                        if let other = seen[storedValue] {
                            throw LogbookError.uniqueConstraint(
                                entity: binding.entity.name, attribute: name,
                                value: storedValue.description,
                                object: PersistentIdentifier(
                                    entityName: binding.entity.name, primaryKey: other
                                ).description)
                        }
                    }
                }
            }
        }
    }
}
