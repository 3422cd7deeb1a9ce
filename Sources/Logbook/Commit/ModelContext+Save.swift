import Foundation
import LogStore

extension ModelContext {
    /// Writes every pending insert, change and delete as one atomic commit, then clears them.
    ///
    /// Before writing it validates (required values, types, unique attributes, failed
    /// key-value writes) and checks that no other context saved a changed or deleted object
    /// since this one read it (see ``mergePolicy``). If it throws, nothing of this save is in
    /// the store and the context still holds every change — except when only the final sync
    /// fails (`LogbookError.store` with `io` or `writesDisabled`): the save is then visible in
    /// this process, its changes are cleared, and the store takes no more writes until reopened.
    /// Durable when it returns (with the store's default `.sync` durability).
    ///
    /// Saves of several contexts are ordered under the container's save lock and share their
    /// `fdatasync`s: a save is visible to other contexts, indexes and observers as soon as it is
    /// ordered, before it is durable (what a power loss then keeps is a prefix of the saves, with
    /// every acknowledged one). Inside a ``transaction(_:)`` block it does nothing: the
    /// transaction saves at its end.
    /// - Throws: ``LogbookError/missingValue(entity:attribute:object:)``,
    ///   ``LogbookError/typeMismatch(entity:attribute:expected:found:)``,
    ///   ``LogbookError/uniqueConstraint(entity:attribute:value:object:existing:)``,
    ///   ``LogbookError/conflict(entity:object:expectedVersion:foundVersion:)``,
    ///   ``LogbookError/unknownEntity(_:)``, ``LogbookError/store(_:)``.
    /// - Complexity: O(pending objects), plus a scan of each entity with unique attributes.
    public func save() throws { try save(appendingTo: nil) }

    /// ``save()``, with the batch appended to `commit` instead of committed on its own
    /// (``save(into:)``).
    func save(appendingTo commit: StreamingCommit?) throws {
        guard hasChanges, !savesDeferredByTransaction else { return }
        if let past = core.pastState { throw LogbookError.pastStateIsReadOnly(token: past.token) }
        if let failure = failures.first { throw failure }
        let core = self.core
        let committed = try core.saveLock.withLock { _ -> UInt64? in
            if !table.failures.isEmpty {
                for e in table.inserted where table[e].state == .inserted {
                    if let failure = table.failures[e] { throw failure }
                }
                for e in table.changed where table[e].isChanged {
                    if let failure = table.failures[e] { throw failure }
                }
            }
            try applyUpserts()
            try checkUniqueness()
            try checkDenyRules()
            try resolveConflicts(core.store)
            // Staged inserts are already encoded: the save appends the rest to their batch, and
            // gives it back as it was if the save fails.
            var batch = table.takeStaged()
            let staged = batch.mark()
            do {
                return try write(into: &batch, appendingTo: commit)
            } catch {
                batch.truncate(to: staged)
                table.restoreStaged(batch)
                throw error
            }
        }
        // Outside the lock: other contexts' saves are ordered behind this one meanwhile, and
        // share its fdatasync.
        try core.awaitDurable(committed)
    }

    /// Appends every pending change to `batch`, commits it (or appends it to `commit`), and
    /// records the save. Returns the sequence number whose durability the save still awaits
    /// (``ContainerCore/commitOrdered(_:)``), if any.
    private func write(into batch: inout WriteBatch, appendingTo commit: StreamingCommit?) throws
        -> UInt64?
    {
        var committed: UInt64?
        var writer = ByteWriter(capacity: 128)
        var savedEntities = [Bool](repeating: false, count: core.bindings.count)
        var insertedEntities = table.stagedCount.map { $0 > 0 }
        // A large save makes room in the batch once, from its first record's size (an eighth
        // more, at most `presizeLimit` bytes), instead of regrowing it as it goes.
        var unsized = table.inserted.count + table.changed.count > Self.presizedSave
        @inline(__always) func presize(after start: Int, records: Int) {
            guard unsized else { return }
            unsized = false
            let estimate = (batch.encodedBytes - start) * records / 8 * 9
            batch.reserveCapacity(forMoreBytes: min(estimate, Self.presizeLimit))
        }
        for (n, e) in table.inserted.enumerated() where table[e].state == .inserted {
            let start = batch.encodedBytes
            try encode(e, into: &batch, &writer)
            presize(after: start, records: table.inserted.count - n + table.changed.count)
            insertedEntities[Int(table[e].entity)] = true
        }
        var save = SaveRecord(time: Date(), author: author)
        for (n, e) in table.changed.enumerated() where table[e].isChanged {
            let start = batch.encodedBytes
            try encode(e, into: &batch, &writer)
            presize(after: start, records: table.changed.count - n)
            save.updated(fields: table[e].changedSlots)
            savedEntities[Int(table[e].entity)] = true
        }
        for e in table.deleted where table[e].state == .deleted {
            let entry = table[e]
            Keyspaces.withObjectKey(entry.primaryKey) { key in
                batch.delete(key, in: core.bindings[Int(entry.entity)].keyspace)
            }
            savedEntities[Int(entry.entity)] = true
        }
        var countersWritten = Set<Int>()
        for (entity, inserted) in insertedEntities.enumerated() where inserted {
            savedEntities[entity] = true
            // A hierarchy's keys are one sequence, its root's.
            let root = core.keyRoots[entity]
            guard countersWritten.insert(root).inserted else { continue }
            batch.put(
                Keyspaces.numberValue(core.lastPrimaryKey(root)),
                for: Keyspaces.counterKey(core.bindings[root].entity.name),
                in: Keyspaces.meta)
        }
        if !batch.isEmpty {
            batch.put(save.encoded(), for: Keyspaces.saveKey, in: Keyspaces.history)
            if let commit {
                // Not visible until the commit ends: the indexes and observers do not follow it.
                core.indexes.stopPersisting()
                try wrapStoreErrors { try commit.append(batch) }
            } else {
                committed = try core.commitOrdered(batch)
            }
        }
        let generation = core.recordSave(
            of: Set(savedEntities.indices.filter { savedEntities[$0] }), saver: serial)
        table.didSave(generation: generation)
        return committed
    }

