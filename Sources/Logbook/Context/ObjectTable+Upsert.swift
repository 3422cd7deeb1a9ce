extension ObjectTable {
    /// Turns pending insert `e` into a change of the stored object `pk` (an upsert): the entry
    /// takes that identifier and stored version, and rollback would restore `savedValues`
    /// (the stored record's fields). The object keeps every value it has.
    func convertInsert(
        _ e: Int32, toStored pk: UInt64, version: UInt64, savedValues: [AttributeValue],
        generation: UInt64
    ) {
        let i = Int(e)
        let entity = Int(entries[i].entity)
        let inserted = entries[i].primaryKey
        if registry[entity].find(inserted) == e { registry[entity].remove(inserted) }
        insertedCount -= 1
        entries[i].primaryKey = pk
        entries[i].state = .persisted
        entries[i].version = version
        entries[i].readGeneration = generation
        entries[i].isChanged = false
        markChanged(e)
        entries[i].changedSlots = ~0
        for (slot, value) in savedValues.enumerated() {
            changeLog.append((e, Int32(slot), value))
        }
        registry[entity].set(pk, e)
    }
}
