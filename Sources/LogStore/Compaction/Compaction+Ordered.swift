/// Compaction's part in keeping ordered keyspaces' key order (``OrderedKeys``) pointing into
/// mapped segments: once the key directories point at the outputs (step 4), every reference
/// into an input is re-pointed at its key's current record, before the inputs are unmapped.
extension LogStore {
    /// Entries re-pointed under one acquisition of the index lock.
    static let orderRepointChunk = 4096

    /// Step 4b: re-points the main runs of the ordered keyspaces, a chunk at a time (readers and
    /// commits go on between chunks). A fold between two chunks moves entries, so the pass over
    /// that keyspace starts again (entries already re-pointed cost a comparison each).
    func repointOrder(from inputs: [Segment]) {
        let handles = index.withLock { state in Self.inputHandles(inputs, state) }
        var keyspace = 0
        var cursor = 0
        var folds = 0
        while true {
            let more = index.withLock { state -> Bool in
                while keyspace < state.ordered.count && state.ordered[keyspace] == nil {
                    keyspace += 1
                    cursor = 0
                }
                guard keyspace < state.ordered.count else { return false }
                if cursor == 0 { folds = state.ordered[keyspace]!.folds }
                if state.ordered[keyspace]!.folds != folds {
                    folds = state.ordered[keyspace]!.folds
                    cursor = 0
                }
                let directory = state.directories[keyspace]
                let bases = state.bases
                cursor = state.ordered[keyspace]!.repoint(
                    from: cursor, limit: Self.orderRepointChunk, inputs: handles,
                    directory: directory, bases)
                if cursor >= state.ordered[keyspace]!.main.count {
                    keyspace += 1
                    cursor = 0
                }
                return true
            }
            if !more { return }
        }
    }

    /// Which handles are inputs.
    private static func inputHandles(_ inputs: [Segment], _ state: StoreState) -> [Bool] {
        var handles = [Bool](repeating: false, count: state.segments.count)
        for input in inputs where Int(input.handle) < handles.count {
            handles[Int(input.handle)] = true
        }
        return handles
    }
}

extension StoreState {
    /// Step 5, under the same lock acquisition that unmaps the inputs: folds each ordered
    /// keyspace's delta (so no tombstone or delta put refers into an input) and re-points what
    /// still refers into an input (entries the folds since step 4b brought into the main run).
    mutating func finishRepointingOrder(from inputs: [Segment]) {
        guard !ordered.isEmpty else { return }
        var handles = [Bool](repeating: false, count: segments.count)
        for input in inputs where Int(input.handle) < handles.count {
            handles[Int(input.handle)] = true
        }
        for keyspace in ordered.indices where ordered[keyspace] != nil {
            ordered[keyspace]!.fold(bases)
            // Every live key's current record is now in a segment that stays, unless a damaged
            // key directory entry stood in a re-pointing lookup's way: the caller checks
            // (``referenceInto(_:)``) before it unmaps the inputs.
            _ = ordered[keyspace]!.repoint(
                from: 0, limit: .max, inputs: handles, directory: directories[keyspace], bases)
        }
    }
}
