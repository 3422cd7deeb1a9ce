import CKeyDirectory

extension LogStore {
    /// One keyspace as of one moment: every read through it sees the keys and values of the
    /// last commit visible when it was made, whatever is committed or compacted since. It keeps
    /// the segments it reads mapped while it lives. Copying the keyspace's directory is O(1)
    /// (copy-on-write), so a view costs one lock acquisition; a commit made while it lives
    /// copies the directory once.
    ///
    /// Thread safety: a value; use it on one thread at a time. Buffers it hands out are valid
    /// only during the call.
    /// (`@usableFromInline` so that other modules inline ``withValue(forKey:_:)``: see
    /// ``RadixSort``.)
    @usableFromInline
    package struct KeyspaceView: @unchecked Sendable {  // immutable; segments kept alive
        fileprivate let directory: KeyDirectory
        fileprivate let segments: [Segment?]
        fileprivate let bases: SegmentBases
        /// The store, which a damaged key directory entry met through the view is reported to
        /// (``LogStore/keyDirectoryDamaged(_:keyspace:)``), as a read of the store itself would.
        fileprivate let store: LogStore
        fileprivate let keyspace: String
        /// The sequence number of the last commit the view sees.
        package let sequence: UInt64
        /// Set if open's check of the keyspace's table was still pending when the view was made
        /// (``PendingKeyDirectoryCheck``): the keyspace's number then, and how many times the
        /// index had been rebuilt. Each read then checks what it reads first, as the store's
        /// point reads and walks do (``StoreStateLock/checkForView(key:keyspace:id:sequence:rebuilds:storePath:)``).
        fileprivate let unchecked: (id: Int, rebuilds: Int)?

        /// Live keys of the keyspace in the view.
        /// - Throws: as ``forEach(_:)``, whose check of the table it makes.
        package var count: Int {
            get throws(LogStoreError) { try table().directory.count }
        }

        /// Calls `body` with the value under `key`; `nil` (and no call) if there is none.
        /// - Throws: ``LogStoreError/damagedKeyDirectory(path:reason:)``, or what `body` throws.
        @inlinable
        package func withValue<R>(
            forKey key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R
        ) throws -> R? {
            var result: R?
            _ = try readValue(forKey: key) { result = try body($0) }
            return result
        }

        /// ``withValue(forKey:_:)`` without a generic result, so that no generic metadata is
        /// looked up at run time: calls `body` with the value under `key` and returns whether
        /// there was one.
        /// - Throws: ``LogStoreError/damagedKeyDirectory(path:reason:)``, or what `body` throws.
        @usableFromInline
        package func readValue(
            forKey key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void
        ) throws -> Bool {
            guard let (_, record) = try find(key) else { return false }
            try withExtendedLifetime(segments) { try body(record.value) }
            return true
        }

        /// The table and segment bases the view reads, its own unless a check the view made
        /// failed and the index was rebuilt; checked whole first if open left it unchecked.
        private func table() throws(LogStoreError) -> (
            directory: KeyDirectory, bases: SegmentBases
        ) {
            guard let unchecked,
                let rebuilt = try store.index.checkForView(
                    key: nil, keyspace: keyspace, id: unchecked.id, sequence: sequence,
                    rebuilds: unchecked.rebuilds, storePath: store.path)
            else { return (directory, bases) }
            return rebuilt
        }

        /// Calls `body` with the key and value of each of `keys` that the view holds, in the
        /// order their records lie in the log (the order a scan reads them), so that reading a
        /// large part of a keyspace this way touches the log front to back.
        ///
        /// The keys are `UInt64`s looked up as their 8-byte big-endian encodings: FORMAT.md
        /// Part 2's object key (Logbook's `Keyspaces.objectKey`). These batch reads, and
        /// ``forEachRecord(inOrderOf:_:)`` under them, are the one place the engine knows that
        /// shape; they take numbers rather than encoded keys for speed (no array per key).
        /// - Complexity: one hash lookup per key, plus a radix sort of the found references.
        package func forEachValue(
            forKeys keys: [UInt64],
            _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
        ) throws {
            let (directory, bases) = try table()
            var refs: [UInt64] = []
            refs.reserveCapacity(keys.count)
            try forEachRecord(inOrderOf: keys, directory, bases) { _, _, found in
                if let (ref, _) = found {
                    refs.append(UInt64(ref.segment) << 32 | UInt64(ref.offset))
                }
                return true
            }
            RadixSort.sortDense(&refs)
            @inline(__always) func start(_ packed: UInt64) -> UnsafeRawPointer {
                bases[Int(packed >> 32)].unsafelyUnwrapped + Int(UInt32(truncatingIfNeeded: packed))
            }
            try withExtendedLifetime(segments) {
                // The lookups loaded these records, but a large set has left the closer caches
                // since: the records a few places ahead are loaded again while one is read.
                let ahead = KeyDirectory.recordLookahead
                for i in refs.indices {
                    if i + ahead < refs.count {
                        let next = start(refs[i + ahead])
                        logbook_prefetch(next)
                        logbook_prefetch(next + 63)
                    }
                    let record = StoredRecord(at: start(refs[i]))
                    try body(record.key, record.value)
                }
            }
        }

        /// Calls `body` with each of `keys` in turn, its 8-byte big-endian encoding (Part 2's
        /// object key, see ``forEachValue(forKeys:_:)``) and its value (`nil` if the view has
        /// none), until `body` returns `false`.
        /// - Complexity: one hash lookup per key; the lookups of the keys a few places ahead
        ///   are started early, so their cache misses overlap instead of following one another.
        package func forEachValue(
            inOrderOf keys: [UInt64],
            _ body: (
                _ key: UInt64, _ encoded: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?
            ) throws -> Bool
        ) throws {
            let (directory, bases) = try table()
            try withExtendedLifetime(segments) {
                try forEachRecord(inOrderOf: keys, directory, bases) { key, encoded, found in
                    try body(key, encoded, found?.1.value)
                }
            }
        }

        /// Finds each of `keys` in turn, prefetching the table slots and records of the keys
        /// ``KeyDirectory/slotLookahead`` and ``KeyDirectory/recordLookahead`` places ahead,
        /// until `body` returns `false`.
        @inline(__always)
        private func forEachRecord(
            inOrderOf keys: [UInt64], _ directory: KeyDirectory, _ bases: SegmentBases,
            _ body: (
                _ key: UInt64, _ encoded: UnsafeRawBufferPointer,
                _ found: (RecordRef, StoredRecord)?
            ) throws -> Bool
        ) throws {
            let entries = directory.entries
            try keys.withUnsafeBufferPointer { keys in
                let (slots, records) = (KeyDirectory.slotLookahead, KeyDirectory.recordLookahead)
                for i in 0..<min(slots, keys.count) {
                    KeyDirectory.prefetchSlot(entries, KeyDirectory.hash(bigEndianOf: keys[i]))
                }
                for i in 0..<min(records, keys.count) {
                    KeyDirectory.prefetchRecord(
                        entries, KeyDirectory.hash(bigEndianOf: keys[i]), bases)
                }
                for i in keys.indices {
                    if i + slots < keys.count {
                        KeyDirectory.prefetchSlot(
                            entries, KeyDirectory.hash(bigEndianOf: keys[i + slots]))
                    }
                    if i + records < keys.count {
                        KeyDirectory.prefetchRecord(
                            entries, KeyDirectory.hash(bigEndianOf: keys[i + records]), bases)
                    }
                    // FORMAT.md Part 2's object key (see `forEachValue(forKeys:_:)`).
                    var encoded = keys[i].bigEndian
                    let more = try withUnsafeBytes(of: &encoded) { encoded in
                        try body(keys[i], encoded, try find(encoded, in: directory, bases))
                    }
                    if !more { return }
                }
            }
        }

        /// The record of `key`, checking first what the probe reads if the table is unchecked.
        @inline(__always)
        private func find(_ key: UnsafeRawBufferPointer) throws(LogStoreError) -> (
            RecordRef, StoredRecord
        )? {
            if _slowPath(unchecked != nil) { return try checkedFind(key) }
            return try find(key, in: directory, bases)
        }

        @inline(never)
        private func checkedFind(_ key: UnsafeRawBufferPointer) throws(LogStoreError) -> (
            RecordRef, StoredRecord
        )? {
            let rebuilt = try store.index.checkForView(
                key: key, keyspace: keyspace, id: unchecked!.id, sequence: sequence,
                rebuilds: unchecked!.rebuilds, storePath: store.path)
            return try find(key, in: rebuilt?.0 ?? directory, rebuilt?.1 ?? bases)
        }

        @inline(__always)
        private func find(
            _ key: UnsafeRawBufferPointer, in directory: KeyDirectory, _ bases: SegmentBases
        ) throws(LogStoreError) -> (RecordRef, StoredRecord)? {
            do {
                return try directory.find(key, bases)
            } catch {
                throw store.keyDirectoryDamaged(error, keyspace: keyspace)
            }
        }

        /// Calls `body` with every live key and value of the keyspace in the view, in log order.
        /// - Throws: ``LogStoreError/damagedKeyDirectory(path:reason:)`` if an entry points at no
        ///   record inside its segment (the keys before it have been passed to `body`); what
        ///   `body` throws.
        package func forEach(
            _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
        ) throws {
            let (directory, bases) = try table()
            do {
                try withExtendedLifetime(segments) {
                    try directory.forEachInLogOrder(bases, releasingPagesOf: segments) {
                        _, record in
                        try body(record.key, record.value)
                    }
                }
            } catch let damage as KeyDirectory.DamagedEntry {
                throw store.keyDirectoryDamaged(damage, keyspace: keyspace)
            }
        }
    }

    /// A view of `keyspace` as of now (empty if it does not exist). Made in O(1) even while
    /// open's check of the key directory file's tables is pending: its reads then check what
    /// they read (a point read its probe, anything else the keyspace's table whole).
    /// - Throws: ``LogStoreError/closed``.
    package func view(of keyspace: String) throws -> KeyspaceView {
        try index.withLockForPointRead { state throws(LogStoreError) -> KeyspaceView in
            guard !state.closed else { throw .closed }
            let id = state.keyspaces.id(of: keyspace)
            let unchecked = id.flatMap { id in
                state.hasPendingCheck && state.pendingCheck!.unchecked(id) != nil
                    ? (id, state.rebuilds) : nil
            }
            return KeyspaceView(
                directory: id.map { state.directories[$0] } ?? KeyDirectory(),
                segments: state.segments, bases: state.bases, store: self, keyspace: keyspace,
                sequence: state.lastSequence, unchecked: unchecked)
        }
    }
}
