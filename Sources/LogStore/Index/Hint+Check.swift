/// Whether a hint may be used, and using it: the rules that `open` and
/// ``LogInspector/verify(storeAt:)`` share (FORMAT.md, "Hint files").
extension Hint {
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

    /// A hint that passed every check, ready to apply.
    struct Checked {
        /// The keyspace definitions it holds, in order (repeats included).
        var definitions: [(name: String, id: Int)] = []
        /// Its puts and deletes by keyspace number (empty when the check did not keep them).
        var operations: [[Operation]] = []
        /// The trailer's `lastSequence`.
        var lastSequence: UInt64 = 0
    }

    /// Checks the hint file of `segment`, whose header is valid, by every rule `open` applies
    /// before using one: its size within ``sizeLimit(for:)``; its header and order; its CRC; that
    /// it describes the segment at its present size; that every frame CRC of the segment matches
    /// (read through `pread`, not the mapping); that its entries agree with `keyspaces` (the
    /// numbers the segments before define) and with the records they point at; and that they
    /// cover the segment's records exactly. It keeps the puts and deletes of the keyspaces named
    /// in `keeping` (all when `nil`, none when empty: a check that applies nothing needs no memory
    /// per record).
    /// The hint is read from `opened` when given (its caller's, left open), else opened by name.
    /// - Throws: ``Unusable`` for a hint that breaks a rule; ``LogStoreError`` if it cannot be
    ///   read.
    static func check(
        segment: Segment, keyspaces: KeyspaceTable, fileSystem fs: any FileSystem,
        keeping: Set<String>? = nil, opened: OpenFile? = nil
    ) throws -> Checked {
        let file =
            try opened ?? fs.open(path(forSegment: segment.path), create: false, readOnly: true)
        defer { if opened == nil { try? fs.close(file) } }
        let size = try fs.size(file)
        guard size <= sizeLimit(for: segment) else {
            throw Unusable(reason: "larger than its segment allows")
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = try bytes.withUnsafeMutableBytes { try fs.read(file, into: $0, at: 0) }
        guard read == bytes.count else { throw Unusable(reason: "short read") }
        return try bytes.withUnsafeBytes { hint in
            // The hint's own checks first: a stale hint is refused without reading its segment.
            let header = try checkEnvelope(hint, segment: segment)
            guard let recordBytes = try segment.checkedRecordBytes(fileSystem: fs) else {
                throw Unusable(reason: "its segment fails a checksum")
            }
            return try parse(
                hint, version: header.version, segment: segment, keyspaces: keyspaces,
                recordBytes: recordBytes, keeping: keeping)
        }
    }

    /// Applies the hint in `bytes` for `segment` to `state`, after every check of
    /// ``check(segment:keyspaces:fileSystem:keeping:)`` but its size: a bad hint changes
    /// nothing. Returns the trailer's `lastSequence`.
    static func apply(_ bytes: UnsafeRawBufferPointer, to segment: Segment, state: inout StoreState)
        throws -> UInt64
    {
        let header = try checkEnvelope(bytes, segment: segment)
        guard let recordBytes = try segment.checkedRecordBytes() else {
            throw Unusable(reason: "its segment fails a checksum")
        }
        let checked = try parse(
            bytes, version: header.version, segment: segment, keyspaces: state.keyspaces,
            recordBytes: recordBytes, keeping: state.onlyKeyspaces)
        apply(checked, to: segment, state: &state)
        return checked.lastSequence
    }

    /// Checks what the hint in `bytes` says of itself: its length, header, order and CRC, and
    /// that it describes `segment` at its present size.
    @discardableResult
    private static func checkEnvelope(_ bytes: UnsafeRawBufferPointer, segment: Segment) throws
        -> FileHeader
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
        guard header.fileOrder == segment.order else {
            throw Unusable(reason: "its header names another segment")
        }
        guard
            Checksum.crc32c(
                UnsafeRawBufferPointer(rebasing: bytes[FileHeader.size..<bytes.count - 4]))
                == bytes.loadLE(at: bytes.count - 4, as: UInt32.self)
        else { throw Unusable(reason: "checksum mismatch") }
        // Compared as a u64: the field is read from the file, and may not fit an Int.
        guard bytes.loadLE(at: trailer, as: UInt64.self) == UInt64(segment.size) else {
            throw Unusable(reason: "it describes a segment of another size")
        }
        return header
    }

