import Synchronization

/// Walks a segment's bytes commit by commit, checking every frame (CRC, length, type, sequence),
/// every record's structure and every keyspace number before reporting a commit, so a commit is
/// applied whole or not at all. It never reads past `bytes` and never allocates in proportion to a
/// length it read. Sync marks between commits are checked and passed over.
///
/// What a damage report means for recovery (torn tail, corruption, where salvage resumes) is
/// decided by ``isTornWrite(_:)`` and ``findNextFrame(from:)``, which `open` and
/// ``LogInspector/verify(storeAt:)`` both use (FORMAT.md, "Recovery").
struct SegmentScanner {
    enum Event {
        /// A complete, checked commit in `start..<end`.
        case commit(sequence: UInt64, start: Int, end: Int)
        /// The commit (or sync mark) at `damage.commitStart` is not complete or not valid; the
        /// position stays there (move it with ``findNextFrame(from:)``, or stop).
        case damage(Damage)
    }

    /// A commit or mark that is incomplete or invalid.
    struct Damage: Equatable {
        /// Where the damaged commit (or mark) starts: a torn tail is cut here.
        var commitStart: Int
        /// The first bad byte found.
        var offset: Int
        var reason: String
        /// Whether the bad frame's CRC matched: the bytes are as written, so the problem is not a
        /// torn write.
        var checksummed: Bool
        /// Where the search for the next valid frame starts: the byte after `offset`, or `offset`
        /// itself when the bad frame is a whole frame of another commit.
        var resumeSearch: Int
    }

    let bytes: UnsafeRawBufferPointer
    /// Where the next commit starts.
    var position = FileHeader.size
    /// Whether the segment's format version has sync marks (version 2 on).
    let hasMarks: Bool
    /// Whether the segment's format version allows a zero tail (version 3 on, ``ZeroTail``).
    let allowsZeroTail: Bool
    /// Where the segment's zero tail starts, once ``next()`` has ended there: the segment's
    /// frames end at this offset, before the end of `bytes`.
    private(set) var zeroTailStart: Int?
    /// The keyspace numbers defined before `position` (by earlier segments and by this one's
    /// complete commits): a record may only use these, and a definition must agree with them.
    private(set) var keyspaces: KeyspaceTable
    /// Called with a range of `bytes` already checked (or, in ``forEachRecord(start:end:_:)``,
    /// read), every ``releaseStride`` bytes or so, so a caller scanning a large segment can drop
    /// those pages from memory (``Segment/releasePages(from:to:)``).
    var releasePages: ((Int, Int) -> Void)?
    private var releasedUpTo = 0
    /// Bytes checked (or read) between two calls of ``releasePages``: a scan keeps about this
    /// much of the segment in memory, whatever the size of the segment or of one commit in it.
    var releaseStride = 4 << 20

    /// `bytes` is a whole segment, its header already checked; `keyspaces` are the numbers the
    /// segments before it defined.
    init(bytes: UnsafeRawBufferPointer, keyspaces: KeyspaceTable = KeyspaceTable()) {
        self.bytes = bytes
        self.keyspaces = keyspaces
        let version = bytes.count >= FileHeader.size ? bytes.loadLE(at: 8, as: UInt16.self) : 0
        hasMarks = version >= 2
        allowsZeroTail = version >= ZeroTail.firstVersion
    }

    /// The next commit, a damage report (the position then stays at the damaged commit), or
    /// `nil` at the end: the end of `bytes`, or (version 3 on) the start of a zero tail, which
    /// ``zeroTailStart`` then gives.
    mutating func next() -> Event? {
        var start = position
        var pending = keyspaces
        var checked: Result<FrameHeader, Problem>
        while true {
            guard start < bytes.count else { return nil }
            checked = checkFrame(at: start, keyspaces: &pending)
            guard case .success(let header) = checked, header.type == .mark else { break }
            start += SyncMark.frameSize
            position = start
        }
        switch checked {
        case .failure(let problem):
            // At a commit boundary, zeros to the end of the file are the zero tail, not damage.
            if allowsZeroTail && ZeroTail.isZero(bytes, from: start) {
                zeroTailStart = start
                return nil
            }
            return .damage(problem.damage(commitStart: start))
        case .success(let header):
            var end = start + Frame.headerSize + header.length
            switch header.type {
            case .full:
                return complete(sequence: header.sequence, start: start, end: end, pending)
            case .first:
                while true {
                    switch checkFrame(at: end, keyspaces: &pending) {
                    case .failure(let problem):
                        return .damage(problem.damage(commitStart: start))
                    case .success(let next):
                        guard next.sequence == header.sequence,
                            next.type == .middle || next.type == .last
                        else {
                            return .damage(
                                Damage(
                                    commitStart: start, offset: end,
                                    reason: "commit \(header.sequence) ends without its last frame",
                                    checksummed: true, resumeSearch: end))
                        }
                        end += Frame.headerSize + next.length
                        if next.type == .last {
                            return complete(
                                sequence: header.sequence, start: start, end: end, pending)
                        }
                        releaseBehind(end)
                    }
                }
            default:
                return .damage(
                    Damage(
                        commitStart: start, offset: start,
                        reason: "a continuation frame where a commit should start",
                        checksummed: true, resumeSearch: start + 1))
            }
        }
    }

