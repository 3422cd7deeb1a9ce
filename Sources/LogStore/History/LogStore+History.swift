/// The log as history (FORMAT.md, "History"): past states and the commits after a sequence number.
extension LogStore {
    /// The oldest sequence number whose state the store can still show: every commit after it
    /// is in the log, and ``snapshot(asOf:)`` can rebuild the state after it. 0 until a compaction
    /// drops older history; how much a compaction keeps is up to
    /// ``LogStoreOptions/historyRetention``.
    /// - Throws: ``LogStoreError/closed``.
    public func historyFloor() throws -> UInt64 {
        let segments = try index.withLock { state throws(LogStoreError) -> [Segment] in
            guard !state.closed else { throw .closed }
            return state.segments.compactMap { $0 }
        }
        return Self.historyFloor(of: segments)
    }

    /// The oldest sequence number whose state `segments` hold: the newest state a compaction
    /// output holds (all its frames carry it), or 0.
    static func historyFloor(of segments: [Segment]) -> UInt64 {
        segments.lazy.filter(\.isCompactionOutput).compactMap { $0.firstCommitSequence() }.max()
            ?? 0
    }

    /// A read-only view of the store as it was right after commit `sequence`: reads see exactly
    /// the keys and values of that moment, whatever was committed or compacted since. Writes to
    /// it throw ``LogStoreError/readOnly(path:)``. The view keeps the segment files it reads
    /// mapped until it is closed or released.
    /// - Throws: ``LogStoreError/historyUnavailable(requested:oldest:)`` if `sequence` is older than
    ///   ``historyFloor()``; ``LogStoreError/invalidArgument(_:)`` if it is after
    ///   ``lastSequence``; ``LogStoreError/closed``; ``LogStoreError/corruption(path:offset:reason:)``
    ///   for damage in the history it replays (a store opened in salvage mode).
    /// - Complexity: O(records in the log up to `sequence`) and index memory for its keys, as an
    ///   open that rebuilds the index from hint files.
    public func snapshot(asOf sequence: UInt64) throws -> LogStore {
        let (segments, handles, bases, last) = try index.withLock {
            state throws(LogStoreError) in
            guard !state.closed else { throw .closed }
            return (
                state.segments.compactMap { $0 }.sorted { $0.order < $1.order },
                state.segments.count, state.bases, state.lastSequence
            )
        }
        guard sequence <= last else {
            throw LogStoreError.invalidArgument(
                "sequence number \(sequence) is ahead of the store's last commit, \(last)")
        }
        let floor = Self.historyFloor(of: segments)
        guard sequence >= floor else {
            throw LogStoreError.historyUnavailable(requested: sequence, oldest: floor)
        }
        var state = try HistoryReplay.state(
            asOf: sequence, segments: segments, handles: handles, bases: bases,
            fileSystem: options.fileSystem)
        state.lastSequence = sequence
        var viewOptions = options
        viewOptions.readOnly = true
        viewOptions.autoCompactionDeadFraction = nil
        viewOptions.historyRetention = nil
        return LogStore(view: path, options: viewOptions, state: state, retaining: segments)
    }

    /// A reader of the commits after `sequence`, in order (see ``CommitReader``). With `follow`,
    /// the reader looks for commits made after it reached the end, including, for a store opened
    /// read-only, commits another process writes.
    /// - Throws: ``LogStoreError/historyUnavailable(requested:oldest:)`` if commits after
    ///   `sequence` were compacted away (older than ``historyFloor()``);
    ///   ``LogStoreError/invalidArgument(_:)`` if `sequence` is after the last commit;
    ///   ``LogStoreError/closed``.
    public func commits(after sequence: UInt64, follow: Bool = false) throws -> CommitReader {
        try CommitReader(store: self, after: sequence, follow: follow)
    }
}
