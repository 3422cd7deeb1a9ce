extension ModelContext {
    /// ``MergePolicy/storeWins`` for entry `e`, which another context saved or deleted since this
    /// one read it: what the store holds (`stored`, or `nil` if deleted) replaces this context's
    /// change to it.
    ///
    /// - Deleted in the store: the object is deleted here too. Its edits are dropped (its fields
    ///   get their saved values back), it reports ``ModelObject/isDeleted`` and nothing of it is
    ///   saved. A deletion pending here is simply done.
    /// - Updated in the store, deletion pending here: the deletion is dropped and the object
    ///   takes the stored values — unless it points through a to-one relationship at an object
    ///   this save deletes (a cascade that reached it, say): keeping it would leave a reference
    ///   to nothing, so the deletion goes ahead.
    /// - Updated in the store, edited here: the object takes the stored values; its edits are
    ///   dropped.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` if the stored record does
    ///   not decode.
    func takeStoredState(
        _ e: Int32, _ stored: [UInt8]?, _ binding: EntityBinding, _ id: PersistentIdentifier
    ) throws {
        let entry = table[e]
        guard let object = table.objects[Int(e)] else { return }
        guard let stored else {
            guard entry.state == .persisted else { return }
            for change in table.changeLog.reversed() where change.entry == e {
                binding.write(object, Int(change.slot), change.value)
            }
            table.markGone(e)
            return
        }
        if entry.state == .deleted && entry.isPartial { table.fulfill(e, object) }
        try stored.withUnsafeBytes { raw in
            _ = try binding.codec.decode(raw, key: id.description) { i, value in
                binding.write(object, i, value)
            }
        }
        switch entry.state {
        case .persisted: table.markClean(e)
        case .deleted where !pointsAtDeletedObject(object, binding): table.undelete(e)
        default: break
        }
    }

    /// Whether a to-one relationship of `object` reaches an object whose deletion is pending.
    private func pointsAtDeletedObject(_ object: AnyObject, _ binding: EntityBinding) -> Bool {
        for (r, relationship) in binding.entity.relationships.enumerated()
        where !relationship.isToMany {
            guard case .integer(let key) = binding.read(object, binding.relationshipSlots[r]),
                let destination = try? core.binding(named: relationship.destination),
                registered(destination.index, UInt64(bitPattern: key))?.state == .deleted
            else { continue }
            return true
        }
        return false
    }
}