    private mutating func complete(
        sequence: UInt64, start: Int, end: Int, _ pending: KeyspaceTable
    ) -> Event {
        position = end
        keyspaces = pending
        return .commit(sequence: sequence, start: start, end: end)
    }

    /// Offers the checked bytes before `offset` for release once a stride has passed.
    mutating func releaseBehind(_ offset: Int) {
        guard let releasePages, offset - releasedUpTo >= releaseStride else { return }
        releasePages(WalkPageRelease.releaseStart(after: releasedUpTo), offset)
        releasedUpTo = offset
    }

    /// Whether `damage` is what a crash during an append leaves, so that recovery may cut the
    /// newest segment at its commit (FORMAT.md, "Recovery"). Bytes that passed their CRC are never
    /// a torn write. Otherwise, in a segment with sync marks, the damage is torn unless an intact
    /// mark after its first bad byte records that the segment was durable past the damaged
    /// commit; in a version-1 segment, unless any valid commit follows it.
    func isTornWrite(_ damage: Damage) -> Bool {
        guard !damage.checksummed else { return false }
        guard hasMarks else { return findNextFrame(from: damage.offset + 1) == nil }
        // Every byte offset after the first bad byte, in order: frames after damage need not be
        // where the damaged lengths say.
        var candidate = damage.offset + 1
        let mark = FrameType.mark.rawValue  // once, not a call a byte in a debug build
        while candidate + SyncMark.frameSize <= bytes.count {
            if bytes[candidate + 8] == mark,
                bytes.loadLE(at: candidate + 4, as: UInt32.self) == SyncMark.payloadSize,
                case .success = checkFrame(at: candidate),
                Int(bytes.loadLE(at: candidate + Frame.headerSize, as: UInt64.self))
                    > damage.commitStart
            {
                return false
            }
            candidate += 1
        }
        return true
    }

    /// Whether the commit (or mark) where `damage` was found checks whole when its bytes are read
    /// again now, from the mapping ``bytes`` views. A reader that holds no lock reads the newest
    /// segment while its writer appends: it may read a commit half written, then, further on,
    /// the mark the writer appended after that commit was whole (``isTornWrite(_:)`` then finds
    /// the damage vouched for). Read again after that mark, the commit's bytes are the ones the
    /// writer finished before writing the mark. For a store no one writes, the same bytes are
    /// read twice and this is false.
    func checksWholeReadAgain(_ damage: Damage) -> Bool {
        // The mark was read before this: the commit's bytes are read after it.
        atomicMemoryFence(ordering: .acquiring)
        var again = self
        again.releasePages = nil
        again.position = damage.commitStart
        guard case .commit = again.next() else { return false }
        return true
    }

    /// The first offset at or after `start` where a frame that starts a commit or a group write
    /// (`full`, `first`, or a mark from version 2 on) passes every check of ``checkFrame(at:)``,
    /// or `nil`. Salvage and verify resume there; whether the commit it starts is complete is
    /// found out then.
    func findNextFrame(from start: Int) -> Int? {
        var candidate = max(start, FileHeader.size)
        // The types once, not calls a byte in a debug build.
        let full = FrameType.full.rawValue
        let first = FrameType.first.rawValue
        let mark = FrameType.mark.rawValue
        while candidate + Frame.headerSize <= bytes.count {
            let type = bytes[candidate + 8]
            if type == full || type == first || (type == mark && hasMarks) {
                if case .success = checkFrame(at: candidate) { return candidate }
            }
            candidate += 1
        }
        return nil
    }

