#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends commits to the active segment. Used only by the group-commit leader (one at a time),
/// or by the ``StreamingCommit`` holding the queue, so it needs no lock of its own; what readers
/// see it publishes through the index lock.
///
/// The work is split by concern: this file holds the state and the group write;
/// `LogWriter+Encoding` turns batches into frames, `LogWriter+Publishing` applies written commits
/// to the index, `LogWriter+Sync` decides when bytes are durable and writes sync marks,
/// `LogWriter+ZeroTail` keeps the zeroed space after the last commit (FORMAT.md, "Zero tail"),
/// `LogWriter+Segments` seals and starts segments, `LogWriter+Streaming` writes one commit in
/// pieces.
///
/// Invariant: `active.size` (published) ends at a commit boundary, and nothing the writer has
/// not published lies beyond it in the file except the group (or streaming commit) being written.
final class LogWriter: @unchecked Sendable {
    let directory: String
    let fileSystem: any FileSystem
    let segmentSize: Int
    /// The segment commits are appended to.
    var active: Segment
    /// The writer's keyspace table: ahead of the index's while a group is being written.
    var keyspaces: KeyspaceTable
    /// The sequence number the next commit gets.
    var nextSequence: UInt64
    /// Bytes of the active segment handed to the OS.
    var writtenSize: Int
    /// Bytes of the active segment known to be on stable storage (a successful `fdatasync`
    /// covered them).
    var durableSize: Int
    /// The durable size the active segment's latest sync mark records.
    var markedSize: Int
    /// The active segment's file size: bytes from `writtenSize` up to it are its zero tail
    /// (``ZeroTail``), which commits overwrite. Invariant: `reservedSize >= writtenSize`, and
    /// every byte between them is zero.
    var reservedSize: Int
    /// When to extend the zero tail, and by how much.
    let zeroTail: ZeroTailPolicy
    /// Durable group writes into the active segment in this session (syncs callers waited
    /// for, ``SharedSync``, count too).
    var durableGroups = 0
    /// Set when extending the active segment failed (a full disk): its commits append.
    var zeroTailFailed = false
    /// Whether the next commit must first define every known keyspace: each segment restates
    /// the definitions so that removing older segments never leaves a number undefined.
    var activeNeedsDefinitions = false
    /// Shared syncs of `.buffered` commits (``LogStore/waitUntilDurable(_:)``); it also holds
    /// `disabledCause`, so that a failed sync there disables writes here too.
    let sharedSync: SharedSync
    /// Set after a failed sync: writes are refused until the store is reopened.
    var disabledCause: Int32? {
        get { sharedSync.disabledCause }
        set { sharedSync.disabledCause = newValue }
    }

