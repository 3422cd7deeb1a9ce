/// Reserving the active segment's zero tail (FORMAT.md, "Zero tail"): on this kind of file
/// system an `fdatasync` after an append also commits the file's new size to the journal, and
/// costs more, and waits longer behind other files' writes, than one after an overwrite. So once
/// a segment takes durable commits one after another, the writer grows it ahead of them with
/// zeros, in steps, synced once a step; the commits then overwrite the zeros.
extension LogWriter {
    /// Groups of buffered commits larger than this never extend the zero tail: one size change
    /// is paid for many records, and a bulk load should not sync every step of its way.
    static let largestBufferedGroupForZeroTail = 64 << 10

    /// Before a group of about `bytes` bytes (`durable`: with a `.sync` commit): extends the
    /// active segment with zeros if the group would write past them, and syncs the segment
    /// (which makes everything written so far durable), once the segment has been synced more
    /// than ``ZeroTailPolicy/afterDurableGroups`` times in this session, by durable groups or by
    /// callers waiting for buffered commits (``LogStore/waitUntilDurable(_:)``, which the object
    /// layer's saves use). A write that fails (a full disk) leaves the segment to plain appends.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the sync fails (writes are then
    ///   disabled, as after any failed sync).
    func reserveZeroTail(adding bytes: Int, durable: Bool) throws {
        if durable { durableGroups += 1 }
        guard durable || bytes <= Self.largestBufferedGroupForZeroTail, !zeroTailFailed,
            active.formatVersion >= ZeroTail.firstVersion,
            durableGroups + sharedSync.syncCount(of: active) > zeroTail.afterDurableGroups
        else { return }
        let needed = writtenSize + bytes
        guard needed > reservedSize else { return }
        // Never past the configured size: a segment that fills up is sealed with no zeros left.
        let end = min(segmentSize, (needed / zeroTail.step + 1) * zeroTail.step)
        guard end > needed else { return }
        do {
            try writeZeros(from: max(reservedSize, writtenSize), to: end)
        } catch {
            // Back to the commits' end (best effort: zeros left there are still a zero tail).
            try? fileSystem.truncate(active.file, to: Int64(writtenSize))
            reservedSize = writtenSize
            zeroTailFailed = true
            return
        }
        reservedSize = end
        try syncActiveFile()
        durableSize = max(durableSize, writtenSize)
    }

    /// Writes zeros over `start..<end` of the active segment, a mebibyte at a time at most.
    private func writeZeros(from start: Int, to end: Int) throws {
        let chunk = min(end - start, 1 << 20)
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 4096)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        var offset = start
        while offset < end {
            let count = min(chunk, end - offset)
            try fileSystem.writeAll(
                active.file, UnsafeRawBufferPointer(rebasing: zeros[..<count]), at: Int64(offset))
            offset += count
        }
    }
}
