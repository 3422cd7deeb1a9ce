import LogStore

extension ContainerCore {
    /// Commits a batch of a save or batch operation (under the save lock), keeping the indexes
    /// exact, and publishes what it changed to the container's observers. With the store's
    /// `.sync` durability it returns once the commit is on stable storage, still holding the
    /// lock; ``ModelContext/save()`` uses ``commitOrdered(_:)`` instead, to share the sync.
    /// - Throws: ``LogbookError/store(_:)``; ``LogbookError/corruptRecord(entity:key:reason:)``
    ///   for a replaced record that does not decode (then nothing is committed).
    @discardableResult
    func commit(_ batch: WriteBatch) throws -> UInt64 {
        let delta = try delta(of: batch)
        let sequence = try indexes.commit(
            batch, applying: delta.index, text: delta.text, to: store)
        if let changes = delta.changes { changeHub.publish(changes.saved(sequence: sequence)) }
        commitSignal.bump()
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
        let delta = try delta(of: batch)
        let sequence = try indexes.commit(
            batch, applying: delta.index, text: delta.text, to: store, durability: .buffered)
        if let changes = delta.changes { changeHub.publish(changes.saved(sequence: sequence)) }
        commitSignal.bump()
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
