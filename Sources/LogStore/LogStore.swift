import Foundation
import Synchronization

/// A key-value store over a directory of append-only log segments, with an in-memory index.
///
/// Keys and values are bytes, grouped in named keyspaces. Every ``commit(_:durability:)`` is
/// atomic and gets the next sequence number. One process may write a store at a time (an advisory
/// lock on the store's `LOCK` file); any number may open it read-only.
///
/// Thread safety: every method may be called from any thread. Reads never wait for a sync in
/// progress and see only complete commits; `.sync` commits made at the same time share one
/// `fdatasync`.
public final class LogStore: Sendable {
    /// The store's directory.
    public let path: String
    /// What opening the store found and repaired. The first read of it after an open that
    /// mapped a key directory file checks the file's tables whole (and rebuilds the index from
    /// the log if one fails, which it then reports).
    public var recovery: RecoveryReport { index.recovery }
    let options: LogStoreOptions
    let index: StoreStateLock
    let queue = CommitQueue()
    let writer: LogWriter?
    private let lockFile: OpenFile?
    /// Segments a view made by ``snapshot(asOf:)`` reads, which its index does not own.
    private let viewSegments: [Segment]
    /// Held while a compaction runs: one at a time.
    let compactionLock = Locked<Void>(())
    /// Held while ``refresh()`` runs: one at a time.
    let refreshLock = Locked<Void>(())
    /// Whether this is a view made by ``snapshot(asOf:)``: a past state, never refreshed.
    let isView: Bool
    let lastCompaction = Locked<CompactionReport?>(nil)
    /// What compactions rewrite values with (``setCompactionRewriter(_:)``).
    let compactionRewriter = Locked<(any CompactionRewriter)?>(nil)
    /// The streaming commit holding the commit queue, if one is open.
    let openStreamingCommit = Locked<WeakStreamingCommit?>(nil)
    /// Segment handles seen by the last automatic-compaction check, and whether one is queued.
    private let autoCompactionCheckedSegments = Atomic<Int>(0)
    private let autoCompactionQueued = Atomic<Bool>(false)
    /// The batch ``commitBeforeNextWrite(_:)`` keeps, and whether there is one (read without
    /// the lock by every write).
    let deferredBatch = Locked<WriteBatch?>(nil)
    let hasDeferredBatch = Atomic<Bool>(false)

    /// A keyspace's index and the segments it points into, kept mapped while it is read.
    private struct Snapshot: @unchecked Sendable {
        var directory: KeyDirectory
        var segments: [Segment?]
        var bases: SegmentBases
    }

    /// Opens the store in the directory at `path`, creating it if missing (unless read-only),
    /// and recovers from an earlier crash. What recovery did is in ``recovery``. If a backup into
    /// `path` was killed mid-swap, leaving the previous backup at `path.previous`, that backup
    /// is what opens (FORMAT.md, "Backups").
    /// - Throws: ``LogStoreError/locked(path:)`` if another writer has it open, or a backup into
    ///   it runs;
    ///   ``LogStoreError/corruption(path:offset:reason:)`` for damage outside a torn tail (unless
    ///   `options.salvage`); ``LogStoreError/unsupportedVersion(path:found:supported:)``;
    ///   ``LogStoreError/invalidArgument(_:)`` if `path` is a file or a symbolic link;
    ///   ``LogStoreError/io(operation:path:errno:)``.
    /// - Complexity: O(bytes of the segments).
    public init(path: String, options: LogStoreOptions = LogStoreOptions()) throws {
        // A backup killed between the two renames of a swap without an atomic exchange left
        // the backup at `path` aside (FORMAT.md, "Backups"): a writable open puts it back, a
        // read-only one reads it where it is.
        var path = path
        if let aside = BackupTarget.backupLeftAside(of: path, fileSystem: options.fileSystem) {
            if options.readOnly {
                path = aside
            } else {
                try BackupTarget.putBackBackupLeftAside(at: path, fileSystem: options.fileSystem)
            }
        }
        var opened = try Self.openStore(path: path, options: options)
        opened.state.buildOrder(
            of: options.orderedKeyspaces, deltaLimit: options.orderedDeltaLimit)
        self.path = path
        self.options = options
        self.index = StoreStateLock(opened.state, report: opened.report)
        self.writer = opened.writer
        self.lockFile = opened.lockFile
        self.viewSegments = []
        self.isView = false
    }

