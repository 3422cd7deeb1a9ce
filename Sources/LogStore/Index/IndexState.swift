/// Keyspace names and numbers (FORMAT.md, "Records": `defineKeyspace`).
struct KeyspaceTable {
    static let maxNameLength = 1024

    private(set) var ids: [String: Int] = [:]
    private(set) var names: [String?] = [nil]  // index 0 is reserved

    var nextID: Int { names.count }

    func id(of name: String) -> Int? { ids[name] }

    func name(of id: Int) -> String? { id < names.count ? names[id] : nil }

    /// Records that `id` names `name`; `false` (and no change) if the number is taken by another
    /// name, the name by another number, or the number is out of order.
    mutating func define(_ name: String, id: Int) -> Bool {
        if let existing = ids[name] { return existing == id }
        guard id == names.count else { return false }
        names.append(name)
        ids[name] = id
        return true
    }
}

/// Everything readers look at, guarded by the store's index lock: keyspace names, one
/// ``KeyDirectory`` per keyspace, the mapped segments, and the last visible sequence number.
struct IndexState: @unchecked Sendable {  // only ever touched under the index lock
    var keyspaces = KeyspaceTable()
    var directories: [KeyDirectory] = [KeyDirectory()]  // by keyspace number; 0 unused
    /// Segments by handle; `nil` once a segment is removed by compaction.
    var segments: [Segment?] = []
    var lastSequence: UInt64 = 0
    var closed = false

    /// Base addresses of `segments`, kept in step with it.
    var bases: SegmentBases = []

    /// Adds a segment; its handle must be the next one.
    mutating func addSegment(_ segment: Segment) {
        // Invariant: handles are dense and equal to the index in `segments`.
        assert(Int(segment.handle) == segments.count)
        segments.append(segment)
        bases.append(segment.base)
    }

    /// Applies one put: points its key at the record `ref`, which takes `encodedSize` bytes of
    /// its segment, and moves live-byte accounting from the record it replaces.
    ///
    /// `encodedSize` is what the record really takes, which is more than
    /// ``RecordFormat/encodedSize(keyspace:keyLength:valueLength:)`` when a file holds longer varints than
    /// needed (FORMAT.md allows them): the bytes added here must be those subtracted when the
    /// record is replaced (``StoredRecord/encodedSize``).
    @inline(__always)
    mutating func applyPut(
        keyspace: Int, hash: UInt32, ref: RecordRef, keyLength: Int, valueLength: Int,
        encodedSize: Int
    ) {
        segments[Int(ref.segment)]?.liveBytes += Int64(encodedSize)
        if let (oldRef, old) = directories[keyspace].set(
            hash: hash, to: ref, bytes: keyLength + valueLength, bases)
        {
            segments[Int(oldRef.segment)]?.liveBytes -= Int64(old.encodedSize)
        }
    }

    /// Applies one delete.
    @inline(__always)
    mutating func applyDelete(keyspace: Int, key: UnsafeRawBufferPointer) {
        if let (oldRef, old) = directories[keyspace].remove(key, bases) {
            segments[Int(oldRef.segment)]?.liveBytes -= Int64(old.encodedSize)
        }
    }

    /// Registers a keyspace name; `false` if `id` conflicts with what is known.
    mutating func define(_ name: String, id: Int) -> Bool {
        guard keyspaces.define(name, id: id) else { return false }
        while directories.count <= id { directories.append(KeyDirectory()) }
        return true
    }

    /// Applies every record of a checked commit read from `segment` (recovery and compaction).
    /// - Throws: ``LogStoreError/corruption(path:offset:reason:)`` for a record that names an
    ///   undefined keyspace or redefines one.
    mutating func applyCommit(_ scanner: SegmentScanner, start: Int, end: Int, segment: Segment)
        throws
    {
        try scanner.forEachRecord(start: start, end: end) { record in
            let keyspace = Int(clamping: record.keyspace)
            switch record.op {
            case RecordOp.defineKeyspace:
                guard let name = String(validating: record.key, as: UTF8.self),
                    define(name, id: keyspace)
                else {
                    throw LogStoreError.corruption(
                        path: segment.path, offset: Int64(record.recordOffset),
                        reason: "keyspace definition \(keyspace) conflicts with an earlier one")
                }
            case RecordOp.put:
                guard keyspace < directories.count, keyspaces.name(of: keyspace) != nil else {
                    throw undefined(keyspace, record, segment)
                }
                applyPut(
                    keyspace: keyspace, hash: KeyDirectory.hash(record.key),
                    ref: RecordRef(segment: segment.handle, offset: UInt32(record.recordOffset)),
                    keyLength: record.key.count, valueLength: record.value!.count,
                    encodedSize: record.encodedSize)
            default:
                guard keyspace < directories.count, keyspaces.name(of: keyspace) != nil else {
                    throw undefined(keyspace, record, segment)
                }
                applyDelete(keyspace: keyspace, key: record.key)
            }
        }
    }

    private func undefined(_ keyspace: Int, _ record: RecordView, _ segment: Segment)
        -> LogStoreError
    {
        .corruption(
            path: segment.path, offset: Int64(record.recordOffset),
            reason: "record uses keyspace \(keyspace), which is not defined before it")
    }
}
