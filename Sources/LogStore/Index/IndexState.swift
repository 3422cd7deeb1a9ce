/// Keyspace names and numbers (FORMAT.md, "Records": `defineKeyspace`).
struct KeyspaceTable {
    static let maxNameLength = 1024

    private(set) var ids: [String: Int] = [:]
    private(set) var names: [String?] = [nil]  // index 0 is reserved

    var nextID: Int { names.count }

    func id(of name: String) -> Int? { ids[name] }

    func name(of id: Int) -> String? { id < names.count ? names[id] : nil }

    /// Records that `id` names `name`.
    /// - Throws: ``LogStoreError/corruption(path:offset:reason:)`` via the caller's context if the
    ///   number is already taken by another name or out of order.
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
struct IndexState {
    var keyspaces = KeyspaceTable()
    var directories: [KeyDirectory] = [KeyDirectory()]  // by keyspace number; 0 unused
    /// Segments by handle; `nil` once a segment is removed by compaction.
    var segments: [Segment?] = []
    var lastSequence: UInt64 = 0
    var closed = false

    /// Bytes a record with these lengths occupies in a payload.
    @inline(__always)
    static func recordSize(keyspace: Int, keyLength: Int, valueLength: Int?) -> Int64 {
        var size = 1 + Varint.size(UInt64(keyspace)) + Varint.size(UInt64(keyLength)) + keyLength
        if let valueLength { size += Varint.size(UInt64(valueLength)) + valueLength }
        return Int64(size)
    }

    /// Applies one put: points `key` at `location`, and moves live-byte accounting from the
    /// record it replaces.
    @inline(__always)
    mutating func applyPut(keyspace: Int, key: UnsafeRawBufferPointer, location: Location) throws {
        let size = Self.recordSize(
            keyspace: keyspace, keyLength: key.count, valueLength: Int(location.length))
        segments[Int(location.segment)]?.liveBytes += size
        if let old = try directories[keyspace].set(key, to: location) {
            let oldSize = Self.recordSize(
                keyspace: keyspace, keyLength: key.count, valueLength: Int(old.length))
            segments[Int(old.segment)]?.liveBytes -= oldSize
        }
    }

    /// Applies one delete.
    @inline(__always)
    mutating func applyDelete(keyspace: Int, key: UnsafeRawBufferPointer) {
        if let old = directories[keyspace].remove(key) {
            let oldSize = Self.recordSize(
                keyspace: keyspace, keyLength: key.count, valueLength: Int(old.length))
            segments[Int(old.segment)]?.liveBytes -= oldSize
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
                let location = Location(
                    segment: segment.handle, offset: UInt32(record.valueOffset),
                    length: UInt32(record.value!.count))
                try applyPut(keyspace: keyspace, key: record.key, location: location)
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
