/// Hint files (FORMAT.md, "Hint files"): for one segment, where each record starts and what it
/// does, in file order, so `open` rebuilds the index without walking the segment's frames.
/// Building and writing them is here; the rules for using one are in `Hint+Check.swift`.
///
/// ```
/// hint    := header (kind hint, the segment's order), entry*, trailer
/// entry   := op: u8, then
///   1 put, 2 delete: keyspace: varint, delta: varint  // record offset − the previous put's or
///                                                      // delete's record offset (0 before the first)
///   3 define:        keyspace: varint, nameLength: varint, name: [nameLength]u8
///   0x80 | d << 6 | keyspace (1…63; d: 0 put, 1 delete): delta: varint   // version 3
/// trailer := segmentSize: u64, lastSequence: u64, entries: u64, crc: u32  // crc32c of 24..<size-4
/// ```
enum Hint {
    static let trailerSize = 28

    /// A packed entry's first byte: this bit set, then the delete bit, then the keyspace in the
    /// low 6 bits (FORMAT.md, "Hint files"; hint version 3).
    static let packedBit: UInt8 = 0x80
    static let packedDeleteBit: UInt8 = 0x40
    static let packedKeyspaceLimit: UInt64 = 64

    /// Appends the entry of a put or delete of `keyspace` at `delta` bytes past the previous one:
    /// one byte for the op and keyspace when the keyspace is below 64, as most are.
    static func appendEntry(op: UInt8, keyspace: UInt64, delta: UInt64, to hint: inout [UInt8]) {
        if keyspace > 0 && keyspace < packedKeyspaceLimit {
            hint.append(
                packedBit | (op == RecordOp.delete ? packedDeleteBit : 0) | UInt8(keyspace))
        } else {
            hint.append(op)
            Varint.append(keyspace, to: &hint)
        }
        Varint.append(delta, to: &hint)
    }

    static func path(forSegment segmentPath: String) -> String {
        String(segmentPath.dropLast(4)) + ".hint"
    }

    /// The largest hint `segment` can have: an entry takes at most 11 bytes for a record of at
    /// least 4 (a definition entry is its record), so never 4 times the segment.
    static func sizeLimit(for segment: Segment) -> Int64 {
        Int64(segment.size) * 4 + Int64(FileHeader.size + trailerSize)
    }

    /// Builds the hint of a sealed segment by scanning it. Returns `nil` if the segment holds
    /// damage (a hint only ever describes a whole, checked segment). The segment's pages leave
    /// this process's memory behind the scan: a close or a compaction that writes the hint of a
    /// large segment does not bring all of it into memory.
    static func build(for segment: Segment) -> [UInt8]? {
        let bytes = segment.bytes()
        var hint = FileHeader(kind: .hint, fileOrder: segment.order).encoded()
        hint.reserveCapacity(bytes.count / 4)
        var scanner = SegmentScanner(bytes: bytes)
        scanner.releasePages = { segment.releasePages(from: $0, to: $1) }
        defer { segment.releasePages() }
        var entries: UInt64 = 0
        var lastSequence: UInt64 = 0
        var previous = 0
        while let event = scanner.next() {
            guard case .commit(let sequence, let start, let end) = event else { return nil }
            lastSequence = max(lastSequence, sequence)
            scanner.forEachRecord(start: start, end: end) { record in
                entries += 1
                switch record.op {
                case RecordOp.put, RecordOp.delete:
                    appendEntry(
                        op: record.op, keyspace: record.keyspace,
                        delta: UInt64(record.recordOffset - previous), to: &hint)
                    previous = record.recordOffset
                default:  // a definition entry is the definition record itself
                    RecordFormat.append(
                        op: record.op, keyspace: Int(record.keyspace), key: record.key,
                        value: nil, to: &hint)
                }
            }
        }
        appendTrailer(
            segmentSize: bytes.count, lastSequence: lastSequence, entries: Int(entries), to: &hint)
        return hint
    }

    /// Ends `hint` (its header and entries) with the trailer: what it describes, and the CRC.
    static func appendTrailer(
        segmentSize: Int, lastSequence: UInt64, entries: Int, to hint: inout [UInt8]
    ) {
        hint.appendLE(UInt64(segmentSize))
        hint.appendLE(lastSequence)
        hint.appendLE(UInt64(entries))
        let crc = hint.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size...]))
        }
        hint.appendLE(crc)
    }

    /// Writes the hint of `segment` beside it, crash-safely (temporary file, sync, rename,
    /// directory sync): `hint` if given (built as the segment was written), else one built by
    /// scanning it. Best effort: a store works without hints.
    static func write(
        _ hint: [UInt8]? = nil, for segment: Segment, directory: String,
        fileSystem fs: any FileSystem
    ) throws {
        guard let hint = hint ?? build(for: segment) else { return }
        try hint.withUnsafeBytes {
            try fs.writeAtomically($0, to: path(forSegment: segment.path), directory: directory)
        }
    }
}

extension Hint {
    /// The size the hint of `segment` describes, when the segment's file is longer and every
    /// byte of it past that size is zero: a zero tail (FORMAT.md, "Zero tail"), which a hint
    /// never covers. `nil` otherwise (no hint, a version without zero tails, or bytes that are
    /// not zero: the hint is then checked against the whole file, and fails as stale). A size
    /// taken from here is only a candidate: a caller that finds the hint unusable goes back to
    /// the file's size and scans. The hint is read from `opened` when given (left open).
    static func sizeBeforeZeroTail(
        of segment: Segment, fileSystem fs: any FileSystem, opened: OpenFile? = nil
    ) -> Int? {
        guard segment.formatVersion >= ZeroTail.firstVersion,
            let file = try? opened
                ?? fs.open(path(forSegment: segment.path), create: false, readOnly: true)
        else { return nil }
        defer { if opened == nil { try? fs.close(file) } }
        guard let size = try? fs.size(file), size >= Int64(FileHeader.size + trailerSize) else {
            return nil
        }
        var trailer = [UInt8](repeating: 0, count: 8)
        guard
            let read = try? trailer.withUnsafeMutableBytes({
                try fs.read(file, into: $0, at: size - Int64(trailerSize))
            }), read == 8
        else { return nil }
        let described = trailer.withUnsafeBytes { $0.loadLE(at: 0, as: UInt64.self) }
        guard described >= UInt64(FileHeader.size), described < UInt64(segment.size),
            ZeroTail.isZero(segment.bytes(), from: Int(described))
        else { return nil }
        return Int(described)
    }
}
