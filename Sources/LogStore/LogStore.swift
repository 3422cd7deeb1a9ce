import Synchronization

/// A key-value store over a directory of append-only log segments, with an in-memory index.
///
/// Keys and values are bytes, grouped in named keyspaces. Every ``commit(_:durability:)`` is
/// atomic and gets the next sequence number. One process may write a store at a time (an advisory
/// lock on the store's `LOCK` file); any number may open it read-only.
///
/// Thread safety: every method may be called from any thread. Reads never wait for a sync in
/// progress and see only complete commits.
public final class LogStore: Sendable {
    /// The store's directory.
    public let path: String
    // TEMPORARY in-memory stand-in so the object layer can build against the API; replaced by
    // the log engine.
    private let state = Mutex<[String: [[UInt8]: [UInt8]]]>([:])
    private let sequence = Atomic<UInt64>(0)

    /// Opens the store in the directory at `path`, creating it if missing (unless read-only),
    /// and recovers from an earlier crash. What recovery did is in ``recovery``.
    /// - Throws: ``LogStoreError/locked(path:)`` if another writer has it open,
    ///   ``LogStoreError/corruption(path:offset:reason:)`` for damage outside a torn tail,
    ///   ``LogStoreError/unsupportedVersion(path:found:supported:)``, ``LogStoreError/io(operation:path:errno:)``.
    public init(path: String, options: LogStoreOptions = LogStoreOptions()) throws {
        self.path = path
    }

    /// What opening the store found and repaired.
    public var recovery: RecoveryReport { RecoveryReport() }

    /// The value under `key` in `keyspace`, or `nil`.
    /// - Complexity: one hash lookup and one copy of the value.
    public func get(_ key: [UInt8], in keyspace: String) throws -> [UInt8]? {
        state.withLock { $0[keyspace]?[key] }
    }

    /// Stores `value` under `key` in `keyspace`; returns the commit's sequence number.
    @discardableResult
    public func put(_ value: [UInt8], for key: [UInt8], in keyspace: String, durability: Durability? = nil)
        throws -> UInt64
    {
        var batch = WriteBatch()
        batch.put(value, for: key, in: keyspace)
        return try commit(batch, durability: durability)
    }

    /// Removes `key` from `keyspace`; returns the commit's sequence number.
    @discardableResult
    public func delete(_ key: [UInt8], in keyspace: String, durability: Durability? = nil) throws -> UInt64 {
        var batch = WriteBatch()
        batch.delete(key, in: keyspace)
        return try commit(batch, durability: durability)
    }

    /// Applies every operation of `batch` atomically and returns its sequence number.
    /// With `.sync` (the default unless the options say otherwise) it returns once the batch is
    /// on stable storage.
    @discardableResult
    public func commit(_ batch: WriteBatch, durability: Durability? = nil) throws -> UInt64 {
        var records = [(UInt8, String, [UInt8], [UInt8]?)]()
        try batch.forEachOperation { op, keyspace, key, value in
            records.append((op, keyspace, Array(key), value.map { Array($0) }))
        }
        state.withLock { state in
            for (op, keyspace, key, value) in records {
                if op == RecordOp.put { state[keyspace, default: [:]][key] = value } else {
                    state[keyspace]?[key] = nil
                }
            }
        }
        return sequence.add(1, ordering: .relaxed).newValue
    }

    /// Number of live keys in `keyspace`.
    public func count(in keyspace: String) throws -> Int {
        state.withLock { $0[keyspace]?.count ?? 0 }
    }

    /// Calls `body` with every live key and value of `keyspace`, as of the call, in no set order.
    /// The buffers are valid only during the call. `body` may use the store.
    /// - Complexity: O(keys in `keyspace`).
    public func forEach(
        in keyspace: String, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let snapshot = state.withLock { $0[keyspace] ?? [:] }
        for (key, value) in snapshot {
            try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try body(k, v) } }
        }
    }

    /// Names of keyspaces that hold at least one key.
    public func keyspaces() throws -> [String] {
        state.withLock { $0.filter { !$0.value.isEmpty }.keys.sorted() }
    }

    /// The sequence number of the last commit.
    public var lastSequence: UInt64 { sequence.load(ordering: .relaxed) }

    /// Sizes and counts.
    public func stats() throws -> LogStoreStats {
        LogStoreStats(
            keyspaces: [], liveBytes: 0, deadBytes: 0, segments: 0, fileBytes: 0,
            lastSequence: lastSequence, lastCompaction: nil)
    }

    /// Forces every buffered commit to stable storage.
    public func sync() throws {}

    /// Closes the store: syncs buffered commits and releases the writer lock. Further calls throw
    /// ``LogStoreError/closed``. Closing twice is harmless.
    public func close() throws {}
}
