extension LogStore {
    /// Rewrites the live records of every sealed segment (after sealing the active one) into new
    /// segments and removes the old ones, so the store's files hold live data plus at most one
    /// segment of slack. Reads and commits go on meanwhile; commits wait only while the new
    /// segments are put in place.
    ///
    /// Crash-safe at every step (FORMAT.md, "Compaction"): after a crash the store opens with
    /// every acknowledged commit and no deleted key back.
    /// - Throws: ``LogStoreError/readOnly(path:)``, ``LogStoreError/closed``,
    ///   ``LogStoreError/io(operation:path:errno:)`` (the store is unchanged but for leftover
    ///   `.tmp` files, which the next open removes).
    /// - Complexity: O(live bytes of the sealed segments + records in them).
    @discardableResult
    public func compact() throws -> CompactionReport {
        guard let writer else { throw LogStoreError.readOnly(path: path) }
        // Compaction may rewrite records for the schema a deferred batch holds.
        try commitDeferred()
        return try compactionLock.withLock { _ in try runCompaction(writer) }
    }
}