    /// Calls `body` with each record of the checked commit in `start..<end`, in order. The pages
    /// it reads are offered for release behind it too: ``next()`` checked (and released) a long
    /// commit's frames before, and this reads them again.
    mutating func forEachRecord(start: Int, end: Int, _ body: (RecordView) throws -> Void)
        rethrows
    {
        var readUpTo = start
        var frame = start
        while frame < end {
            let header = FrameHeader(bytes, at: frame)
            let payloadStart = frame + Frame.headerSize
            var offset = payloadStart
            let payloadEnd = payloadStart + header.length
            while offset < payloadEnd {
                // Checked by checkFrame: decoding cannot fail here.
                guard var record = RecordFormat.decode(bytes, at: &offset, end: payloadEnd) else {
                    break
                }
                record.frameOffset = frame
                try body(record)
            }
            frame = payloadEnd
            if let releasePages, frame - readUpTo >= releaseStride {
                releasePages(WalkPageRelease.releaseStart(after: readUpTo), frame)
                readUpTo = frame
            }
            releaseBehind(frame)
        }
    }

    struct Problem: Error {
        var offset: Int
        var reason: String
        var checksummed = false

        func damage(commitStart: Int) -> Damage {
            Damage(
                commitStart: commitStart, offset: offset, reason: reason,
                checksummed: checksummed, resumeSearch: offset + 1)
        }
    }

    /// Checks the frame at `offset`: header in bounds, length within limits and the file, known
    /// type, CRC, and that its payload is whole, well-formed records.
    func checkFrame(at offset: Int) -> Result<FrameHeader, Problem> {
        checkFrame(at: offset, keyspaces: nil)
    }

    /// ``checkFrame(at:)``, and that every record uses a keyspace `keyspaces` defines and every
    /// definition agrees with it (which it then records).
    private func checkFrame(at offset: Int, keyspaces: inout KeyspaceTable) -> Result<
        FrameHeader, Problem
    > {
        withUnsafeMutablePointer(to: &keyspaces) { checkFrame(at: offset, keyspaces: $0) }
    }

    private func checkFrame(at offset: Int, keyspaces: UnsafeMutablePointer<KeyspaceTable>?)
        -> Result<FrameHeader, Problem>
    {
        let remaining = bytes.count - offset
        guard remaining >= Frame.headerSize else {
            return .failure(
                Problem(offset: offset, reason: "truncated frame header (\(remaining) of 17 bytes)")
            )
        }
        let header = FrameHeader(bytes, at: offset)
        guard header.length <= Frame.maxPayload else {
            return .failure(
                Problem(
                    offset: offset,
                    reason: "frame length \(header.length) exceeds the limit \(Frame.maxPayload)"))
        }
        guard header.length <= remaining - Frame.headerSize else {
            return .failure(
                Problem(
                    offset: offset,
                    reason: "frame length \(header.length) runs past the end of the file "
                        + "(\(remaining - Frame.headerSize) bytes left)"))
        }
        let covered = UnsafeRawBufferPointer(
            rebasing: bytes[(offset + 4)..<(offset + Frame.headerSize + header.length)])
        guard Checksum.crc32c(covered) == header.crc else {
            return .failure(Problem(offset: offset, reason: "frame checksum mismatch"))
        }
        guard let type = header.type, type != .mark || hasMarks else {
            return .failure(
                Problem(
                    offset: offset + 8, reason: "unknown frame type \(header.rawType)",
                    checksummed: true))
        }
        if type == .mark {
            guard header.length == SyncMark.payloadSize, header.sequence == 0,
                case let durable = bytes.loadLE(at: offset + Frame.headerSize, as: UInt64.self),
                durable >= FileHeader.size, durable <= offset
            else {
                return .failure(
                    Problem(offset: offset, reason: "malformed sync mark", checksummed: true))
            }
            return .success(header)
        }
        guard header.sequence < Frame.sequenceLimit else {
            return .failure(
                Problem(
                    offset: offset + 9,
                    reason: "sequence number \(header.sequence) is not below 2^63",
                    checksummed: true))
        }
        var position = offset + Frame.headerSize
        let end = position + header.length
        while position < end {
            let recordStart = position
            guard let record = RecordFormat.decode(bytes, at: &position, end: end) else {
                let op = bytes[recordStart]
                let reason =
                    (op == RecordOp.put || op == RecordOp.delete || op == RecordOp.defineKeyspace)
                    ? "malformed record" : "unknown record type \(op)"
                return .failure(Problem(offset: recordStart, reason: reason, checksummed: true))
            }
            if let keyspaces, let reason = keyspaces.pointee.check(record) {
                return .failure(Problem(offset: recordStart, reason: reason, checksummed: true))
            }
        }
        return .success(header)
    }
}
