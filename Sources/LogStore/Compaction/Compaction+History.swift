/// What a compaction rewrites when the store keeps history (FORMAT.md, "History").
struct CompactionPlan {
    /// The segments to replace, a prefix of the replay order.
    var inputs: [Segment]
    /// The state whose records in `inputs` are copied.
    var directories: [KeyDirectory]
    /// The sequence number that state is of, which the outputs' frames carry.
    var sequence: UInt64
}

extension LogStore {
    /// The inputs and the state to copy. Without ``LogStoreOptions/historyRetention`` (or when it
    /// keeps nothing) that is every sealed segment and the live state. Otherwise it is the
    /// longest prefix of sealed segments whose commits all come at or before the retained
    /// sequence number, and the state at the end of that prefix: every later state is that one
    /// plus the commits after it, which stay as they are. An automatic compaction then runs only
    /// if the ordinary segments of the prefix hold enough dead bytes to be worth it.
    func compactionPlan(
        sealed: [Segment], bases: SegmentBases, live: [KeyDirectory], sequence: UInt64,
        automatic: Bool
    ) throws -> CompactionPlan {
        guard let retention = options.historyRetention, let retained = try retention(self) else {
            return CompactionPlan(inputs: sealed, directories: live, sequence: sequence)
        }
        let nothing = CompactionPlan(inputs: [], directories: [], sequence: 0)
        var inputs: [Segment] = []
        var last: UInt64 = 0
        for segment in sealed {
            guard let span = segment.commitSpan() else { break }  // damaged: keep it
            if let span {
                // A compaction output holds an older state whatever its sequence number.
                if !segment.isCompactionOutput && span.last > retained { break }
                last = max(last, span.last)
            }
            inputs.append(segment)
        }
        // Rewriting only earlier outputs would copy the same records again.
        guard inputs.contains(where: { !$0.isCompactionOutput }) else { return nothing }
        if automatic {
            let (dead, total) = index.withLock { _ in
                inputs.filter { !$0.isCompactionOutput }.reduce((Int64(0), Int64(0))) {
                    ($0.0 + Int64($1.size) - $1.liveBytes, $0.1 + Int64($1.size))
                }
            }
            guard dead >= Int64(options.autoCompactionMinimumBytes),
                Double(dead) >= (options.autoCompactionDeadFraction ?? 0.5) * Double(total)
            else { return nothing }
        }
        let state = try HistoryReplay.state(
            asOf: .max, segments: inputs, handles: bases.count, bases: bases,
            fileSystem: options.fileSystem)
        return CompactionPlan(inputs: inputs, directories: state.directories, sequence: last)
    }
}
