import LogStore

/// What committing a batch changes beyond the log: the index entries and text postings it
/// removes and adds, and, when the container's changes are observed, the objects it inserts,
/// updates and deletes.
struct CommitDelta {
    /// `nil` when no entity has an index.
    var index: IndexDelta?
    /// `nil` when no entity has a text index.
    var text: TextDelta?
    /// `nil` when nobody observes the container's changes.
    var changes: PendingChanges?
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
    /// The ``CommitDelta`` of `batch`, found in one walk of it: each operation in an entity
    /// keyspace reads the stored record it replaces at most once, for the indexes, the text
    /// indexes and the observers alike, and not at all when none needs it (nothing observed,
    /// and a put above every stored key). Call it under the save lock, right before the
    /// commit, so the store cannot move in between.
    ///
    /// For observers, the last operation on each key decides: a put over an existing record is
    /// an update (named by the fields whose decoded values differ), a put of a new key an
    /// insert, a delete of an existing key a delete. Other keyspaces (counters, schema, history)
    /// are passed over.
    /// - Throws: ``LogbookError/store(_:)`` or ``LogbookError/corruptRecord(entity:key:reason:)``
    ///   when a record the indexes need cannot be read (then nothing is committed).
    /// - Complexity: one walk of the batch, at most one store lookup per operation, and two
    ///   decodes per observed update.
    func delta(of batch: WriteBatch) throws -> CommitDelta {
        let index = indexes.deltaBuilder()
        let text = indexes.textDeltaBuilder()
        var observer = changeHub.isObserved ? ChangeCollector() : nil
        guard index != nil || text != nil || observer != nil else { return CommitDelta() }
        var lastKeyspace = ""
        var entity = -1
        try batch.forEachOperation { keyspace, key, value in
            if keyspace != lastKeyspace {
                lastKeyspace = keyspace
                entity = bindingIndex(ofKeyspace: keyspace) ?? -1
            }
            guard entity >= 0, let pk = Keyspaces.primaryKey(ofObjectKey: key) else { return }
            let indexNeedsReplaced = index?.needsReplaced(entity, pk) ?? false
            let textNeedsReplaced = text?.needsReplaced(entity, pk) ?? false
            func add(_ replaced: UnsafeRawBufferPointer?) throws {
                try index?.add(
                    entity: entity, pk: pk, replaced: indexNeedsReplaced ? replaced : nil,
                    value: value)
                try text?.add(
                    entity: entity, pk: pk, replaced: textNeedsReplaced ? replaced : nil,
                    value: value)
            }
            let id =
                observer == nil
                ? nil
                : PersistentIdentifier(entityName: bindings[entity].entity.name, primaryKey: pk)
            // An earlier operation of the batch on the same key read the stored record already.
            if let id, let replaced = observer?.replaced(id) {
                try replaced.withUnsafeBytes { try add($0) }
                observer?.add(id, entity: entity, replaced: replaced, value: value)
                return
            }
            var replaced: [UInt8]?
            var found = false
            if indexNeedsReplaced || textNeedsReplaced {
                found = try wrapStoreErrors {
                    try store.readValue(forKey: key, in: keyspace) { record in
                        try add(record)
                        if observer != nil { replaced = Array(record) }
                    }
                }
            } else if observer != nil {
                // As before the walk was shared: a record observers cannot read is taken as
                // absent rather than failing the save.
                replaced = (try? store.get(Array(key), in: keyspace)) ?? nil
            }
            if !found { try add(nil) }
            if let id { observer?.add(id, entity: entity, replaced: replaced, value: value) }
        }
        return CommitDelta(
            index: index?.delta, text: text?.delta, changes: observer?.changes(bindings))
    }
}

/// Collects the ``PendingChanges`` of a batch as ``ContainerCore/delta(of:)`` walks it.
private struct ChangeCollector {
    /// Per key whose stored record the batch replaces: that record and the batch's last value.
    private var last: [PersistentIdentifier: (entity: Int, old: [UInt8], new: [UInt8]?)] = [:]
    private var inserts: Set<PersistentIdentifier> = []

    /// The stored record an earlier operation on `id` found, if one did.
    func replaced(_ id: PersistentIdentifier) -> [UInt8]? { last[id]?.old }

    /// Adds a put (`value`) or delete (`nil`) of `id` over the stored record `replaced`.
    mutating func add(
        _ id: PersistentIdentifier, entity: Int, replaced: [UInt8]?, value: UnsafeRawBufferPointer?
    ) {
        guard let replaced else {
            last[id] = nil
            if value != nil { inserts.insert(id) } else { inserts.remove(id) }
            return
        }
        last[id] = (entity, replaced, value.map { [UInt8]($0) })
    }

    func changes(_ bindings: [EntityBinding]) -> PendingChanges {
        var changes = PendingChanges()
        changes.inserted = inserts
        for (id, operation) in last {
            if let new = operation.new {
                changes.updated[id] = Self.changedFields(
                    bindings[operation.entity], operation.old, new, id.primaryKey)
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
