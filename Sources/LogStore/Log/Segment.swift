/// One segment file, memory-mapped for reading.
///
/// A segment's replay order is its `order` (FORMAT.md, "Directory layout"): ordinary segments get
/// `n << 16`, compaction outputs the order of the last segment they replace plus 1, 2, ….
/// `handle` is the number the in-memory index uses for it; it is not stored on disk.
///
/// Thread safety: `size` is written only by the store's single writer, and read by others only
/// under the index lock; the mapping never moves while the segment lives.
final class Segment: @unchecked Sendable {
    /// Bytes reserved in the address space for a segment that is still growing: its offsets are
    /// 32-bit, so it never outgrows this.
    static let growingReservation = 1 << 32

    let order: UInt64
    let handle: UInt32
    let path: String
    let file: OpenFile
    /// Closes `file` once neither this segment nor a ``PinnedListing`` holds it.
    private let owner: SharedFile
    private let fileSystem: any FileSystem
    /// Start of the mapping; record offsets are relative to it.
    let base: UnsafeRawPointer
    private let mappedLength: Int
    /// Bytes of complete commits (readers never look past this).
    var size: Int
    /// The format version in its header (set when the header is read; new segments get the
    /// current one). The writer appends only to a segment of the current version.
    var formatVersion = FileHeader.currentVersion
    /// Bytes of this segment that live records (their keys, values and record headers) occupy.
    var liveBytes: Int64 = 0
    /// The size the hint file open read for this segment described it at (`nil`: none was
    /// used): while ``size`` is still that, the hint on disk is current.
    var hintedSize: Int?

    /// Opens and maps an existing segment, or creates one with a header when `create` is set.
    /// A `growing` segment is opened for writing; it and a `following` one (the newest segment
    /// of a store opened read-only, which another process appends to) are mapped with room to
    /// grow, so that ``grownBytes(to:)`` can read what is appended later. A segment that is
    /// neither growing nor created may be given its file already `opened` (read-only, by a
    /// ``PinnedListing``) rather than opening it by name.
    init(
        directory: String, order: UInt64, handle: UInt32, fileSystem: any FileSystem, growing: Bool,
        following: Bool = false, create: Bool = false, opened: SharedFile? = nil
    ) throws {
        // The index names a segment in 28 bits (`KeyDirectory.Entry`), and handles are never
        // reused within a session: past the last one, refuse instead of trapping in the index.
        guard handle < KeyDirectory.Entry.segmentMask else {
            throw LogStoreError.invalidArgument(
                "this session of the store has used all \(KeyDirectory.Entry.segmentMask) segment "
                    + "handles its index can name: close and reopen the store, or use larger "
                    + "segments (LogStoreOptions.segmentSize)")
        }
        self.order = order
        self.handle = handle
        self.path = directory + "/" + Self.fileName(order: order)
        self.fileSystem = fileSystem
        assert(opened == nil || !(growing || create), "a pinned file is open read-only")
        let owner: SharedFile
        if let opened {
            owner = opened
        } else {
            owner = SharedFile(
                try fileSystem.open(path, create: create, readOnly: !growing),
                fileSystem: fileSystem)
        }
        let file = owner.file
        do {
            if create {
                try fileSystem.truncate(file, to: 0)
                let header = FileHeader(kind: .segment, fileOrder: order).encoded()
                try header.withUnsafeBytes { try fileSystem.writeAll(file, $0, at: 0) }
            }
            size = Int(try fileSystem.size(file))
            mappedLength = growing || following ? Self.growingReservation : max(size, 1)
            base = try fileSystem.map(file, length: mappedLength)
        } catch {
            // `owner` closes the file, unless a pinned listing still holds it.
            // A half-made segment must not outlive the failure.
            if create { try? fileSystem.remove(path) }
            throw error
        }
        self.file = file
        self.owner = owner
    }

    deinit {
        fileSystem.unmap(base, length: mappedLength)
    }