    /// Pending objects above which a save sizes its batch from its first record.
    static let presizedSave = 1_024
    /// The most a save reserves from that estimate (a first record much larger than the others
    /// would otherwise reserve far more than the batch needs).
    static let presizeLimit = 1 << 28

    /// Appends the record of entry `e` (the next object version) to `batch`.
    /// - Throws: ``LogbookError/missingValue(entity:attribute:object:)``.
    @inline(__always)
    private func encode(_ e: Int32, into batch: inout WriteBatch, _ writer: inout ByteWriter)
        throws
    {
        // Invariant: a changed object is not partial (its first change faulted it in).
        assert(!table[e].isPartial)
        let entry = table[e]
        let binding = core.bindings[Int(entry.entity)]
        // Invariant: entries on the pending lists hold their object.
        try encodeRecord(
            of: table.objects[Int(e)].unsafelyUnwrapped, binding, pk: entry.primaryKey,
            version: entry.version + 1, into: &writer)
        writer.bytes.withUnsafeBytes { value in
            Keyspaces.withObjectKey(entry.primaryKey) { key in
                batch.put(value, for: key, in: binding.keyspace)
            }
        }
    }

    /// Compares each changed or deleted object's version with the stored one and applies the
    /// merge policy. Objects refreshed from the store (`.storeWins`) are no longer changed.
    private func resolveConflicts(_ store: LogStore) throws {
        // Per entity, the newest save by another context (read once, under the save lock).
        var foreign = [UInt64?](repeating: nil, count: core.bindings.count)
        for e in table.changed where table[e].isChanged {
            try resolveConflict(e, store, &foreign)
        }
        for e in table.deleted where table[e].state == .deleted {
            try resolveConflict(e, store, &foreign)
        }
    }

    /// Compares entry `e`'s version with the stored one, if another context saved its entity
    /// since the object was read, and applies the merge policy.
    @inline(__always)
    private func resolveConflict(_ e: Int32, _ store: LogStore, _ foreign: inout [UInt64?])
        throws
    {
        let entry = table[e]
        let entity = Int(entry.entity)
        let latestForeign: UInt64
        if let known = foreign[entity] {
            latestForeign = known
        } else {
            latestForeign = core.latestForeignSave(of: entity, saver: serial)
            foreign[entity] = latestForeign
        }
        // No other context saved this entity since the object was read: no conflict.
        if entry.readGeneration >= latestForeign { return }
        try resolveStoredConflict(e, store)
    }

    /// The slow half of ``resolveConflict(_:_:_:)``: reads the stored version.
    private func resolveStoredConflict(_ e: Int32, _ store: LogStore) throws {
        let entry = table[e]
        let binding = core.bindings[Int(entry.entity)]
        let stored = try wrapStoreErrors {
            try store.get(Keyspaces.objectKey(entry.primaryKey), in: binding.keyspace)
        }
        let found =
            stored.flatMap { bytes in
                bytes.withUnsafeBytes { RecordCodec.objectVersion(of: $0) }
            } ?? 0
        guard found != entry.version else { return }
        if entry.state == .deleted && stored == nil { return }
        let id = PersistentIdentifier(
            entityName: binding.entity.name, primaryKey: entry.primaryKey)
        switch mergePolicy {
        case .error:
            throw LogbookError.conflict(
                entity: binding.entity.name, object: id.description,
                expectedVersion: entry.version, foundVersion: found)
        case .contextWins:
            // Over a deletion the object is stored again, one version past the one read, so
            // that a context that read it before the deletion still sees a conflict.
            if stored != nil { table[e].version = found }
        case .storeWins:
            table[e].version = found
            table[e].readGeneration = core.saveGeneration
            try takeStoredState(e, stored, binding, id)
        }
    }

