/// Hint files (FORMAT.md, "Hint files"): for one sealed segment, what `open` needs to rebuild the
/// index — each record's keyspace, lengths, key hash and offset — without reading keys or values.
///
/// ```
/// hint    := header (kind hint, the segment's order), entry*, trailer
/// entry   := op: u8, then
///   1 put:    keyspace: varint, keyLength: varint, valueLength: varint, hash: u32, offset: u32
///   2 delete: keyspace: varint, offset: u32
///   3 define: keyspace: varint, nameLength: varint, name: [nameLength]u8
/// trailer := segmentSize: u64, lastSequence: u64, entries: u64, crc: u32  // crc32c of 24..<size-4
/// ```
enum Hint {
    static let trailerSize = 28

    static func path(forSegment segmentPath: String) -> String {
        String(segmentPath.dropLast(4)) + ".hint"
    }

    /// Builds the hint of a sealed segment by scanning it. Returns `nil` if the segment holds
    /// damage (a hint only ever describes a whole, checked segment).
    static func build(for segment: Segment) -> [UInt8]? {
        let bytes = segment.bytes()
        var hint = FileHeader(kind: .hint, fileOrder: segment.order).encoded()
        hint.reserveCapacity(bytes.count / 4)
        var scanner = SegmentScanner(bytes: bytes)
        var entries: UInt64 = 0
        var lastSequence: UInt64 = 0
        while let event = scanner.next() {
            guard case .commit(let sequence, let start, let end) = event else { return nil }
            lastSequence = max(lastSequence, sequence)
            scanner.forEachRecord(start: start, end: end) { record in
                entries += 1
                hint.append(record.op)
                Varint.append(record.keyspace, to: &hint)
                switch record.op {
                case RecordOp.put:
                    Varint.append(UInt64(record.key.count), to: &hint)
                    Varint.append(UInt64(record.value!.count), to: &hint)
                    hint.appendLE(KeyDirectory.hash(record.key))
                    hint.appendLE(UInt32(record.recordOffset))
                case RecordOp.delete:
                    hint.appendLE(UInt32(record.recordOffset))
                default:
                    Varint.append(UInt64(record.key.count), to: &hint)
                    hint.append(contentsOf: record.key)
                }
            }
        }
        hint.appendLE(UInt64(bytes.count))
        hint.appendLE(lastSequence)
        hint.appendLE(entries)
        let crc = hint.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size...]))
        }
        hint.appendLE(crc)
        return hint
    }

    /// Writes the hint of `segment` beside it, crash-safely (temporary file, sync, rename,
    /// directory sync). Best effort: a store works without hints.
    static func write(for segment: Segment, directory: String, fileSystem fs: any FileSystem) throws
    {
        guard let hint = build(for: segment) else { return }
        let final = path(forSegment: segment.path)
        let temporary = final + ".tmp"
        let file = try fs.open(temporary, create: true, readOnly: false)
        do {
            try fs.truncate(file, to: 0)
            try hint.withUnsafeBytes { try fs.writeAll(file, $0, at: 0) }
            try fs.syncData(file)
            try fs.close(file)
        } catch {
            try? fs.close(file)
            try? fs.remove(temporary)
            throw error
        }
        try fs.rename(temporary, to: final)
        try fs.syncDirectory(directory)
    }

    /// Why a hint cannot be used.
    struct Unusable: Error {
        var reason: String
    }

    /// Applies the hint in `bytes` for `segment` to `state`. Checks everything first (header,
    /// CRC, that it describes the segment as it is, every entry's bounds) so a bad hint changes
    /// nothing and the caller scans the segment instead.
    static func apply(_ bytes: UnsafeRawBufferPointer, to segment: Segment, state: inout IndexState)
        throws
        -> UInt64
    {
        guard bytes.count >= FileHeader.size + trailerSize else {
            throw Unusable(reason: "too short")
        }
        let header: FileHeader
        do {
            header = try FileHeader.decode(bytes, kind: .hint, path: segment.path)
        } catch {
            throw Unusable(reason: "bad header")
        }
        let trailer = bytes.count - trailerSize
        guard header.fileOrder == segment.order,
            Checksum.crc32c(
                UnsafeRawBufferPointer(rebasing: bytes[FileHeader.size..<bytes.count - 4]))
                == bytes.loadLE(at: bytes.count - 4, as: UInt32.self)
        else { throw Unusable(reason: "checksum mismatch") }
        guard Int(bytes.loadLE(at: trailer, as: UInt64.self)) == segment.size else {
            throw Unusable(reason: "it describes a segment of another size")
        }
        let lastSequence = bytes.loadLE(at: trailer + 8, as: UInt64.self)
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<trailer])
        // Pass 1: check every entry; pass 2: apply.
        for applying in [false, true] {
            var offset = FileHeader.size
            while offset < body.count {
                let op = body[offset]
                offset += 1
                guard let keyspace = Varint.read(body, &offset), keyspace > 0, keyspace < 1 << 31
                else {
                    throw Unusable(reason: "bad entry at \(offset)")
                }
                let id = Int(keyspace)
                switch op {
                case RecordOp.put:
                    guard let keyLength = Varint.read(body, &offset),
                        let valueLength = Varint.read(body, &offset),
                        offset + 8 <= body.count, keyLength <= Frame.maxKeyLength,
                        valueLength <= Frame.maxValueLength
                    else { throw Unusable(reason: "bad put entry") }
                    let hash = body.loadLE(at: offset, as: UInt32.self)
                    let recordOffset = Int(body.loadLE(at: offset + 4, as: UInt32.self))
                    offset += 8
                    let size = IndexState.encodedSize(
                        keyspace: id, keyLength: Int(keyLength), valueLength: Int(valueLength))
                    // The record must be where the hint says, as the hint says: then reads, which
                    // trust the index, stay inside the segment even if the hint was forged.
                    var position = recordOffset
                    guard
                        !applying
                            || recordOffset >= FileHeader.size
                                && recordOffset + size <= segment.size,
                        !applying
                            || SegmentScanner.decodeRecord(
                                segment.bytes(), at: &position, end: segment.size
                            ).map({
                                $0.op == RecordOp.put && $0.keyspace == keyspace
                                    && $0.key.count == Int(keyLength)
                                    && $0.value!.count == Int(valueLength)
                            }) == true
                    else { throw Unusable(reason: "put entry does not match its record") }
                    if applying {
                        guard id < state.directories.count, state.keyspaces.name(of: id) != nil
                        else {
                            throw Unusable(reason: "undefined keyspace")
                        }
                        state.applyPut(
                            keyspace: id, hash: hash,
                            ref: RecordRef(segment: segment.handle, offset: UInt32(recordOffset)),
                            keyLength: Int(keyLength), valueLength: Int(valueLength))
                    }
                case RecordOp.delete:
                    guard offset + 4 <= body.count else {
                        throw Unusable(reason: "bad delete entry")
                    }
                    let recordOffset = Int(body.loadLE(at: offset, as: UInt32.self))
                    offset += 4
                    var position = recordOffset
                    guard recordOffset >= FileHeader.size, recordOffset < segment.size,
                        let record = SegmentScanner.decodeRecord(
                            segment.bytes(), at: &position, end: segment.size),
                        record.op == RecordOp.delete, record.keyspace == keyspace
                    else { throw Unusable(reason: "delete entry does not match its record") }
                    if applying {
                        guard id < state.directories.count else {
                            throw Unusable(reason: "undefined keyspace")
                        }
                        state.applyDelete(keyspace: id, key: record.key)
                    }
                case RecordOp.defineKeyspace:
                    guard let length = Varint.read(body, &offset),
                        length <= KeyspaceTable.maxNameLength,
                        offset + Int(length) <= body.count,
                        let name = String(
                            validating: UnsafeRawBufferPointer(
                                rebasing: body[offset..<offset + Int(length)]),
                            as: UTF8.self)
                    else { throw Unusable(reason: "bad define entry") }
                    offset += Int(length)
                    if applying {
                        guard state.define(name, id: id) else {
                            throw Unusable(reason: "conflicting keyspace")
                        }
                    }
                default:
                    throw Unusable(reason: "unknown entry type \(op)")
                }
            }
        }
        return lastSequence
    }
}

