/// What a path that follows key directory entries outside the index lock (a walk over a
/// snapshot, a view, compaction) does when one points at no record of its key.
extension LogStore {
    /// The error for `damage`, met in `keyspace`; marks the state so that close removes the key
    /// directory file and the next open rebuilds the index from the log, as a point read does
    /// (``StoreState/find(_:in:storePath:)``). Takes the index lock: never call it under it.
    @inline(never)
    func keyDirectoryDamaged(_ damage: KeyDirectory.DamagedEntry, keyspace: String?)
        -> LogStoreError
    {
        index.withLock { $0.keyDirectoryDamaged = true }
        return StoreState.damaged(damage, keyspace: keyspace, storePath: path)
    }
}
