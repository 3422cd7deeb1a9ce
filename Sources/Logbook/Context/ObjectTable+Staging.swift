import LogStore

/// Staging: bounded memory for bulk inserts.
///
/// A pending insert the app no longer holds (only the table does) can be encoded at once into
/// the next save's batch, and its object released: inserting a million objects and saving
/// once then holds a million encoded records, not a million objects. Only entities without
/// relationships or unique attributes are staged (their save needs the objects). Anything
/// that must see pending inserts as objects — a lookup by identifier, a fetch that includes
/// pending changes, ``ModelContext/insertedModels`` — first rebuilds the staged objects
/// (``unstage()``), which then count as ordinary pending inserts again.
extension ObjectTable {
    /// Inserts between two looks for ones to stage.
    static let stagingInterval = 4096

    /// Whether objects of `binding`'s entity may be staged.
    static func canStage(_ binding: EntityBinding) -> Bool {
        binding.entity.relationships.isEmpty && binding.uniqueAttributes.isEmpty
    }

    /// Encodes each pending insert since the last look that only the table holds into `staged`
    /// (with `encode`, which appends its record and returns `false` if it cannot be encoded yet,
    /// such as a required value missing) and releases its object.
    func stageDroppedInserts(
        _ encode: (_ object: AnyObject, _ binding: EntityBinding, _ pk: UInt64) -> Bool
    ) {
        var kept = stagingCursor
        var indexedKept = min(indexedInserts, stagingCursor)
        for position in stagingCursor..<inserted.count {
            let e = inserted[position]
            let i = Int(e)
            let entry = entries[i]
            let binding = bindings[Int(entry.entity)]
            if entry.state == .inserted, failures[e] == nil, Self.canStage(binding),
                isKnownUniquelyReferenced(&objects[i]), let object = objects[i],
                encode(object, binding, entry.primaryKey)
            {
                if position < indexedInserts {
                    registry[Int(entry.entity)].remove(entry.primaryKey)
                }
                stagedCount[Int(entry.entity)] += 1
                stagedTotal += 1
                insertedCount -= 1
                entries[i].state = .free
                objects[i] = nil
                liveCount -= 1
                // Off every list now, so the entry can be reused at once.
                freeEntry(e)
                continue
            }
            if position < indexedInserts { indexedKept += 1 }
            inserted[kept] = e
            kept += 1
        }
        inserted.removeSubrange(kept...)
        indexedInserts = indexedKept
        stagingCursor = inserted.count
    }

    /// Rebuilds every staged insert as a pending insert object (at the front of the inserts,
    /// where it was staged from), and empties `staged`.
    func unstage() {
        guard stagedTotal > 0 else { return }
        let batch = staged
        staged.removeAll()
        let later = inserted
        inserted.removeAll()
        indexedInserts = 0
        stagedTotal = 0
        for i in stagedCount.indices { stagedCount[i] = 0 }
        var byKeyspace: [String: EntityBinding] = [:]
        for binding in bindings { byKeyspace[binding.keyspace] = binding }
        batch.forEachOperation { keyspace, key, value in
            // Invariant: the staged batch holds only puts of entity records this table encoded.
            guard let binding = byKeyspace[keyspace], let value,
                let pk = Keyspaces.primaryKey(ofObjectKey: key)
            else { return }
            let object = binding.makeObject()
            _ = try? binding.load(value, into: object, primaryKey: pk)
            add(object, binding, primaryKey: pk, state: .inserted, version: 0, generation: 0)
        }
        inserted.append(contentsOf: later)
        stagingCursor = inserted.count
    }

    /// Takes the staged batch for a save; ``restoreStaged(_:)`` puts it back if the save fails.
    func takeStaged() -> WriteBatch {
        defer { staged = WriteBatch() }
        return staged
    }

    /// Puts back a batch ``takeStaged()`` took.
    func restoreStaged(_ batch: WriteBatch) { staged = batch }
}
