/// Hint files (FORMAT.md, "Hint files"): for one segment, where each record starts and what it
/// does, so `open` rebuilds the index without walking frames, in table order rather than log order.
///
/// ```
/// hint    := header (kind hint, the segment's order), entry*, trailer
/// entry   := op: u8, then
///   1 put, 2 delete: keyspace: varint, delta: varint  // record offset − the previous put's or
///                                                      // delete's record offset (0 before the first)
///   3 define:        keyspace: varint, nameLength: varint, name: [nameLength]u8
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
        var previous = 0
        while let event = scanner.next() {
            guard case .commit(let sequence, let start, let end) = event else { return nil }
            lastSequence = max(lastSequence, sequence)
            scanner.forEachRecord(start: start, end: end) { record in
                entries += 1
                switch record.op {
                case RecordOp.put, RecordOp.delete:
                    hint.append(record.op)
                    Varint.append(record.keyspace, to: &hint)
                    Varint.append(UInt64(record.recordOffset - previous), to: &hint)
                    previous = record.recordOffset
                default:  // a definition entry is the definition record itself
                    RecordFormat.append(
                        op: record.op, keyspace: Int(record.keyspace), key: record.key,
                        value: nil, to: &hint)
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

    /// One put or delete from a hint, waiting to be applied. 16 bytes: a key is at most 65,535
    /// bytes, and a record's op and varints at most 31.
    struct Operation {
        static let deleted = UInt32.max  // in `valueLength`: a delete

        var hash: UInt32
        var offset: UInt32
        var valueLength: UInt32
        var keyLength: UInt16
        /// Bytes of the record's op and varints (more than the shortest encoding needs if the
        /// file says so).
        var headerSize: UInt16  // not UInt8: a 16-byte size (not just stride) sorts faster

        var encodedSize: Int { Int(headerSize) + Int(keyLength) + Int(valueLength) }
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
        // Compared as a u64: the field is read from the file, and may not fit an Int.
        guard bytes.loadLE(at: trailer, as: UInt64.self) == UInt64(segment.size) else {
            throw Unusable(reason: "it describes a segment of another size")
        }
        let lastSequence = bytes.loadLE(at: trailer + 8, as: UInt64.self)
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<trailer])
        // Check every entry (nothing is applied unless all are good), collecting what to apply.
        var definitions: [(name: String, id: Int)] = []
        var operations: [[Operation]] = []  // by keyspace number
        // Highest keyspace number defined so far: numbers come in order, so a hostile number
        // cannot make `operations` huge.
        var definedLimit = state.keyspaces.nextID - 1
        var previous = 0
        let segmentBytes = segment.bytes()
        var offset = FileHeader.size
        while offset < body.count {
            let op = body[offset]
            if op == RecordOp.defineKeyspace {
                // A definition entry is a definition record (FORMAT.md, "Records").
                guard let record = RecordFormat.decode(body, at: &offset, end: body.count),
                    record.keyspace < 1 << 31,
                    let name = String(validating: record.key, as: UTF8.self)
                else { throw Unusable(reason: "bad define entry at \(offset)") }
                let id = Int(record.keyspace)
                guard id <= definedLimit + 1 else {
                    throw Unusable(reason: "entry defines keyspace \(id) out of order")
                }
                definitions.append((name, id))
                definedLimit = max(definedLimit, id)
                continue
            }
            offset += 1
            guard let keyspace = Varint.read(body, &offset), keyspace > 0, keyspace < 1 << 31 else {
                throw Unusable(reason: "bad entry at \(offset)")
            }
            let id = Int(keyspace)
            guard id <= definedLimit else {
                throw Unusable(reason: "entry uses keyspace \(id) before it is defined")
            }
            switch op {
            case RecordOp.put, RecordOp.delete:
                guard let delta = Varint.read(body, &offset), delta <= UInt64(segment.size) else {
                    throw Unusable(reason: "bad entry at \(offset)")
                }
                let recordOffset = previous + Int(delta)
                previous = recordOffset
                // The record must be there, as the entry says: reads, which trust the index,
                // then stay inside the segment even if the hint was forged.
                var position = recordOffset
                guard recordOffset >= FileHeader.size, recordOffset < segment.size,
                    let record = RecordFormat.decode(
                        segmentBytes, at: &position, end: segment.size),
                    record.op == op, record.keyspace == keyspace
                else {
                    throw Unusable(reason: "entry does not match the record at \(recordOffset)")
                }
                while operations.count <= id { operations.append([]) }
                operations[id].append(
                    Operation(
                        hash: KeyDirectory.hash(record.key), offset: UInt32(recordOffset),
                        valueLength: op == RecordOp.put
                            ? UInt32(record.value!.count) : Operation.deleted,
                        keyLength: UInt16(record.key.count),
                        headerSize: UInt16(
                            record.encodedSize - record.key.count - (record.value?.count ?? 0))))
            default:
                throw Unusable(reason: "unknown entry type \(op)")
            }
        }
        // Definitions are checked on a copy of the keyspace table: a refused hint leaves `state`
        // as it was.
        var keyspaces = state.keyspaces
        for definition in definitions {
            guard keyspaces.define(definition.name, id: definition.id) else {
                throw Unusable(reason: "conflicting keyspace")
            }
        }
        for (id, list) in operations.enumerated() where !list.isEmpty {
            guard keyspaces.name(of: id) != nil else {
                throw Unusable(reason: "undefined keyspace")
            }
        }
        // Nothing below throws.
        for definition in definitions { _ = state.define(definition.name, id: definition.id) }
        for (id, list) in operations.enumerated() where !list.isEmpty {
            // Applied in the order of their home slots in the table (stable, so operations on one
            // key keep their log order): the table is then written front to back, not at random.
            let puts = list.reduce(0) { $0 + ($1.valueLength == Operation.deleted ? 0 : 1) }
            state.directories[id].reserve(state.directories[id].count + puts)
            let mask = UInt64(state.directories[id].capacity - 1)
            var list = list
            RadixSort.sort(&list) { UInt64($0.hash) & mask }
            for operation in list {
                let ref = RecordRef(segment: segment.handle, offset: operation.offset)
                if operation.valueLength == Operation.deleted {
                    state.applyDelete(
                        keyspace: id,
                        key: StoredRecord(at: segmentBytes.baseAddress! + Int(operation.offset)).key
                    )
                } else {
                    state.applyPut(
                        keyspace: id, hash: operation.hash, ref: ref,
                        keyLength: Int(operation.keyLength),
                        valueLength: Int(operation.valueLength), encodedSize: operation.encodedSize)
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
