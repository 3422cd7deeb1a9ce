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
        /// The store's handle of that segment, when last found.
        private var segmentHandle: Int?

        /// Answers for `store`.
        public init(of store: LogStore) { self.store = store }

        /// Whether `record` is the put that holds its key's current value in the store.
        /// - Throws: ``LogStoreError/closed``.
        /// - Complexity: one hash lookup.
        public mutating func contains(_ record: LogInspector.Record) throws -> Bool {
            guard record.kind == .put else { return false }
            return try record.key.withUnsafeBytes { key in
                try contains(
                    key: key, keyspace: record.keyspace, segment: record.segment,
                    recordOffset: record.recordOffset)
            }
        }

        /// Whether `record` (as ``LogInspector/verify(storeAt:visit:)`` visits it) is the put
        /// that holds its key's current value in the store.
        /// - Throws: ``LogStoreError/closed``.
        /// - Complexity: one hash lookup, which compares entries' record references, not keys:
        ///   it reads nothing of the store's mapped segments.
        public mutating func contains(_ record: LogInspector.VisitedRecord) throws -> Bool {
            guard record.kind == .put else { return false }
            return try contains(
                key: record.key, keyspace: record.keyspace, segment: record.segment,
                recordOffset: record.recordOffset)
        }

        private mutating func contains(
            key: UnsafeRawBufferPointer, keyspace: String, segment: String, recordOffset: Int64
        ) throws -> Bool {
            if keyspace != self.keyspace {
                self.keyspace = keyspace
                keyspaceID = store.index.withLock { $0.keyspaces.id(of: keyspace) }
            }
            if segment != self.segment {
                self.segment = segment
                segmentOrder = StoreFiles.segmentOrder(segment)
            }
            guard let id = keyspaceID, let order = segmentOrder,
                let offset = UInt32(exactly: recordOffset)
            else { return false }
            let known = segmentHandle
            let (handle, holds) = try store.index.withLock {
                state throws(LogStoreError) -> (Int?, Bool) in
                guard !state.closed else { throw .closed }
                // The handle of the record's segment, if the store has it open.
                let handle =
                    known.flatMap { state.segments.indices.contains($0) ? $0 : nil }
                        .flatMap { state.segments[$0]?.order == order ? $0 : nil }
                    ?? state.segments.firstIndex { $0?.order == order }
                guard let handle else { return (nil, false) }
                let ref = RecordRef(segment: UInt32(handle), offset: offset)
                return (handle, state.directories[id].holds(key, at: ref))
            }
            segmentHandle = handle
            return holds
        }
    }
}

extension KeyDirectory {
    /// Whether the entry of `key` points at `ref`, compared by reference alone: a record holds
    /// one key, so an entry that points at it is its key's. Reads nothing of the log.
    func holds(_ key: UnsafeRawBufferPointer, at ref: RecordRef) -> Bool {
        let hash = Self.hash(key)
        return table.withBuffer { table in
            let mask = table.count - 1
            var slot = Int(hash) & mask
            while true {
                let entry = table[slot]
                if entry.isEmpty { return false }
                if entry.hash == hash && entry.ref == ref { return true }
                slot = (slot + 1) & mask
            }
        }
    }
}
