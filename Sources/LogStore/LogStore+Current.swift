extension LogStore {
    /// Decides which records of a ``LogInspector/walk(storeAt:_:)`` over a store's directory
    /// hold their key's current value in that store, as opened: what `logbook dump --live`
    /// shows, without remembering the keys the walk has passed.
    ///
    /// It remembers the keyspace and segment of the last record it was asked about (a walk
    /// meets long runs of both). Not thread-safe itself; the store it asks is.
    public struct CurrentRecords {
        private let store: LogStore
        private var keyspace: String?
        private var keyspaceID: Int?
        private var segment: String?
        private var segmentOrder: UInt64?

        /// Answers for `store`.
        public init(of store: LogStore) { self.store = store }

        /// Whether `record` is the put that holds its key's current value in the store.
        /// - Throws: ``LogStoreError/closed``.
        /// - Complexity: one hash lookup.
        public mutating func contains(_ record: LogInspector.Record) throws -> Bool {
            guard record.kind == .put else { return false }
            if record.keyspace != keyspace {
                keyspace = record.keyspace
                keyspaceID = store.index.withLock { $0.keyspaces.id(of: record.keyspace) }
            }
            if record.segment != segment {
                segment = record.segment
                segmentOrder = StoreFiles.segmentOrder(record.segment)
            }
            guard let id = keyspaceID, let order = segmentOrder else { return false }
            return try store.index.withLock { state throws(LogStoreError) -> Bool in
                guard !state.closed else { throw .closed }
                guard
                    let (ref, _) = record.key.withUnsafeBytes({
                        state.directories[id].find($0, state.bases)
                    })
                else { return false }
                return Int64(ref.offset) == record.recordOffset
                    && state.segments[Int(ref.segment)]?.order == order
            }
        }
    }
}