    /// A read-only view over `state`, which reads `segments` (``snapshot(asOf:)``).
    init(
        view path: String, options: LogStoreOptions, state: StoreState,
        retaining segments: [Segment]
    ) {
        self.path = path
        self.options = options
        var state = state
        state.buildOrder(of: options.orderedKeyspaces, deltaLimit: options.orderedDeltaLimit)
        self.index = StoreStateLock(state, report: RecoveryReport())
        self.writer = nil
        self.lockFile = nil
        self.viewSegments = segments
        self.isView = true
    }

    deinit {
        try? close()
    }

    /// The value under `key` in `keyspace`, or `nil`.
    /// - Throws: ``LogStoreError/closed``.
    /// - Complexity: one hash lookup and one copy of the value.
    public func get(_ key: [UInt8], in keyspace: String) throws -> [UInt8]? {
        try index.withLockForPointRead { state throws(LogStoreError) -> [UInt8]? in
            guard !state.closed else { throw .closed }
            guard let id = state.keyspaces.cachedID(of: keyspace),
                let (_, record) = try key.withUnsafeBytes({ key in
                    Result { () throws(LogStoreError) in
                        if _slowPath(state.hasPendingCheck) {
                            try index.checkProbe(&state, key: key, in: id, storePath: path)
                        }
                        return try state.find(key, in: id, storePath: path)
                    }
                }).get()
            else { return nil }
            return [UInt8](record.value)
        }
    }

    /// Calls `body` with the value under `key` in `keyspace`, read in place from the log, and
    /// returns what it returns; `nil` (without calling `body`) if the key is absent. The buffer is
    /// valid only during the call, which holds the index lock: `body` must be short and must
    /// not call the store.
    /// - Throws: ``LogStoreError/closed``, or what `body` throws.
    /// - Complexity: one hash lookup; no copy of the value.
    @inlinable
    public func withValue<R: Sendable>(
        forKey key: UnsafeRawBufferPointer, in keyspace: String,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        var result: R?
        _ = try readValue(forKey: key, in: keyspace) { result = try body($0) }
        return result
    }

    /// Whether `keyspace` holds `key`.
    /// - Throws: ``LogStoreError/closed``.
    public func contains(_ key: [UInt8], in keyspace: String) throws -> Bool {
        try index.withLock { state throws(LogStoreError) -> Bool in
            guard !state.closed else { throw .closed }
            guard let id = state.keyspaces.cachedID(of: keyspace) else { return false }
            return try key.withUnsafeBytes { key in
                Result { () throws(LogStoreError) in try state.find(key, in: id, storePath: path) }
            }.get() != nil
        }
    }

    /// Stores `value` under `key` in `keyspace`; returns the commit's sequence number.
    /// - Throws: as ``commit(_:durability:)``.
    @discardableResult
    public func put(
        _ value: [UInt8], for key: [UInt8], in keyspace: String, durability: Durability? = nil
    )
        throws -> UInt64
    {
        var batch = WriteBatch()
        batch.put(value, for: key, in: keyspace)
        return try commit(batch, durability: durability)
    }

    /// Removes `key` from `keyspace` (nothing happens if it is absent); returns the commit's
    /// sequence number.
    /// - Throws: as ``commit(_:durability:)``.
    @discardableResult
    public func delete(_ key: [UInt8], in keyspace: String, durability: Durability? = nil) throws
        -> UInt64
    {
        var batch = WriteBatch()
        batch.delete(key, in: keyspace)
        return try commit(batch, durability: durability)
    }

