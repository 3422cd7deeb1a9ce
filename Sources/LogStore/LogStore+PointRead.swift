extension LogStore {
    /// Calls `body` with the value under `key` in `keyspace`, read in place from the log, and
    /// returns whether the key was there (`body` is not called if it is absent). Non-generic,
    /// so it looks up no generic metadata at run time: the generic
    /// ``withValue(forKey:in:_:)`` inlines into its caller's module over this. The buffer is
    /// valid only during the call, which holds the index lock: `body` must be short and must
    /// not call the store.
    /// - Throws: ``LogStoreError/closed``, or what `body` throws.
    /// - Complexity: one hash lookup; no copy of the value.
    @usableFromInline
    package func readValue(
        forKey key: UnsafeRawBufferPointer, in keyspace: String,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        try index.withLockForPointRead { state throws -> Bool in
            guard !state.closed else { throw LogStoreError.closed }
            guard let id = state.keyspaces.cachedID(of: keyspace) else { return false }
            if _slowPath(state.hasPendingCheck) {
                try index.checkProbe(&state, key: key, in: id, storePath: path)
            }
            guard let (_, record) = try state.find(key, in: id, storePath: path)
            else { return false }
            try body(record.value)
            return true
        }
    }

    /// Starts loading the record a read of `key` in `keyspace` would return, and returns once
    /// the key's table line is in, without waiting for the record: work the caller does before
    /// the read then overlaps the read's second cache miss. A guess by hash alone; the read
    /// still compares the key. Does nothing for an unknown keyspace or a closed store. On a
    /// mapped table still unchecked it first checks what its probe reads, as the read would
    /// (``StoreStateLock/checkProbe(_:key:in:storePath:)``), and prefetches nothing if that
    /// fails: the read then meets the failure and rebuilds.
    package func prefetchRecord(forKey key: UnsafeRawBufferPointer, in keyspace: String) {
        index.withLockForPointRead { state in
            guard !state.closed, let id = state.keyspaces.cachedID(of: keyspace) else { return }
            let hash = KeyDirectory.hash(key)
            let entries = state.directories[id].entries
            if _slowPath(state.hasPendingCheck) {
                do {
                    // A table whose blocks are now all checked is checked whole by the next
                    // read, not by a prefetch, which must stay short.
                    _ = try state.checkPendingProbe(hash: hash, entries: entries, in: id)
                } catch {
                    return
                }
            }
            KeyDirectory.prefetchRecord(entries, hash, state.bases)
        }
    }
}
