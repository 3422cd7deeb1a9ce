/// Walks a segment's bytes commit by commit, checking every frame (CRC, length, type, sequence)
/// and every record's structure before reporting a commit, so a commit is applied whole or not
/// at all. It never reads past `bytes` and never allocates in proportion to a length it read.
/// Sync marks between commits are checked and passed over.
struct SegmentScanner {
    enum Event {
        /// A complete, checked commit in `start..<end`.
        case commit(sequence: UInt64, start: Int, end: Int)
        /// The commit (or sync mark) starting at `commitStart` is not complete or not valid; the
        /// first bad byte found is at `offset`. `checksummed` is set when the bad
        /// frame's CRC matched (so the bytes are as written, and the problem is not a torn write).
        case damage(commitStart: Int, offset: Int, reason: String, checksummed: Bool)
    }

    let bytes: UnsafeRawBufferPointer
    /// Where the next commit starts.
    var position = FileHeader.size
    /// Whether the segment's format version has sync marks (version 2 on).
    let hasMarks: Bool

    /// `bytes` is a whole segment, its header already checked.
    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        hasMarks = bytes.count >= FileHeader.size && bytes.loadLE(at: 8, as: UInt16.self) >= 2
    }

    /// The next commit, a damage report (the position then stays at the damaged commit; move it
    /// with ``findNextFrame(after:)`` or stop), or `nil` at the end.
    mutating func next() -> Event? {
        var start = position
        var checked: Result<FrameHeader, Problem>
        while true {
            guard start < bytes.count else { return nil }
            checked = checkFrame(at: start)
            guard case .success(let header) = checked, header.type == .mark else { break }
            start += SyncMark.frameSize
            position = start
        }
        switch checked {
        case .failure(let problem):
            return .damage(
                commitStart: start, offset: problem.offset, reason: problem.reason,
                checksummed: problem.checksummed)
        case .success(let header):
            var end = start + Frame.headerSize + header.length
            switch header.type {
            case .full:
                position = end
                return .commit(sequence: header.sequence, start: start, end: end)
            case .first:
                while true {
                    switch checkFrame(at: end) {
                    case .failure(let problem):
                        return .damage(
                            commitStart: start, offset: problem.offset,
                            reason: problem.reason, checksummed: problem.checksummed)
                    case .success(let next):
                        guard next.sequence == header.sequence,
                            next.type == .middle || next.type == .last
                        else {
                            return .damage(
                                commitStart: start, offset: end,
                                reason: "commit \(header.sequence) ends without its last frame",
                                checksummed: true)
                        }
                        end += Frame.headerSize + next.length
                        if next.type == .last {
                            position = end
                            return .commit(sequence: header.sequence, start: start, end: end)
                        }
                    }
                }
            default:
                return .damage(
                    commitStart: start, offset: start,
                    reason: "a continuation frame where a commit should start", checksummed: true)
            }
        }
    }

    /// Whether damage that ``next()`` reported is what a crash during an append leaves, so that
    /// recovery may cut the newest segment there (FORMAT.md, "Recovery"). Bytes that passed their
    /// CRC are never a torn write. Otherwise, in a segment with sync marks, the damage is torn
    /// unless a later intact mark records that the segment was durable past `commitStart`; in a
    /// version-1 segment, unless any intact commit follows it.
    func isTornWrite(commitStart: Int, offset: Int, checksummed: Bool) -> Bool {
        guard !checksummed else { return false }
        guard hasMarks else { return findNextFrame(after: offset) == nil }
        var candidate = offset + 1
        while candidate + SyncMark.frameSize <= bytes.count {
            if bytes[candidate + 8] == FrameType.mark.rawValue,
                bytes.loadLE(at: candidate + 4, as: UInt32.self) == SyncMark.payloadSize,
                case .success = checkFrame(at: candidate),
                Int(bytes.loadLE(at: candidate + Frame.headerSize, as: UInt64.self)) > commitStart
            {
                return false
            }
            candidate += 1
        }
        return true
    }

    /// The first offset after `offset` where a frame that starts a commit or a group write passes
    /// every check, or `nil`. Salvage resumes there.
    func findNextFrame(after offset: Int) -> Int? {
        var candidate = offset + 1
        while candidate + Frame.headerSize <= bytes.count {
            let type = bytes[candidate + 8]
            if type == FrameType.full.rawValue || type == FrameType.first.rawValue
                || (type == FrameType.mark.rawValue && hasMarks)
            {
                if case .success = checkFrame(at: candidate) { return candidate }
            }
            candidate += 1
        }
        return nil
    }

    /// Calls `body` with each record of the checked commit in `start..<end`, in order.
    func forEachRecord(start: Int, end: Int, _ body: (RecordView) throws -> Void) rethrows {
        var frame = start
        while frame < end {
            let header = FrameHeader(bytes, at: frame)
            let payloadStart = frame + Frame.headerSize
            var offset = payloadStart
            let payloadEnd = payloadStart + header.length
            while offset < payloadEnd {
                // Checked by checkFrame: decoding cannot fail here.
                guard let record = RecordFormat.decode(bytes, at: &offset, end: payloadEnd) else {
                    break
                }
                try body(record)
            }
            frame = payloadEnd
        }
    }

    struct Problem: Error {
        var offset: Int
        var reason: String
        var checksummed = false
    }

    /// Checks the frame at `offset`: header in bounds, length within limits and the file, known
    /// type, CRC, and that its payload is whole, well-formed records.
    func checkFrame(at offset: Int) -> Result<FrameHeader, Problem> {
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
            guard RecordFormat.decode(bytes, at: &position, end: end) != nil else {
                let op = bytes[recordStart]
                let reason =
                    (op == RecordOp.put || op == RecordOp.delete || op == RecordOp.defineKeyspace)
                    ? "malformed record" : "unknown record type \(op)"
                return .failure(Problem(offset: recordStart, reason: reason, checksummed: true))
            }
        }
        return .success(header)
    }
}