    /// Applies every operation of `batch` atomically and returns its sequence number. With
    /// `.sync` (the default unless the options say otherwise) it returns once the batch is on
    /// stable storage. If it throws, nothing of the batch is visible.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a key, value or batch over the limits
    ///   (FORMAT.md, "Limits"); ``LogStoreError/readOnly(path:)``; ``LogStoreError/closed``;
    ///   ``LogStoreError/io(operation:path:errno:)``; ``LogStoreError/writesDisabled(path:cause:)``
    ///   after an earlier failed sync.
    /// - Complexity: O(bytes of the batch), plus one `fdatasync` shared with concurrent commits.
    @discardableResult
    public func commit(_ batch: WriteBatch, durability: Durability? = nil) throws -> UInt64 {
        guard let writer else { throw LogStoreError.readOnly(path: path) }
        try commitDeferred()
        return try commitNow(batch, durability: durability, writer: writer)
    }

    /// ``commit(_:durability:)`` without committing a deferred batch first.
    func commitNow(_ batch: WriteBatch, durability: Durability?, writer: LogWriter) throws
        -> UInt64
    {
        let pending = PendingCommit(batch: batch, durability: durability ?? options.durability)
        let sequence = try queue.submit(pending) { group in writer.write(group, index: index) }
            .get()
        considerAutoCompaction()
        return sequence
    }

    /// The durability of commits that do not name their own (``LogStoreOptions/durability``).
    public var durability: Durability { options.durability }

    /// Returns once commit `sequence` and every commit before it are on stable storage: for a
    /// caller that commits `.buffered` under a lock of its own (so its commits are ordered and
    /// visible at once) and waits for durability after releasing it. Callers waiting at the same
    /// time share one `fdatasync`, and commits go on being written while it runs.
    ///
    /// A failed sync disables writes, as for `.sync` commits: every later commit, and every
    /// wait not already satisfied, throws ``LogStoreError/writesDisabled(path:cause:)``.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the sync fails;
    ///   ``LogStoreError/writesDisabled(path:cause:)`` after an earlier failed sync.
    /// - Complexity: at most one `fdatasync`, usually shared.
    public func waitUntilDurable(_ sequence: UInt64) throws {
        guard let writer else { return }
        try writer.sharedSync.wait(
            for: sequence,
            published: { segment in index.withLock { state in (state.lastSequence, segment.size) }
            },
            fileSystem: options.fileSystem, directory: path)
    }

