import LogStore

/// What one commit of a container changed in the store: the objects it inserted, updated and
/// deleted, and its sequence number. Published after every ``ModelContext/save()`` that wrote
/// something and after every batch operation (``ModelContext/delete(model:where:)``,
/// ``ModelContext/update(model:where:set:)``), whichever context made it.
///
/// The sets are exact: an object is in at most one of them, and only if the commit changed its
/// record (a delete of an object already gone is not listed). Merge it into another context
/// with ``ModelContext/merge(_:)``.
public struct SavedChanges: Sendable, Hashable, CustomStringConvertible {
    /// The store's sequence number of the commit (`LogStore.lastSequence` once it is visible).
    public let sequence: UInt64
    /// Objects the commit created.
    public let inserted: Set<PersistentIdentifier>
    /// Objects the commit rewrote, each with the names of its attributes and to-one
    /// relationships whose stored value changed (empty if the object was written unchanged).
    public let updated: [PersistentIdentifier: Set<String>]
    /// Objects the commit deleted.
    public let deleted: Set<PersistentIdentifier>

    /// Changes as given; for tests and tools.
    public init(
        sequence: UInt64, inserted: Set<PersistentIdentifier> = [],
        updated: [PersistentIdentifier: Set<String>] = [:], deleted: Set<PersistentIdentifier> = []
    ) {
        self.sequence = sequence
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// `SavedChanges(sequence: 7, inserted: 2, updated: 1, deleted: 0)`.
    public var description: String {
        "SavedChanges(sequence: \(sequence), inserted: \(inserted.count), "
            + "updated: \(updated.count), deleted: \(deleted.count))"
    }
}

/// The changes of a batch about to be committed, read against the store as it is before the
/// commit; becomes ``SavedChanges`` once the commit has its sequence number.
struct PendingChanges {
    var inserted: Set<PersistentIdentifier> = []
    var updated: [PersistentIdentifier: Set<String>] = [:]
    var deleted: Set<PersistentIdentifier> = []

    func saved(sequence: UInt64) -> SavedChanges {
        SavedChanges(sequence: sequence, inserted: inserted, updated: updated, deleted: deleted)
    }
}

extension ContainerCore {
    /// What committing `batch` will change in the entity keyspaces, or `nil` if nobody observes
    /// the container's changes (then nothing is read). Call it under the save lock, right before
    /// the commit, so the store cannot move in between.
    ///
    /// A put over an existing record is an update (named by the fields whose decoded values
    /// differ), a put of a new key an insert, a delete of an existing key a delete; other
    /// keyspaces (counters, schema) are ignored.
    /// - Complexity: one store lookup per operation, and two decodes per update.
    func pendingChanges(of batch: WriteBatch) -> PendingChanges? {
        guard changeHub.isObserved else { return nil }
        var byKeyspace: [String: EntityBinding] = [:]
        for binding in bindings { byKeyspace[binding.keyspace] = binding }
        // The last operation on each key decides what the batch does to it; the record it
        // replaces is read only for puts over an existing one.
        var last: [PersistentIdentifier: (binding: EntityBinding, old: [UInt8]?, new: [UInt8]?)] =
            [:]
        var inserts: Set<PersistentIdentifier> = []
        batch.forEachOperation { keyspace, key, value in
            guard let binding = byKeyspace[keyspace],
                let pk = Keyspaces.primaryKey(ofObjectKey: key)
            else {
                return
            }
            let id = PersistentIdentifier(entityName: binding.entity.name, primaryKey: pk)
            let old =
                last[id].map(\.old) ?? ((try? store.get(Array(key), in: keyspace)) ?? nil)
            if old == nil {
                last[id] = nil
                if value != nil { inserts.insert(id) } else { inserts.remove(id) }
                return
            }
            last[id] = (binding, old, value.map { [UInt8]($0) })
        }
        var changes = PendingChanges()
        changes.inserted = inserts
        for (id, operation) in last {
            guard let old = operation.old else { continue }
            if let new = operation.new {
                changes.updated[id] = Self.changedFields(operation.binding, old, new, id.primaryKey)
            } else {
                changes.deleted.insert(id)
            }
        }
        return changes
    }

    /// The names of the stored fields whose values differ between two records of `binding`
    /// (all of them if either does not decode).
    private static func changedFields(
        _ binding: EntityBinding, _ old: [UInt8], _ new: [UInt8], _ pk: UInt64
    ) -> Set<String> {
        let fields = binding.stored.attributes
        var before = [AttributeValue](repeating: .null, count: fields.count)
        var after = before
        func decode(_ record: [UInt8], into values: inout [AttributeValue]) -> Bool {
            record.withUnsafeBytes { raw in
                (try? binding.codec.decode(raw, key: String(pk)) { values[$0] = $1 }) != nil
            }
        }
        guard decode(old, into: &before), decode(new, into: &after) else {
            return Set(fields.map(\.name))
        }
        return Set(fields.indices.filter { before[$0] != after[$0] }.map { fields[$0].name })
    }
}

extension ContainerCore {
    /// Commits a batch of a save or batch operation (under the save lock), keeping the indexes
    /// exact, and publishes what it changed to the container's observers. With the store's
    /// `.sync` durability it returns once the commit is on stable storage, still holding the
    /// lock; ``ModelContext/save()`` uses ``commitOrdered(_:)`` instead, to share the sync.
    /// - Throws: as ``ContainerIndexes/commit(_:to:durability:)``.
    @discardableResult
    func commit(_ batch: WriteBatch) throws -> UInt64 {
        let changes = pendingChanges(of: batch)
        let sequence = try indexes.commit(batch, to: store)
        if let changes { changeHub.publish(changes.saved(sequence: sequence)) }
        return sequence
    }

    /// Commits a save's batch under the save lock, without waiting for it to reach stable
    /// storage: it is ordered and visible at once (to every context, to the indexes and to
    /// observers), exactly as ``commit(_:)``'s. Conflicts, uniqueness and indexes of later saves
    /// are checked against it.
    ///
    /// The caller releases the save lock, then calls ``awaitDurable(_:)`` with what this returns,
    /// so durable saves of several contexts share one `fdatasync` (the engine's
    /// ``LogStore/waitUntilDurable(_:)``). Since the log is one sequence, a later commit is durable
    /// only with every earlier one; if a sync fails, the store refuses every later write, so no
    /// save is acknowledged that depends on one the disk may have lost.
    /// - Returns: the sequence number to wait for, or `nil` if the store's durability is
    ///   `.buffered` (nothing to wait for).
    /// - Throws: as ``commit(_:)``.
    func commitOrdered(_ batch: WriteBatch) throws -> UInt64? {
        guard store.durability == .sync else {
            try commit(batch)
            return nil
        }
        let changes = pendingChanges(of: batch)
        let sequence = try indexes.commit(batch, to: store, durability: .buffered)
        if let changes { changeHub.publish(changes.saved(sequence: sequence)) }
        return sequence
    }

    /// Waits, outside the save lock, until the commit ``commitOrdered(_:)`` returned `sequence`
    /// for is on stable storage (with every commit before it).
    /// - Throws: ``LogbookError/store(_:)``: `io` if the shared sync fails, `writesDisabled` after
    ///   an earlier failed sync. The commit is then visible in this process but may not survive
    ///   a power loss, and the store takes no more writes until it is reopened.
    func awaitDurable(_ sequence: UInt64?) throws {
        guard let sequence else { return }
        try wrapStoreErrors { try store.waitUntilDurable(sequence) }
    }
}
