/// Rebuilds the index as it stood after one commit, from the segments the store holds
/// (FORMAT.md, "History"): the state behind ``LogStore/snapshot(asOf:)``, and the state at the end
/// of the segments a history-keeping compaction rewrites.
///
/// The state it builds shares the store's mapped segments (by handle) but not their accounting:
/// its `segments` are all `nil`, so applying records never touches the live store's live-byte
/// counts. The caller keeps the segments alive while the state is read.
enum HistoryReplay {
    /// The state after commit `sequence`, replaying `segments` (given in replay order). Segments
    /// whose commits all come at or before `sequence` are applied from their hint files when
    /// those are usable, the rest by walking their frames up to `sequence`.
    /// - Parameters:
    ///   - handles: the number of segment handles the store has given out (refs use them).
    ///   - bases: the store's segment base addresses, by handle.
    /// - Throws: ``LogStoreError/historyUnavailable(requested:oldest:)`` if a compaction output
    ///   holds the state after a later commit (then the state after `sequence` is gone);
    ///   ``LogStoreError/corruption(path:offset:reason:)`` for damage met on the way (a store
    ///   opened in salvage mode).
    static func state(
        asOf sequence: UInt64, segments: [Segment], handles: Int, bases: SegmentBases,
        fileSystem: any FileSystem
    ) throws -> StoreState {
        var state = StoreState()
        state.segments = Array(repeating: nil, count: handles)
        state.bases = bases
        for segment in segments {
            if segment.isCompactionOutput {
                // Its frames all carry the sequence its state is of.
                if let held = segment.firstCommitSequence(), held > sequence {
                    throw LogStoreError.historyUnavailable(requested: sequence, oldest: held)
                }
            }
            if let hint = usableHint(of: segment, upTo: sequence, fileSystem: fileSystem) {
                do {
                    let last = try hint.withUnsafeBytes {
                        try Hint.apply($0, to: segment, state: &state)
                    }
                    state.lastSequence = max(state.lastSequence, last)
                    continue
                } catch is Hint.Unusable {
                    // Hint.apply changed nothing: walk the frames instead.
                }
            }
            guard try replayFrames(of: segment, upTo: sequence, into: &state) else { break }
        }
        return state
    }

    /// Applies the commits of `segment` up to `sequence`; returns `false` once it meets a later
    /// commit (segments after it hold only later ones).
    private static func replayFrames(
        of segment: Segment, upTo sequence: UInt64, into state: inout StoreState
    ) throws -> Bool {
        let bytes = segment.bytes()
        guard bytes.count >= FileHeader.size else { return true }
        var scanner = SegmentScanner(bytes: bytes, keyspaces: state.keyspaces)
        while let event = scanner.next() {
            switch event {
            case .commit(let found, let start, let end):
                // Compaction outputs carry one sequence for all their frames, so they never stop
                // the walk: the caller checked theirs.
                if found > sequence && !segment.isCompactionOutput { return false }
                state.applyCommit(&scanner, start: start, end: end, segment: segment)
                state.lastSequence = max(state.lastSequence, found)
            case .damage(let damage):
                throw LogStoreError.corruption(
                    path: segment.path, offset: Int64(damage.commitStart),
                    reason: "\(damage.reason); the state after this point cannot be rebuilt")
            }
        }
        return true
    }

    /// The bytes of `segment`'s hint file when it exists, fits the size limit open applies and
    /// says that every commit of the segment comes at or before `sequence`; `nil` otherwise.
    private static func usableHint(
        of segment: Segment, upTo sequence: UInt64, fileSystem fs: any FileSystem
    ) -> [UInt8]? {
        guard segment.size > FileHeader.size,
            let file = try? fs.open(
                Hint.path(forSegment: segment.path), create: false, readOnly: true)
        else { return nil }
        defer { try? fs.close(file) }
        guard let size = try? fs.size(file), size >= Int64(FileHeader.size + Hint.trailerSize),
            size <= Int64(segment.size) * 4 + Int64(FileHeader.size + Hint.trailerSize)
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard
            let read = try? bytes.withUnsafeMutableBytes({ try fs.read(file, into: $0, at: 0) }),
            read == bytes.count
        else { return nil }
        let lastSequence = bytes.withUnsafeBytes {
            $0.loadLE(at: $0.count - Hint.trailerSize + 8, as: UInt64.self)
        }
        return lastSequence <= sequence || segment.isCompactionOutput ? bytes : nil
    }
}