    /// Starts a compaction in the background when a new segment was started and dead bytes pass
    /// the thresholds in ``LogStoreOptions``.
    func considerAutoCompaction() {
        guard let fraction = options.autoCompactionDeadFraction else { return }
        let segments = index.withLock { $0.segments.count }
        guard autoCompactionCheckedSegments.exchange(segments, ordering: .relaxed) != segments,
            let stats = try? stats(), stats.deadBytes >= Int64(options.autoCompactionMinimumBytes),
            Double(stats.deadBytes) >= fraction * Double(stats.fileBytes),
            !autoCompactionQueued.exchange(true, ordering: .acquiring)
        else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            if let writer {
                _ = try? compactionLock.withLock { _ in try runCompaction(writer, automatic: true) }
            }
            autoCompactionQueued.store(false, ordering: .releasing)
        }
    }

    /// Number of live keys in `keyspace`.
    /// - Throws: ``LogStoreError/closed``.
    public func count(in keyspace: String) throws -> Int {
        // Checks that keyspace's table only, as a walk of it does: the count is the table's.
        try index.withLock(checkingOnly: keyspace) { state throws(LogStoreError) -> Int in
            try state.liveKeys(in: keyspace)
        }
    }

    /// ``count(in:)`` without the check of a key directory file's tables that it makes first
    /// when open left them unchecked: the count the file's checked meta section records, which
    /// the check of the tables confirms (or, failing, rebuilds from the log). For comparing
    /// a cache of the store with it at open, never for an answer.
    /// - Throws: ``LogStoreError/closed``.
    package func countLeavingTablesUnchecked(in keyspace: String) throws -> Int {
        try index.withLockLeavingTablesUnchecked { state throws(LogStoreError) -> Int in
            try state.liveKeys(in: keyspace)
        }
    }

    /// Calls `body` with every live key and value of `keyspace` as of the call, in the order they
    /// lie in the log (roughly the order they were last written). The buffers are valid only during the call. Commits made while it
    /// runs are not seen; `body` may use the store.
    /// - Throws: ``LogStoreError/closed``; ``LogStoreError/damagedKeyDirectory(path:reason:)`` if
    ///   an entry points at no record inside its segment (the keys before it have been passed to
    ///   `body`; close then removes the key directory file); what `body` throws.
    /// - Complexity: O(keys in `keyspace`) time, and 16 bytes a key of scratch memory; no other
    ///   keyspace is touched, and the log is read front to back. The mapped pages it has passed
    ///   are dropped from this process's memory as it goes (they stay in the page cache), so a
    ///   walk over a large store does not keep the whole log resident.
    public func forEach(
        in keyspace: String,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let snapshot = try snapshot(of: keyspace)
        guard let snapshot else { return }
        do {
            try withExtendedLifetime(snapshot.segments) {
                try snapshot.directory.forEachInLogOrder(
                    snapshot.bases, releasingPagesOf: snapshot.segments
                ) { _, record in
                    try body(record.key, record.value)
                }
            }
        } catch let damage as KeyDirectory.DamagedEntry {
            throw keyDirectoryDamaged(damage, keyspace: keyspace)
        }
    }

    /// What a walk of `keyspace` reads, checking that keyspace's table only (`nil`: no such
    /// keyspace). Copying the directory is O(1) (copy-on-write); the segments stay mapped while
    /// referenced.
    private func snapshot(of keyspace: String) throws(LogStoreError) -> Snapshot? {
        try index.withLock(checkingOnly: keyspace) {
            state throws(LogStoreError) -> Snapshot? in
            guard !state.closed else { throw .closed }
            guard let id = state.keyspaces.id(of: keyspace) else { return nil }
            return Snapshot(
                directory: state.directories[id], segments: state.segments, bases: state.bases)
        }
    }

    /// Where the log ends now: the next commit is written after it (``forEach(in:after:_:)``).
    /// - Throws: ``LogStoreError/closed``.
    public func endOfLog() throws -> LogPosition {
        try index.withLock { state throws(LogStoreError) -> LogPosition in
            guard !state.closed else { throw .closed }
            let last = state.segments.compactMap { $0 }.max { $0.order < $1.order }
            return LogPosition(segmentOrder: last?.order ?? 0, offset: last?.size ?? 0)
        }
    }

    /// ``forEach(in:_:)`` of the live records of `keyspace` that lie at or after `position`
    /// (written since ``endOfLog()`` returned it, or moved there by a compaction); returns how
    /// many live keys lie before it. The records before it are not read.
    /// - Throws: as ``forEach(in:_:)``.
    @discardableResult
    public func forEach(
        in keyspace: String, after position: LogPosition,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        let snapshot = try snapshot(of: keyspace)
        guard let snapshot else { return 0 }
        // By handle, the offset from which a segment's records are passed (`Int.max`: none).
        let from = snapshot.segments.map { segment -> Int in
            guard let segment else { return Int.max }
            if segment.order > position.segmentOrder { return 0 }
            return segment.order == position.segmentOrder ? position.offset : Int.max
        }
        var before = 0
        do {
            try withExtendedLifetime(snapshot.segments) {
                try snapshot.directory.forEachInLogOrder(
                    snapshot.bases, releasingPagesOf: snapshot.segments,
                    reading: { ref in
                        let passed = Int(ref.offset) >= from[Int(ref.segment)]
                        if !passed { before += 1 }
                        return passed
                    }
                ) { _, record in
                    try body(record.key, record.value)
                }
            }
        } catch let damage as KeyDirectory.DamagedEntry {
            throw keyDirectoryDamaged(damage, keyspace: keyspace)
        }
        return before
    }

    /// Every live key of `keyspace`, in no set order.
    /// - Throws: ``LogStoreError/closed``; ``LogStoreError/damagedKeyDirectory(path:reason:)`` if
    ///   an entry points at no record of its key (close then removes the key directory file).
    public func keys(in keyspace: String) throws -> [[UInt8]] {
        try index.withLock { state throws(LogStoreError) -> [[UInt8]] in
            guard !state.closed else { throw .closed }
            guard let id = state.keyspaces.id(of: keyspace) else { return [] }
            var keys: [[UInt8]] = []
            keys.reserveCapacity(state.directories[id].count)
            do throws(KeyDirectory.DamagedEntry) {
                try state.directories[id].forEach(state.bases) { _, record in
                    keys.append([UInt8](record.key))
                }
            } catch {
                state.keyDirectoryDamaged = true
                throw StoreState.damaged(error, keyspace: keyspace, storePath: path)
            }
            return keys
        }
    }

    /// Names of the keyspaces that hold at least one key, sorted.
    /// - Throws: ``LogStoreError/closed``.
    public func keyspaces() throws -> [String] {
        try index.withLock { state throws(LogStoreError) -> [String] in
            guard !state.closed else { throw .closed }
            return state.keyspaces.ids.filter { state.directories[$0.value].count > 0 }.keys
                .sorted()
        }
    }

    /// The sequence number of the last visible commit (0 for a new store). Reads no table of a
    /// key directory file that open left unchecked.
    public var lastSequence: UInt64 { index.withLockLeavingTablesUnchecked { $0.lastSequence } }

    /// Whether open skipped damaged bytes it could not read (``LogStoreOptions/salvage``):
    /// ``recovery``'s `skipped`, without the check of a key directory file's tables that reading
    /// ``recovery`` makes first.
    package var skippedDamageAtOpen: Bool { index.skippedAtOpen }

    /// Whether the tables of the key directory file open mapped are still unchecked.
    package var keyDirectoryTablesUnchecked: Bool {
        index.withLockLeavingTablesUnchecked { $0.hasPendingCheck }
    }

    /// Whether the table of `keyspace` in the key directory file open mapped is still unchecked.
    package func keyDirectoryTableUnchecked(in keyspace: String) -> Bool {
        index.withLockLeavingTablesUnchecked { state in
            state.keyspaces.id(of: keyspace).map {
                state.pendingCheck?.uncheckedIDs.contains($0) == true
            } ?? false
        }
    }

    /// Sizes and counts.
    /// - Throws: ``LogStoreError/closed``.
    public func stats() throws -> LogStoreStats {
        try index.withLock { state throws(LogStoreError) -> LogStoreStats in
            guard !state.closed else { throw .closed }
            var keyspaces: [KeyspaceStats] = []
            for (name, id) in state.keyspaces.ids {
                let directory = state.directories[id]
                keyspaces.append(
                    KeyspaceStats(name: name, keys: directory.count, liveBytes: directory.liveBytes)
                )
            }
            keyspaces.sort { $0.name < $1.name }
            let segments = state.segments.compactMap { $0 }
            let fileBytes = segments.reduce(Int64(0)) { $0 + Int64($1.size) }
            let liveBytes = segments.reduce(Int64(0)) { $0 + $1.liveBytes }
            return LogStoreStats(
                keyspaces: keyspaces, liveBytes: liveBytes, deadBytes: fileBytes - liveBytes,
                segments: segments.count,
                fileBytes: fileBytes, lastSequence: state.lastSequence,
                lastCompaction: lastCompaction.withLock { $0 })
        }
    }

    /// Bytes the in-memory index takes (key bytes included).
    public var indexMemoryBytes: Int {
        index.withLock { $0.directories.reduce(0) { $0 + $1.memoryBytes } }
    }

    /// Forces every buffered commit to stable storage.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` (writes are then disabled until
    ///   reopen), ``LogStoreError/closed``.
    public func sync() throws {
        guard let writer else { return }
        try queue.exclusive { try writer.sync() }
    }

    /// At a clean close, writes the key directory file if the store holds enough keys
    /// (``LogStoreOptions/keyDirectoryFileMinimumKeys``), the file would take no more than the
    /// share of the store set by ``LogStoreOptions/keyDirectoryFileMaximumShare`` (if any), and
    /// the file on disk does not already describe this state. Returns whether a current file is there afterwards. Best effort: a
    /// failure leaves the old file, which the next open finds stale (or extends by a scan).
    private func writeKeyDirectoryFile() -> Bool {
        // Tables still unchecked from an open that used the file whole: nothing was written
        // since (writes check first), so the file describes this state; checking it now would
        // be wasted.
        if index.withLockForPointRead({ $0.hasPendingCheck && $0.keyDirectoryFileState != nil }
        ) {
            return true
        }
        guard let minimum = options.keyDirectoryFileMinimumKeys, recovery.skipped.isEmpty else {
            return false
        }
        return index.withLock { state in
            // A table a read found damaged is not written again; the file it came from goes,
            // so the next open rebuilds the index from the log.
            if state.keyDirectoryDamaged {
                try? options.fileSystem.remove(path + "/" + KeyDirectoryFile.name)
                state.keyDirectoryFileState = nil
                return false
            }
            let tableBytes = state.directories.reduce(0) {
                $0 + $1.capacity * MemoryLayout<KeyDirectory.Entry>.stride
            }
            let segmentBytes = state.segments.reduce(0) { $0 + ($1?.size ?? 0) }
            guard state.onlyKeyspaces == nil,
                state.directories.reduce(0, { $0 + $1.count }) >= minimum,
                options.keyDirectoryFileMaximumShare.map({
                    Double(tableBytes) <= $0 * Double(segmentBytes)
                }) ?? true
            else { return false }
            let current = KeyDirectoryFile.Current(
                lastSequence: state.lastSequence, segments: state.segments.count)
            if state.keyDirectoryFileState == current { return true }
            do {
                try KeyDirectoryFile.write(state, directory: path, fileSystem: options.fileSystem)
                state.keyDirectoryFileState = current
                return true
            } catch {
                return false
            }
        }
    }

    /// Closes the store: cancels an open ``StreamingCommit``, syncs buffered commits, unmaps the
    /// segments and releases the writer lock. Further calls throw ``LogStoreError/closed``.
    /// Closing twice is harmless.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the final sync fails (the store is
    ///   closed all the same).
    public func close() throws {
        var failure: Error?
        // A compaction in progress may be waiting for the open streaming commit: end it first.
        cancelOpenStreamingCommit()
        // What an open deferred is written now, as the next write would have.
        do { try commitDeferred() } catch { failure = error }
        // Waits for a compaction in progress.
        let first = compactionLock.withLock { _ in
            queue.close(closing: cancelOpenStreamingCommit) {
                do { try writer?.seal(index: index) } catch { failure = error }
                // The key directory file lets the next open map the index; without it, a hint
                // for the active segment lets it skip scanning that segment, for as long as the
                // segment keeps exactly this size (the hint records it): one open read is
                // current while nothing was appended since.
                if failure == nil, let writer, !writeKeyDirectoryFile(),
                    writer.active.size > FileHeader.size,
                    writer.active.hintedSize != writer.active.size
                {
                    try? Hint.write(
                        for: writer.active, directory: path, fileSystem: options.fileSystem)
                }
                // Closing needs no check of tables left unchecked.
                index.withLockForPointRead { state in
                    state.closed = true
                    state.segments.removeAll()
                    state.bases.removeAll()
                }
                if let lockFile { try? options.fileSystem.close(lockFile) }
            }
        }
        if first, let failure { throw failure }
    }
}

extension StoreState {
    /// Live keys of `keyspace` (0 for one the store does not know).
    /// - Throws: ``LogStoreError/closed``.
    fileprivate func liveKeys(in keyspace: String) throws(LogStoreError) -> Int {
        guard !closed else { throw .closed }
        return keyspaces.id(of: keyspace).map { directories[$0].count } ?? 0
    }
}
