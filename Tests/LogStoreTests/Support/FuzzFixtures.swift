// Part of the `frames` and `hints` fuzz bodies (Tests/Fuzz/README.md): compiled into the LogStore
// module by Tests/Fuzz/build.sh (-D FUZZING), and into LogStoreTests for the corpus replay.
#if !FUZZING
    @testable import LogStore
#endif

/// Segments and hints for the decoder fuzz bodies: valid headers, CRC repair (so the fuzzer gets
/// past checksums to the fields behind them), a fixed sample segment, and segments made from bytes
/// through a ``ByteFileSystem``.
enum FuzzFixtures {
    static let directory = "/fuzz"
    /// The order of the first ordinary segment (FORMAT.md, "Directory layout").
    static let order: UInt64 = 1 << 16

    /// A segment over `bytes`, as `open` maps a sealed one (never growing).
    static func segment(_ bytes: [UInt8], handle: UInt32 = 0, order: UInt64 = order) -> Segment {
        let path = directory + "/" + Segment.fileName(order: order)
        // Cannot throw: the file is there and a ByteFileSystem's open, size and map do not fail.
        return try! Segment(
            directory: directory, order: order, handle: handle,
            fileSystem: ByteFileSystem(files: [path: bytes]), growing: false)
    }

    /// Recomputes the CRC of every frame from `start` on whose length fits in `bytes`, stopping at
    /// the first that does not. Knows nothing of frame types.
    static func sealFrames(_ bytes: inout [UInt8], from start: Int) {
        var position = start
        while position + Frame.headerSize <= bytes.count {
            let length = bytes.withUnsafeBytes { Int($0.loadLE(at: position + 4, as: UInt32.self)) }
            guard length <= bytes.count - position - Frame.headerSize else { return }
            let crc = bytes.withUnsafeBytes {
                Checksum.crc32c(
                    UnsafeRawBufferPointer(
                        rebasing: $0[(position + 4)..<(position + Frame.headerSize + length)]))
            }
            bytes.storeLE(crc, at: position)
            position += Frame.headerSize + length
        }
    }

    /// Wraps the body of a hint file (entries and the first three trailer fields) in a valid
    /// header for the segment of `order` and the CRC that closes the trailer.
    static func sealHint(_ body: [UInt8], order: UInt64) -> [UInt8] {
        var hint = FileHeader(kind: .hint, fileOrder: order).encoded() + body
        let crc = hint.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size...]))
        }
        hint.appendLE(crc)
        return hint
    }

    /// A record's bytes (FORMAT.md, "Records"); `value` only for a put.
    static func record(_ op: UInt8, keyspace: UInt64, key: [UInt8], value: [UInt8]? = nil)
        -> [UInt8]
    {
        var bytes = [op]
        Varint.append(keyspace, to: &bytes)
        Varint.append(UInt64(key.count), to: &bytes)
        if let value { Varint.append(UInt64(value.count), to: &bytes) }
        return bytes + key + (value ?? [])
    }

    /// A frame holding `records`, with its CRC.
    static func frame(_ type: FrameType, sequence: UInt64, records: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        FrameHeader.appendPlaceholder(type: type, sequence: sequence, to: &bytes)
        for record in records { bytes += record }
        FrameHeader.sealFrame(&bytes, at: 0, type: type)
        return bytes
    }

    /// A valid segment of order ``order``: a one-frame commit defining two keyspaces and putting
    /// three keys, a three-frame commit of puts, an overwrite and a delete, and a one-frame commit
    /// with an empty key and value.
    static let sampleSegment: [UInt8] = {
        let put = RecordOp.put
        let delete = RecordOp.delete
        let define = RecordOp.defineKeyspace
        var bytes = FileHeader(kind: .segment, fileOrder: order).encoded()
        bytes += frame(
            .full, sequence: 1,
            records: [
                record(define, keyspace: 1, key: Array("people".utf8)),
                record(define, keyspace: 2, key: Array("teams".utf8)),
                record(put, keyspace: 1, key: Array("e1".utf8), value: Array("Ann".utf8)),
                record(put, keyspace: 1, key: Array("e2".utf8), value: Array("Bo".utf8)),
                record(
                    put, keyspace: 2, key: Array("t1".utf8),
                    value: [UInt8](repeating: 7, count: 200)),
            ])
        bytes += frame(
            .first, sequence: 2,
            records: [record(put, keyspace: 1, key: Array("e3".utf8), value: Array("Cy".utf8))])
        bytes += frame(
            .middle, sequence: 2,
            records: [
                record(put, keyspace: 1, key: Array("e1".utf8), value: Array("Ann2".utf8)),
                record(delete, keyspace: 1, key: Array("e2".utf8)),
            ])
        bytes += frame(
            .last, sequence: 2, records: [record(delete, keyspace: 2, key: Array("none".utf8))])
        bytes += frame(.full, sequence: 3, records: [record(put, keyspace: 1, key: [], value: [])])
        return bytes
    }()
}

