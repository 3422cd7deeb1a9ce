/// Sealing the active segment and starting the next (FORMAT.md, "Directory layout" and
/// "Durability").
extension LogWriter {
    /// Seals the active segment and starts a new one, unless it holds no commit (compaction).
    /// Returns the sealed segment, whose hint is then the caller's to write: a compaction
    /// that consumes the segment needs none.
    func sealActiveSegment(index: borrowing StoreStateLock) throws -> Segment? {
        if let cause = disabledCause {
            throw LogStoreError.writesDisabled(path: directory, cause: cause)
        }
        guard active.size > FileHeader.size else { return nil }
        let sealed = active
        try startSegment(index: index, writingHint: false)
        return sealed
    }

    /// Seals the active segment and starts a new one if it is full, the group would push its
    /// offsets past 32 bits, or it is of an older format version (never appended to). The sealed
    /// segment is synced first: sealed segments are complete.
    func rollIfNeeded(adding bytes: Int, index: borrowing StoreStateLock) throws {
        let full =
            active.size > FileHeader.size
            && (active.size >= segmentSize || active.size + bytes > Int(UInt32.max))
        guard full || active.formatVersion < FileHeader.currentVersion else { return }
        try startSegment(index: index)
    }

    private func startSegment(index: borrowing StoreStateLock, writingHint: Bool = true)
        throws
    {
        try sync()
        let order = (active.order >> 16 + 1) << 16
        let handle = index.withLock { UInt32($0.segments.count) }
        let segment: Segment
        do {
            segment = try Segment(
                directory: directory, order: order, handle: handle, fileSystem: fileSystem,
                growing: true, create: true)
            try fileSystem.syncData(segment.file)
            try fileSystem.syncDirectory(directory)
        } catch let error as LogStoreError {
            // Once the new file may exist, the next open may take it for the newest segment and
            // so seal the active one, which must then end at its last commit: take no more.
            if case .io(let operation, _, let code) = error, operation != "open" {
                disabledCause = code
            }
            throw error
        }
        index.withLock { $0.addSegment(segment) }
        let sealed = active
        active = segment
        sharedSync.setActive(segment)
        writtenSize = segment.size
        durableSize = segment.size
        markedSize = segment.size
        reservedSize = segment.size
        durableGroups = 0
        zeroTailFailed = false
        // The sealed segment never changes again. Its hint costs a scan of it (~0.5 ns a byte),
        // once per segment; a failure only means the next open scans the segment instead.
        if writingHint {
            try? Hint.write(for: sealed, directory: directory, fileSystem: fileSystem)
        }
        activeNeedsDefinitions = keyspaces.nextID > 1
    }
}