    /// The segment's bytes up to `size` (or `limit`). Valid while the segment lives.
    func bytes(limit: Int? = nil) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base, count: min(limit ?? size, size))
    }

    /// The segment's first `length` bytes, past ``size`` too: bytes another process appended
    /// since, for a segment mapped with room to grow; `nil` if the mapping cannot cover them.
    /// The caller checks `length` against the file's size.
    func grownBytes(to length: Int) -> UnsafeRawBufferPointer? {
        guard length <= mappedLength, mappedLength == Self.growingReservation || length <= size
        else { return nil }
        return UnsafeRawBufferPointer(start: base, count: length)
    }

    /// Drops the pages that open or compaction read from this process's memory.
    func releasePages() { releasePages(from: 0, to: size) }

    /// Drops the whole pages of `start..<end` from this process's memory (they stay in the page
    /// cache and come back on the next touch): a long scan keeps only what it is reading mapped.
    func releasePages(from start: Int, to end: Int) {
        // Whole pages only: madvise works on pages, and the mapping is page-aligned.
        let first = (start + 4095) & ~4095
        let last = min((end + 4095) & ~4095, mappedLength)
        if last > first { fileSystem.releasePages(base + first, length: last - first) }
    }

    static func fileName(order: UInt64) -> String { StoreFiles.segmentName(order: order) }
}

extension Segment {
    /// If every frame's CRC matches and the frames tile the file exactly, the bytes of records
    /// they hold (their payloads, marks' excepted); else `nil`. Reads through `pread` in 1 MiB
    /// pieces rather than the mapping, so checking a segment whose index comes from its hint does
    /// not pull the whole file into this process's memory.
    func checkedRecordBytes(fileSystem: (any FileSystem)? = nil) throws -> Int? {
        let fileSystem = fileSystem ?? self.fileSystem
        var recordBytes = 0
        // No more than the segment holds: a small segment costs no megabyte of zeros.
        let chunk = min(1 << 20, max(size, 1))
        var buffer = [UInt8](repeating: 0, count: chunk)
        var bufferStart = 0  // file offset of buffer[0]
        var bufferCount = 0
        var position = FileHeader.size
        var crc: UInt32 = 0
        var frameEnd = 0  // end of the frame being checked; 0 between frames
        var expected: UInt32 = 0
        while position < size {
            if position >= bufferStart + bufferCount {
                bufferStart = position
                bufferCount = try buffer.withUnsafeMutableBytes { raw in
                    try fileSystem.read(
                        file,
                        into: UnsafeMutableRawBufferPointer(
                            rebasing: raw[..<min(chunk, size - position)]),
                        at: Int64(position))
                }
                guard bufferCount > 0 else { return nil }
            }
            let available = bufferStart + bufferCount - position
            if frameEnd == 0 {
                // A frame header must be read whole: refill so it starts the buffer if it straddles.
                guard size - position >= Frame.headerSize else { return nil }
                if available < Frame.headerSize {
                    bufferCount = 0
                    continue
                }
                let header = buffer.withUnsafeBytes { FrameHeader($0, at: position - bufferStart) }
                guard header.length <= size - position - Frame.headerSize,
                    let type = header.type, header.sequence < Frame.sequenceLimit
                else { return nil }
                if type == .mark {
                    // What a scan checks of a mark but its durable size.
                    guard formatVersion >= 2, header.length == SyncMark.payloadSize,
                        header.sequence == 0
                    else { return nil }
                } else {
                    recordBytes += header.length
                }
                expected = header.crc
                crc = 0
                frameEnd = position + Frame.headerSize + header.length
                position += 4  // the CRC covers everything after itself
                continue
            }
            let take = min(available, frameEnd - position)
            crc = buffer.withUnsafeBytes { raw in
                Checksum.crc32c(
                    UnsafeRawBufferPointer(
                        rebasing: raw[(position - bufferStart)..<(position - bufferStart + take)]),
                    extending: crc)
            }
            position += take
            if position == frameEnd {
                guard crc == expected else { return nil }
                frameEnd = 0
            }
        }
        return frameEnd == 0 ? recordBytes : nil
    }
}