    /// Throws if two objects to be stored share the values of a unique constraint, or one
    /// repeats those of a stored object this save does not rewrite. Answered by the unique
    /// indexes: O(log n) per object whose constrained values change, never a scan.
    private func checkUniqueness() throws {
        let indexes = core.indexes
        for binding in core.bindings where indexes.hasUniqueConstraints(binding.index) {
            let entity32 = Int32(binding.index)
            var objects: [(pk: UInt64, changedSlots: UInt64, object: AnyObject)] = []
            var deleted = Set<UInt64>()
            for e in table.inserted
            where table[e].state == .inserted
                && table[e].entity == entity32
            {
                // Invariant: pending entries hold their objects.
                objects.append((table[e].primaryKey, ~0, table.objects[Int(e)]!))
            }
            for e in table.changed
            where table[e].isChanged && table[e].entity == entity32 {
                let entry = table[e]
                objects.append((entry.primaryKey, entry.changedSlots, table.objects[Int(e)]!))
            }
            for e in table.deleted
            where table[e].state == .deleted
                && table[e].entity == entity32
            {
                deleted.insert(table[e].primaryKey)
            }
            guard !objects.isEmpty else { continue }
            for (u, definition) in indexes.definitions[binding.index].enumerated()
            where definition.isUnique {
                // Objects whose constrained fields did not change keep their stored entries,
                // which then count as other objects' values.
                let touched = objects.filter { candidate in
                    definition.fields.contains { UniqueCheck.changed(candidate.changedSlots, $0) }
                }
                var rewritten = deleted
                for candidate in touched { rewritten.insert(candidate.pk) }
                try UniqueCheck(definition: definition, index: u, indexes: indexes).check(
                    touched.map { candidate in
                        (candidate.pk, { binding.read(candidate.object, $0) })
                    }, rewritten: rewritten)
            }
        }
    }
}

/// One unique constraint checked for a set of objects about to be stored.
struct UniqueCheck {
    let definition: IndexDefinition
    /// The constraint's position among the entity's indexes.
    let index: Int
    let indexes: ContainerIndexes

    /// Whether stored field `slot` is among the changed slots (bit 63: any slot from 63 on).
    static func changed(_ slots: UInt64, _ slot: Int) -> Bool {
        slots & (slot < 63 ? 1 << UInt64(slot) : 1 << 63) != 0
    }

    /// Throws if two candidates share the constrained values, or one has the values of a
    /// stored object not in `rewritten` (whose stored entries this commit replaces). Objects
    /// with a `nil` among the values never clash.
    /// - Throws: ``LogbookError/uniqueConstraint(entity:attribute:value:object:existing:)``;
    ///   the error that made the entity's indexes unavailable.
    func check(
        _ candidates: [(pk: UInt64, value: (Int) -> AttributeValue)], rewritten: Set<UInt64>
    ) throws {
        if let failure = indexes.failure(of: definition.entity) { throw failure }
        var seen: [[UInt8]: Int] = [:]
        var keys: [(key: [UInt8], candidate: Int)] = []
        for (i, candidate) in candidates.enumerated() {
            guard let key = prefix(candidate.value) else { continue }
            if let other = seen.updateValue(i, forKey: key) {
                throw clash(candidate.pk, candidates[other].pk, candidate.value)
            }
            keys.append((key, i))
        }
        let found = indexes.firstStored(
            definition.entity, index: index, prefixes: keys.map(\.key), excluding: rewritten)
        for (key, stored) in zip(keys, found) {
            guard let stored else { continue }
            let candidate = candidates[key.candidate]
            throw clash(candidate.pk, stored, candidate.value)
        }
    }

    /// The entry prefix of the constrained values, or `nil` if one is `nil` (for a whole
    /// composite, if the composite is).
    func prefix(_ value: (Int) -> AttributeValue) -> [UInt8]? {
        var key: [UInt8] = []
        for (f, field) in definition.fields.enumerated() {
            let v = value(field)
            if v.isNull && (f == 0 || !definition.wholeComposite) { return nil }
            IndexKey.append(v, to: &key)
        }
        return key
    }

    func clash(_ pk: UInt64, _ existing: UInt64, _ value: (Int) -> AttributeValue)
        -> LogbookError
    {
        let entity = definition.entityName
        let values = definition.fields.map { value($0).description }
        return .uniqueConstraint(
            entity: entity,
            attribute: definition.names.count == 1
                ? definition.names[0] : "(\(definition.names.joined(separator: ", ")))",
            value: values.count == 1 ? values[0] : "(\(values.joined(separator: ", ")))",
            object: PersistentIdentifier(entityName: entity, primaryKey: pk).description,
            existing: PersistentIdentifier(entityName: entity, primaryKey: existing).description)
    }
}