extension Hint {
    /// Why the hint in `bytes` does not describe `segment` exactly, or `nil` if it does: the same
    /// entries, in order, as a fresh hint built from the segment (the check `logbook verify` runs).
    static func mismatch(_ bytes: [UInt8], segment: Segment) -> String? {
        guard let expected = build(for: segment) else { return "its segment is damaged" }
        guard bytes.count >= FileHeader.size + trailerSize else { return "the file is too short" }
        if bytes == expected { return nil }
        let stored = bytes.withUnsafeBytes { raw in
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: raw[FileHeader.size..<raw.count - 4]))
        }
        if stored != bytes.withUnsafeBytes({ $0.loadLE(at: $0.count - 4, as: UInt32.self) }) {
            return "hint checksum mismatch"
        }
        if bytes.prefix(FileHeader.size) != expected.prefix(FileHeader.size) {
            return "header does not match its segment"
        }
        let offset =
            zip(bytes, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(bytes.count, expected.count)
        return "differs from its segment's records at hint offset \(offset)"
    }
}

extension LogInspector {
    /// Checks every hint file of the store at `path` against its segment: each must list exactly
    /// the segment's records (a hint that does not is ignored by `open`, so this is a warning, not
    /// data loss). Also lists hint files whose segment is missing.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the directory cannot be listed.
    public static func hintProblems(storeAt path: String) throws -> [Problem] {
        let fs = PosixFileSystem()
        var problems: [Problem] = []
        let names = try fs.contents(ofDirectory: path)
        for name in names where name.hasSuffix(".hint") {
            let hintPath = path + "/" + name
            let segmentName = String(name.dropLast(5)) + ".seg"
            guard let order = Segment.order(fromFileName: segmentName), names.contains(segmentName)
            else {
                problems.append(
                    Problem(
                        path: hintPath, offset: 0, reason: "hint file without its segment",
                        isTornTail: false))
                continue
            }
            do {
                let segment = try Segment(
                    directory: path, order: order, handle: 0, fileSystem: fs, growing: false)
                let file = try fs.open(hintPath, create: false, readOnly: true)
                defer { try? fs.close(file) }
                let size = Int(try fs.size(file))
                guard size <= segment.size * 4 + 1024 else {
                    problems.append(
                        Problem(
                            path: hintPath, offset: 0,
                            reason: "hint larger than its segment allows", isTornTail: false))
                    continue
                }
                var bytes = [UInt8](repeating: 0, count: size)
                _ = try bytes.withUnsafeMutableBytes { try fs.read(file, into: $0, at: 0) }
                if let reason = Hint.mismatch(bytes, segment: segment) {
                    problems.append(
                        Problem(path: hintPath, offset: 0, reason: reason, isTornTail: false))
                }
            } catch {
                problems.append(
                    Problem(path: hintPath, offset: 0, reason: "\(error)", isTornTail: false))
            }
        }
        return problems
    }
}
