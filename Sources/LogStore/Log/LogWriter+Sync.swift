/// When written bytes become durable, and the sync marks that record it (FORMAT.md, "Sync marks"
/// and "Durability").
extension LogWriter {
    /// Whether bytes have been written since the last `fdatasync` of the active segment.
    var hasUnsyncedData: Bool { writtenSize > durableSize }

    /// Starts a group write with a mark saying how far the segment is durable, if it has been
    /// synced past what its latest mark records: damage before that offset is then corruption,
    /// not a torn write.
    func appendMarkIfNeeded(to output: inout SegmentOutput) {
        // Syncs shared outside the queue (`LogStore.waitUntilDurable`) count too.
        durableSize = max(durableSize, sharedSync.durableSize(of: active))
        guard durableSize > markedSize else { return }
        SyncMark.append(durableSize: durableSize, to: &output.buffer)
        markedSize = durableSize
    }

    /// Forces buffered commits to stable storage. A failure disables writes: the kernel may have
    /// dropped the pages, so a retry could not be trusted.
    func sync() throws {
        guard hasUnsyncedData else { return }
        // After a failed sync the pages may be gone although a retry would succeed.
        if let cause = disabledCause {
            throw LogStoreError.writesDisabled(path: directory, cause: cause)
        }
        try syncActiveFile()
        durableSize = writtenSize
    }

    /// `fdatasync` of the active segment, whatever was written to it. A failure disables
    /// writes: the kernel may have dropped the pages, so a retry could not be trusted.
    func syncActiveFile() throws {
        do {
            try fileSystem.syncData(active.file)
        } catch let error as LogStoreError {
            if case .io(_, _, let code) = error { disabledCause = code }
            throw error
        }
    }

    /// Syncs, then appends and syncs a mark saying the whole segment is durable, so that after
    /// a clean close no damage in it passes for a torn write. Only the sync can fail: the mark is
    /// best effort (without it, damage in the last group write is cut as a torn write).
    func seal(index: borrowing StoreStateLock) throws {
        // A segment that ends with a mark this session appended nothing after (opened after a
        // clean close, only read) is sealed as it is: syncing would make durable no byte a
        // commit of this session wrote, and mark nothing.
        guard writtenSize > markedSize else { return }
        try sync()
        guard disabledCause == nil, durableSize > markedSize else { return }
        var output = SegmentOutput(
            file: active.file, fileSystem: fileSystem, offset: writtenSize,
            capacity: SyncMark.frameSize)
        appendMarkIfNeeded(to: &output)
        do {
            try output.flush()
            writtenSize = output.offset
            reservedSize = max(reservedSize, writtenSize)
            try sync()
        } catch {
            return
        }
        let end = output.offset
        index.withLock { state in state.setSize(of: active, end) }
    }
}
