import LogStore

extension ContainerCore {
    /// Writes the indexes beside the store when they changed, so the next open need not
    /// build them. Best effort: a store opens without them, only more slowly.
    func persistIndexes() {
        saveLock.withLock { _ in
            // The sidecar describes the store's last commit: the schema an open deferred first.
            try? store.commitDeferred()
            try? indexes.persist(to: store, schemaVersion: schema.version)
        }
    }
}
