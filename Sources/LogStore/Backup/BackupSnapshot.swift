/// What a backup copies: the store's segments as one commit left them, held open and mapped, so
/// that the writer may go on appending, sealing and compacting (removing files) while they are
/// copied. Taken from the store's own index under its lock, so the segments and sizes are the
/// ones its readers see at that moment: for a writer the state after its last visible commit,
/// for a store opened read-only the state its open (or last ``LogStore/refresh()``) found.
struct BackupSnapshot {
    /// One segment, to `size`: the bytes of its complete commits when the snapshot was taken.
    struct Part {
        let segment: Segment
        let size: Int

        var bytes: UnsafeRawBufferPointer { segment.bytes(limit: size) }
    }

    /// In replay order.
    var parts: [Part]
    /// The backup holds the state after this commit.
    var lastSequence: UInt64
    /// Every keyspace defined so far: a scan that starts in the middle of the log checks records
    /// against these.
    var keyspaces: KeyspaceTable

    /// The bytes of every part.
    var bytes: Int64 { parts.reduce(0) { $0 + Int64($1.size) } }

    /// Where the log goes on after the snapshot's last commit: the end of its newest ordinary
    /// segment, or `nil` if an output is the newest (which no writer leaves) or there is none.
    var resume: BackupManifest.Resume? {
        guard let last = parts.last, !last.segment.isCompactionOutput else { return nil }
        return BackupManifest.Resume(
            order: last.segment.order, offset: UInt64(last.size),
            tailCRC: BackupManifest.tailCRC(last.bytes, offset: last.size))
    }
}

extension LogStore {
    /// The store as its readers see it now.
    /// - Throws: ``LogStoreError/closed``.
    func backupSnapshot() throws -> BackupSnapshot {
        try index.withLock { state throws(LogStoreError) -> BackupSnapshot in
            guard !state.closed else { throw .closed }
            let parts = state.segments.compactMap { $0 }.sorted { $0.order < $1.order }.map {
                BackupSnapshot.Part(segment: $0, size: $0.size)
            }
            return BackupSnapshot(
                parts: parts, lastSequence: state.lastSequence, keyspaces: state.keyspaces)
        }
    }
}