    /// A writer appending to `active`, whose file is `reservedSize` bytes: its commits, then
    /// its zero tail.
    init(
        directory: String, fileSystem: any FileSystem, segmentSize: Int, active: Segment,
        state: StoreState, reservedSize: Int, zeroTail: ZeroTailPolicy
    ) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.segmentSize = segmentSize
        self.active = active
        self.reservedSize = reservedSize
        self.zeroTail = zeroTail
        self.sharedSync = SharedSync(active: active)
        // Nothing is known durable of what an earlier process wrote until this one syncs. A
        // segment that ends with a mark (a clean close) needs no new one until it grows.
        self.writtenSize = active.size
        self.durableSize = FileHeader.size
        self.markedSize = SyncMark.ends(active.bytes()) ? active.size : FileHeader.size
        self.keyspaces = state.keyspaces
        self.nextSequence = state.lastSequence + 1
        // The active segment may not define what it uses (older segments do, and compaction may
        // remove them): restate the definitions in the first commit after opening.
        self.activeNeedsDefinitions = state.keyspaces.nextID > 1
    }

    /// What the writer may have to undo when a write fails: the state a group (or streaming
    /// commit) started from.
    struct Checkpoint {
        var keyspaces: KeyspaceTable
        var activeNeedsDefinitions: Bool
        var markedSize: Int
        /// Where the group starts in the active segment.
        var start: Int
    }

    /// Groups larger than this give their segment's mapped pages back after publishing.
    static let releaseAfterBytes = 16 << 20

    /// The state to return to if what is written next fails.
    func checkpoint() -> Checkpoint {
        Checkpoint(
            keyspaces: keyspaces, activeNeedsDefinitions: activeNeedsDefinitions,
            markedSize: markedSize, start: active.size)
    }

    /// Undoes a failed group (or streaming commit): cuts its bytes off the segment so later
    /// commits do not follow garbage, and forgets what it defined. Returns the error to report.
    func rollBack(to checkpoint: Checkpoint, after error: Error) -> LogStoreError {
        keyspaces = checkpoint.keyspaces
        activeNeedsDefinitions = checkpoint.activeNeedsDefinitions
        markedSize = checkpoint.markedSize
        writtenSize = checkpoint.start
        // The zero tail goes with the failed bytes: a later durable group extends it again.
        reservedSize = checkpoint.start
        do {
            try fileSystem.truncate(active.file, to: Int64(checkpoint.start))
        } catch {
            // The garbage stays: refuse further writes rather than append after it.
            if disabledCause == nil { disabledCause = EIO }
        }
        return (error as? LogStoreError)
            ?? .io(operation: "write", path: active.path, errno: EIO)
    }

    /// Writes a group of commits and publishes them to `index`; sets every commit's result.
    func write(_ group: [PendingCommit], index: borrowing StoreStateLock) {
        if let cause = disabledCause {
            for commit in group {
                commit.result = .failure(.writesDisabled(path: directory, cause: cause))
            }
            return
        }
        guard index.settleBeforeWriting() else {
            for commit in group { commit.result = .failure(.closed) }
            return
        }
        var accepted: [PendingCommit] = []
        for commit in group {
            if let problem = commit.batch.invalidity() {
                commit.result = .failure(problem)
            } else {
                accepted.append(commit)
            }
        }
        guard !accepted.isEmpty else { return }
        let estimate = accepted.reduce(0) { $0 + $1.batch.encodedSizeBound }
        var written: [Written] = []
        var start = checkpoint()
        do {
            try rollIfNeeded(adding: estimate, index: index)
            start = checkpoint()
            try reserveZeroTail(
                adding: estimate + SyncMark.frameSize,
                durable: accepted.contains(where: { $0.durability == .sync }))
            var output = SegmentOutput(
                file: active.file, fileSystem: fileSystem, offset: active.size,
                capacity: min(estimate, SegmentOutput.flushThreshold + Frame.targetPayload * 2))
            appendMarkIfNeeded(to: &output)
            for (i, commit) in accepted.enumerated() {
                written.append(
                    try encode(commit, sequence: nextSequence + UInt64(i), output: &output))
            }
            try output.flush()
            writtenSize = output.offset
            reservedSize = max(reservedSize, writtenSize)
            if accepted.contains(where: { $0.durability == .sync }) { try sync() }
            let end = output.offset
            index.withLock { state in
                // First: publishing checks the records it replaces against the segment's size,
                // and they may be in this group.
                state.setSize(of: active, end)
                for batch in written { publish(batch, into: &state) }
                state.lastSequence = written.last!.sequence
            }
            // Publishing compares keys in the log on hash collisions, which maps pages of the
            // segment into this process; after a large group, hand them back (they stay in the
            // page cache), so a bulk load does not hold its whole segment resident.
            if end - start.start > Self.releaseAfterBytes { active.releasePages() }
        } catch {
            let failure = rollBack(to: start, after: error)
            for commit in accepted { commit.result = .failure(failure) }
            return
        }
        nextSequence += UInt64(accepted.count)
        for batch in written { batch.commit.result = .success(batch.sequence) }
        // A buffered group that filled the segment seals it now: the bulk load pays for the
        // sealed segment's sync and hint, not the small commit after it (a 64 MiB hint scan took
        // 31 ms, on the first single save after a 1M-object load). A failure here is met again,
        // and reported, before the next group. A durable group leaves it to the next one: it
        // has been acknowledged as durable, and must not leave unsynced bytes behind it.
        if active.size >= segmentSize, !accepted.contains(where: { $0.durability == .sync }) {
            try? rollIfNeeded(adding: 0, index: index)
        }
    }
}
