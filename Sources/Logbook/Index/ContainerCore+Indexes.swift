import LogStore

extension ContainerCore {
    /// Commits a batch of the object layer, keeping the indexes exact. Call under `saveLock`.
    /// - Throws: as ``ContainerIndexes/commit(_:to:)``.
    @discardableResult
    func commit(_ batch: WriteBatch) throws -> UInt64 {
        try indexes.commit(batch, to: store)
    }

    /// Writes the indexes beside the store when they changed, so the next open need not
    /// build them. Best effort: a store opens without them, only more slowly.
    func persistIndexes() {
        saveLock.withLock { _ in
            try? indexes.persist(to: store, schemaVersion: schema.version)
        }
    }
}
