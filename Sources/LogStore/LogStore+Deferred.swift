import Synchronization

extension LogStore {
    /// Keeps `batch` to be committed just before the next write to the store: the next
    /// ``commit(_:durability:)`` or ``beginCommit(durability:)``, a ``compact()``,
    /// ``commitDeferred()`` or ``close()``, whichever comes first. It is its own commit, written
    /// `.buffered` (the write that follows it, or the close, makes it durable), and every
    /// commit after it is ordered after it, so a crash leaves the store without it or with it
    /// and whatever followed it, never the one without the other.
    ///
    /// Until then the store is as it was, on disk and to every reader: for a container's open
    /// that migrates a schema lightweight, whose schema needs to be stored only before the
    /// first record written in it. A batch already kept is replaced.
    /// - Throws: ``LogStoreError/readOnly(path:)``.
    public func commitBeforeNextWrite(_ batch: WriteBatch) throws {
        guard writer != nil else { throw LogStoreError.readOnly(path: path) }
        deferredBatch.withLock { kept in
            kept = batch.isEmpty ? nil : batch
            hasDeferredBatch.store(kept != nil, ordering: .releasing)
        }
    }

    /// Whether a batch given to ``commitBeforeNextWrite(_:)`` is still to be committed.
    public var hasDeferredCommit: Bool { hasDeferredBatch.load(ordering: .acquiring) }

    /// Commits the batch given to ``commitBeforeNextWrite(_:)``, if it is still kept. Commits
    /// made by other threads meanwhile wait for it, so that none is ordered before it.
    /// - Throws: as ``commit(_:durability:)`` (the batch is then kept, for the next write).
    public func commitDeferred() throws {
        guard hasDeferredBatch.load(ordering: .acquiring), let writer else { return }
        try deferredBatch.withLock { kept in
            guard let batch = kept else { return }
            _ = try commitNow(batch, durability: .buffered, writer: writer)
            kept = nil
            hasDeferredBatch.store(false, ordering: .releasing)
        }
    }
}
