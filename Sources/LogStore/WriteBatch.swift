/// Puts and deletes across keyspaces that ``LogStore/commit(_:durability:)`` applies atomically:
/// after a crash, all of a batch is visible or none of it, whatever its size.
///
/// A value type; building a batch touches no file. Operations apply in the order added, so a
/// later put of the same key wins.
public struct WriteBatch: Sendable {
    /// Keyspace names used by this batch, indexed by the local number in `records`.
    var keyspaceNames: [String] = []
    var keyspaceNumbers: [String: Int] = [:]
    /// Encoded operations: `op: u8, keyspace: varint (local), keyLength: varint,
    /// [valueLength: varint], key, [value]` (the record grammar of FORMAT.md with local keyspaces).
    var records: [UInt8] = []
    /// Number of operations.
    public private(set) var count = 0
    /// Bytes of keys and values (what the store will hold).
    public private(set) var payloadBytes = 0

    /// An empty batch.
    public init() {}

    /// Whether the batch holds no operation.
    public var isEmpty: Bool { count == 0 }

    /// Adds a put of `value` under `key` in `keyspace`.
    public mutating func put(_ value: [UInt8], for key: [UInt8], in keyspace: String) {
        append(op: RecordOp.put, keyspace: keyspace, key: key, value: value)
    }

    /// Adds a delete of `key` in `keyspace` (a no-op at commit if the key is absent).
    public mutating func delete(_ key: [UInt8], in keyspace: String) {
        append(op: RecordOp.delete, keyspace: keyspace, key: key, value: nil)
    }

    /// Removes every operation, keeping the allocated capacity.
    public mutating func removeAll() {
        keyspaceNames.removeAll(keepingCapacity: true)
        keyspaceNumbers.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        count = 0
        payloadBytes = 0
    }

    private mutating func append(op: UInt8, keyspace: String, key: [UInt8], value: [UInt8]?) {
        let local: Int
        if let known = keyspaceNumbers[keyspace] {
            local = known
        } else {
            local = keyspaceNames.count
            keyspaceNames.append(keyspace)
            keyspaceNumbers[keyspace] = local
        }
        records.append(op)
        Varint.append(UInt64(local), to: &records)
        Varint.append(UInt64(key.count), to: &records)
        if let value { Varint.append(UInt64(value.count), to: &records) }
        records.append(contentsOf: key)
        if let value { records.append(contentsOf: value) }
        count += 1
        payloadBytes += key.count + (value?.count ?? 0)
    }
}