    /// Checks the entries of the hint in `bytes`, whose envelope passed ``checkEnvelope`` and
    /// whose header says `version`, against `segment`, whose frames checked out holding
    /// `recordBytes` bytes of records. Packed entries are valid from hint version 3 only.
    private static func parse(
        _ bytes: UnsafeRawBufferPointer, version: UInt16, segment: Segment,
        keyspaces start: KeyspaceTable, recordBytes: Int, keeping: Set<String>?
    ) throws -> Checked {
        let trailer = bytes.count - trailerSize
        var checked = Checked(lastSequence: bytes.loadLE(at: trailer + 8, as: UInt64.self))
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<trailer])
        // The same keyspace rules as a scan of the segment, on a copy: a refused hint leaves
        // nothing changed.
        var keyspaces = start
        var previous = 0  // offset of the previous put or delete
        var previousEnd = FileHeader.size  // where it ends
        var covered = 0  // bytes of records the entries account for
        var kept: [Bool] = []  // by keyspace number, whether its operations are kept
        let segmentBytes = segment.bytes()
        // The segment's pages the entries have passed leave memory as the check goes: entries
        // come in log order, and the check reads every record once.
        var releasedUpTo = 0
        var offset = FileHeader.size
        while offset < body.count {
            let op = body[offset]
            if op == RecordOp.defineKeyspace {
                // A definition entry is a definition record (FORMAT.md, "Records").
                let entryStart = offset
                guard let record = RecordFormat.decode(body, at: &offset, end: body.count),
                    record.keyspace < 1 << 31
                else { throw Unusable(reason: "bad define entry at \(entryStart)") }
                if let problem = keyspaces.check(record) { throw Unusable(reason: problem) }
                checked.definitions.append(
                    (String(decoding: record.key, as: UTF8.self), Int(record.keyspace)))
                covered += record.encodedSize
                continue
            }
            let packed = op & packedBit != 0 && version >= 3
            guard packed || op == RecordOp.put || op == RecordOp.delete else {
                throw Unusable(reason: "unknown entry type \(op)")
            }
            offset += 1
            guard
                let keyspace = packed
                    ? UInt64(op & (packedDeleteBit - 1)) : Varint.read(body, &offset),
                keyspace > 0, keyspace < 1 << 31,
                let delta = Varint.read(body, &offset), delta <= UInt64(segment.size)
            else {
                throw Unusable(reason: "bad entry at \(offset)")
            }
            let entryOp = packed ? (op & packedDeleteBit != 0 ? RecordOp.delete : RecordOp.put) : op
            let recordOffset = previous + Int(delta)
            previous = recordOffset
            if recordOffset - releasedUpTo >= WalkPageRelease.step {
                let behind = recordOffset & ~4095
                segment.releasePages(
                    from: WalkPageRelease.releaseStart(after: releasedUpTo), to: behind)
                releasedUpTo = behind
            }
            // The record must be there, as the entry says, after the one before: reads, which
            // trust the index, then stay inside the segment even if the hint was forged.
            var position = recordOffset
            guard recordOffset >= previousEnd, recordOffset < segment.size,
                let record = RecordFormat.decode(segmentBytes, at: &position, end: segment.size),
                record.op == entryOp, record.keyspace == keyspace
            else {
                throw Unusable(reason: "entry does not match the record at \(recordOffset)")
            }
            if let problem = keyspaces.check(record) { throw Unusable(reason: problem) }
            previousEnd = position
            covered += record.encodedSize
            let id = Int(keyspace)
            while kept.count <= id {
                kept.append(
                    keeping.map { $0.contains(keyspaces.name(of: kept.count) ?? "") } ?? true)
            }
            guard kept[id] else { continue }
            while checked.operations.count <= id { checked.operations.append([]) }
            checked.operations[id].append(
                Operation(
                    hash: KeyDirectory.hash(record.key), offset: UInt32(recordOffset),
                    valueLength: entryOp == RecordOp.put
                        ? UInt32(record.value!.count) : Operation.deleted,
                    keyLength: UInt16(record.key.count),
                    headerSize: UInt16(
                        record.encodedSize - record.key.count - (record.value?.count ?? 0))))
        }
        // Entries in order, none overlapping, adding up to every record byte: they describe
        // each record of the segment, so the index they give is the one a scan gives.
        guard covered == recordBytes else {
            throw Unusable(
                reason: "its entries cover \(covered) of the segment's \(recordBytes) record bytes")
        }
        return checked
    }

    /// Applies a checked hint of `segment` to `state`.
    static func apply(_ checked: Checked, to segment: Segment, state: inout StoreState) {
        for definition in checked.definitions {
            let defined = state.define(definition.name, id: definition.id)
            // Invariant: checked against the same table.
            assert(defined)
        }
        let segmentBytes = segment.bytes()
        for (id, list) in checked.operations.enumerated() where !list.isEmpty && state.indexed[id] {
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
    }
}
