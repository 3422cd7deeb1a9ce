/// Puts and deletes across keyspaces that ``LogStore/commit(_:durability:)`` applies atomically:
/// after a crash, all of a batch is visible or none of it, whatever its size.
///
/// A value type; building a batch touches no file. Operations apply in the order added, so a
/// later put of the same key wins.
public struct WriteBatch: Sendable {
    /// Keyspace names used by this batch, indexed by the local number in `records`.
    var keyspaceNames: [String] = []
    var keyspaceNumbers: [String: Int] = [:]
    /// The local number used last: most batches use one keyspace for long runs.
    var lastLocal = -1
    /// Puts per local keyspace number, so the index can make room once for a large batch.
    var putsPerKeyspace: [Int] = []
    /// Encoded operations: `op: u8, keyspace: varint (local), keyLength: varint,
    /// [valueLength: varint], key, [value]` (the record grammar of FORMAT.md with local keyspaces).
    var records: [UInt8] = []
    /// Number of operations.
    public private(set) var count = 0
    /// Bytes of keys and values (what the store will hold).
    public private(set) var payloadBytes = 0
    /// Longest key and value added, checked against the limits at commit.
    private(set) var longestKey = 0
    private(set) var longestValue = 0

    /// An empty batch.
    public init() {}

    /// Whether the batch holds no operation.
    public var isEmpty: Bool { count == 0 }

    /// Adds a put of `value` under `key` in `keyspace`.
    public mutating func put(_ value: [UInt8], for key: [UInt8], in keyspace: String) {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                append(op: RecordOp.put, keyspace: keyspace, key: key, value: value)
            }
        }
    }

    /// Adds a put of the bytes `value` under the bytes `key` in `keyspace` (copied into the
    /// batch; no array is made).
    public mutating func put(
        _ value: UnsafeRawBufferPointer, for key: UnsafeRawBufferPointer, in keyspace: String
    ) {
        append(op: RecordOp.put, keyspace: keyspace, key: key, value: value)
    }

    /// Adds a delete of `key` in `keyspace` (a no-op at commit if the key is absent).
    public mutating func delete(_ key: [UInt8], in keyspace: String) {
        key.withUnsafeBytes { append(op: RecordOp.delete, keyspace: keyspace, key: $0, value: nil) }
    }

    /// Adds a delete of the bytes `key` in `keyspace`.
    public mutating func delete(_ key: UnsafeRawBufferPointer, in keyspace: String) {
        append(op: RecordOp.delete, keyspace: keyspace, key: key, value: nil)
    }

    /// Bytes of encoded operations so far.
    package var encodedBytes: Int { records.count }

    /// Makes room for `bytes` more bytes of encoded operations: a batch built from many
    /// operations of about known size then does not regrow its buffer (copying it, and
    /// faulting in fresh pages) as it grows.
    package mutating func reserveCapacity(forMoreBytes bytes: Int) {
        records.reserveCapacity(records.count + bytes)
    }

    /// Removes every operation, keeping the allocated capacity.
    public mutating func removeAll() {
        keyspaceNames.removeAll(keepingCapacity: true)
        keyspaceNumbers.removeAll(keepingCapacity: true)
        putsPerKeyspace.removeAll(keepingCapacity: true)
        lastLocal = -1
        records.removeAll(keepingCapacity: true)
        count = 0
        payloadBytes = 0
        longestKey = 0
        longestValue = 0
    }

    private mutating func append(
        op: UInt8, keyspace: String, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?
    ) {
        let local: Int
        if lastLocal >= 0 && keyspaceNames[lastLocal] == keyspace {
            local = lastLocal
        } else if let known = keyspaceNumbers[keyspace] {
            local = known
        } else {
            local = keyspaceNames.count
            keyspaceNames.append(keyspace)
            putsPerKeyspace.append(0)
            keyspaceNumbers[keyspace] = local
        }
        lastLocal = local
        if value != nil { putsPerKeyspace[local] += 1 }
        RecordFormat.appendHeader(
            op: op, keyspace: local, keyLength: key.count, valueLength: value?.count,
            to: &records)
        records.append(contentsOf: key)
        if let value { records.append(contentsOf: value) }
        count += 1
        payloadBytes += key.count + (value?.count ?? 0)
        longestKey = max(longestKey, key.count)
        longestValue = max(longestValue, value?.count ?? 0)
    }
}

extension WriteBatch {
    /// A point in a batch to go back to with ``truncate(to:)``: a layer above can stage
    /// operations in a batch and take back what it added since.
    package struct Mark {
        fileprivate let records: Int
        fileprivate let count: Int
        fileprivate let payloadBytes: Int
        fileprivate let longestKey: Int
        fileprivate let longestValue: Int
        fileprivate let keyspaces: Int
        fileprivate let putsPerKeyspace: [Int]
    }

    /// Where the batch is now.
    package func mark() -> Mark {
        Mark(
            records: records.count, count: count, payloadBytes: payloadBytes,
            longestKey: longestKey, longestValue: longestValue, keyspaces: keyspaceNames.count,
            putsPerKeyspace: putsPerKeyspace)
    }

    /// Removes every operation added after `mark`, keeping the capacity.
    package mutating func truncate(to mark: Mark) {
        records.removeSubrange(mark.records...)
        count = mark.count
        payloadBytes = mark.payloadBytes
        longestKey = mark.longestKey
        longestValue = mark.longestValue
        for name in keyspaceNames[mark.keyspaces...] { keyspaceNumbers[name] = nil }
        keyspaceNames.removeSubrange(mark.keyspaces...)
        putsPerKeyspace = mark.putsPerKeyspace
        lastLocal = -1
    }

    /// Calls `body` with every operation in order: its keyspace, key, and value (`nil` for a
    /// delete). The buffers are valid only during the call.
    package func forEachOperation(
        _ body: (
            _ keyspace: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?
        ) throws -> Void
    ) rethrows {
        try records.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                // Invariant: the batch's own bytes, in the record grammar.
                let record = StoredRecord(at: base + offset)
                offset += record.encodedSize
                try body(
                    keyspaceNames[record.keyspace], record.key,
                    record.op == RecordOp.put ? record.value : nil)
            }
        }
    }

    /// Why the store cannot take this batch, if it cannot.
    func invalidity() -> LogStoreError? {
        if longestKey > Frame.maxKeyLength {
            return .invalidArgument(
                "a key of \(longestKey) bytes exceeds the limit of \(Frame.maxKeyLength)")
        }
        if longestValue > Frame.maxValueLength {
            return .invalidArgument(
                "a value of \(longestValue) bytes exceeds the limit of \(Frame.maxValueLength)")
        }
        if encodedSizeBound > Int(UInt32.max) - (1 << 20) {
            return .invalidArgument("a commit of \(records.count) bytes exceeds the limit of 4 GiB")
        }
        for name in keyspaceNames
        where name.isEmpty || name.utf8.count > KeyspaceTable.maxNameLength {
            return .invalidArgument(
                "keyspace name \"\(name.prefix(40))\" must be 1 to \(KeyspaceTable.maxNameLength) bytes of UTF-8"
            )
        }
        return nil
    }

    /// An upper bound of the bytes the batch takes in a segment, framing included.
    var encodedSizeBound: Int {
        let names = keyspaceNames.reduce(0) { $0 + $1.utf8.count + 12 }
        return records.count + count * 9 + names + (records.count / Frame.targetPayload + 2)
            * Frame.headerSize * 2
    }
}
