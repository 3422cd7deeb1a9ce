extension LogStore {
    /// Decides which records of a ``LogInspector/walk(storeAt:_:)`` over a store's directory
    /// hold their key's current value in that store, as opened: what `logbook dump --live`
    /// shows, without remembering the keys the walk has passed.
    ///
    /// It remembers the keyspace and segment of the last record it was asked about (a walk
    /// meets long runs of both). A walk asks in log order, so it answers from the store's live
    /// records in log order, a window of at most about a million records at a time: each window
    /// is one read of the index's tables front to back and a sort, so its memory is 16 bytes a
    /// record of the window, and the index's tables are read in order rather than at a random
    /// slot a record (which, over a large store, would bring the whole of a mapped table into
    /// memory). A record asked about out of that order is looked up in the index. Not
    /// thread-safe itself; the store it asks is.
    package struct CurrentRecords {
        private let store: LogStore
        private var keyspace: String?
        private var keyspaceID: Int?
        private var segment: String?
        private var segmentOrder: UInt64?
        /// The store's handle of that segment, when last found.
        private var segmentHandle: Int?
        /// The index as the first question found it, and its windows in log order.
        private var windows: (directories: [KeyDirectory], ranges: [Range<UInt64>])?
        /// Which window `live` holds, and the live references in it, sorted.
        private var window = -1
        private var live: [UInt64] = []
        /// The place in `live` of the first reference not below the last one asked about.
        private var next = 0

        /// Answers for `store`.
        package init(of store: LogStore) { self.store = store }

        /// Whether `record` is the put that holds its key's current value in the store.
        /// - Throws: ``LogStoreError/closed``.
        /// - Complexity: amortized O(1) when asked in log order; else one hash lookup.
        package mutating func contains(_ record: LogInspector.Record) throws -> Bool {
            guard record.kind == .put else { return false }
            return try record.key.withUnsafeBytes { key in
                try contains(
                    key: key, keyspace: record.keyspace, segment: record.segment,
                    recordOffset: record.recordOffset)
            }
        }

        /// Whether `record` (as ``LogInspector/verify(storeAt:)`` visits it) is the put
        /// that holds its key's current value in the store.
        /// - Throws: ``LogStoreError/closed``.
        /// - Complexity: amortized O(1) when asked in log order (it compares record references,
        ///   not keys, and reads nothing of the store's mapped segments); else one hash lookup.
        package mutating func contains(_ record: LogInspector.VisitedRecord) throws -> Bool {
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
            let (handle, snapshot) = try store.index.withLock {
                state throws(LogStoreError) -> (
                    Int?, (directories: [KeyDirectory], bases: SegmentBases)?
                ) in
                guard !state.closed else { throw .closed }
                // The handle of the record's segment, if the store has it open.
                let handle =
                    known.flatMap { state.segments.indices.contains($0) ? $0 : nil }
                    .flatMap { state.segments[$0]?.order == order ? $0 : nil }
                    ?? state.segments.firstIndex { $0?.order == order }
                // Copies of the tables are O(1) (copy-on-write).
                return (handle, windows == nil ? (state.directories, state.bases) : nil)
            }
            segmentHandle = handle
            guard let handle else { return false }
            if let snapshot {
                windows = (
                    snapshot.directories,
                    LogWindows(
                        snapshot.directories, snapshot.bases, releasingTables: true,
                        window: KeyDirectory.logOrderWindow
                    ).ranges
                )
            }
            let packed = UInt64(handle) << 32 | UInt64(offset)
            if window >= 0 && packed < windows!.ranges[window].lowerBound {
                // Out of log order: the index itself.
                let ref = RecordRef(segment: UInt32(handle), offset: offset)
                return store.index.withLock { $0.directories[id].holds(key, at: ref) }
            }
            while window < 0 || !windows!.ranges[window].contains(packed) {
                window += 1
                LogWindows.collect(
                    windows!.ranges[window], of: windows!.directories, releasingTables: true,
                    into: &live)
                next = 0
            }
            while next < live.count && live[next] < packed { next += 1 }
            return next < live.count && live[next] == packed
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