/// What an index holds, for comparing two (a scan against a hint) or one before and after a
/// failed change: keyspace names, and per keyspace the live records in log order with their
/// byte counts, plus each segment's live bytes.
struct IndexSnapshot: Equatable {
    var names: [String?] = []
    var records: [[RecordRef]] = []
    var counts: [Int] = []
    var liveBytes: [Int64] = []
    var segmentLiveBytes: [Int64] = []

    init(_ state: StoreState) {
        for id in 0..<state.keyspaces.nextID { names.append(state.keyspaces.name(of: id)) }
        for directory in state.directories {
            records.append(
                FuzzFixtures.references(directory).sorted {
                    ($0.segment, $0.offset) < ($1.segment, $1.offset)
                })
            counts.append(directory.count)
            liveBytes.append(directory.liveBytes)
        }
        segmentLiveBytes = state.segments.map { $0?.liveBytes ?? -1 }
    }
}

extension FuzzFixtures {
    /// The references of `directory`'s entries, in table order, read without following them.
    static func references(_ directory: KeyDirectory) -> [RecordRef] {
        (0..<directory.table.count).compactMap {
            directory.table[$0].isEmpty ? nil : directory.table[$0].ref
        }
    }

    /// What is wrong with an index whose every entry should point at a checked put record: each
    /// entry's record must decode inside its segment as a put of the entry's keyspace, and the byte
    /// counts of keyspaces and segments must be the sums over their live records.
    static func indexProblems(_ state: StoreState) -> [String] {
        var problems: [String] = []
        var segmentBytes = [Int64](repeating: 0, count: state.segments.count)
        for (id, directory) in state.directories.enumerated() {
            var keys = 0
            var bytes: Int64 = 0
            var bad = false
            // The raw references, not a walk: a walk checks each record itself, and throws at
            // the first bad one.
            for ref in references(directory) {
                keys += 1
                guard Int(ref.segment) < state.segments.count,
                    let segment = state.segments[Int(ref.segment)]
                else {
                    bad = true
                    problems.append("keyspace \(id): an entry names segment \(ref.segment)")
                    continue
                }
                var position = Int(ref.offset)
                let data = segment.bytes()
                guard position >= FileHeader.size, position < data.count,
                    let record = RecordFormat.decode(data, at: &position, end: data.count),
                    record.op == RecordOp.put, record.keyspace == UInt64(id)
                else {
                    bad = true
                    problems.append("keyspace \(id): entry at \(ref.offset) is not a put of it")
                    continue
                }
                // Only now is it safe to read the record the way the store does.
                let stored = StoredRecord(state.bases, ref)
                if stored.key.baseAddress != record.key.baseAddress
                    || stored.key.count != record.key.count
                    || stored.value.count != record.value!.count
                    || stored.encodedSize != record.encodedSize
                {
                    problems.append("keyspace \(id): StoredRecord reads \(ref.offset) differently")
                }
                bytes += Int64(record.key.count + record.value!.count)
                segmentBytes[Int(ref.segment)] += Int64(record.encodedSize)
            }
            guard !bad else { return problems }
            if keys != directory.count {
                problems.append("keyspace \(id): \(keys) entries, count says \(directory.count)")
            }
            if bytes != directory.liveBytes {
                problems.append(
                    "keyspace \(id): live bytes \(directory.liveBytes), records hold \(bytes)")
            }
        }
        for (handle, segment) in state.segments.enumerated() {
            guard let segment, segment.liveBytes != segmentBytes[handle] else { continue }
            problems.append(
                "segment \(handle): live bytes \(segment.liveBytes), "
                    + "its live records take \(segmentBytes[handle])")
        }
        return problems
    }
}
