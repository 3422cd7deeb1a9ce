/// Step 4 of a compaction: the index pointed at the records' copies, by the list of where the
/// copy found each record, without walking and sorting the tables again.
extension LogStore {
    /// Records re-pointed under one acquisition of the index lock.
    static let repointChunk = 4096

    /// How many moves ahead the re-pointing prefetches table entries: enough misses in flight
    /// to cover memory's latency, few enough that the lines are still cached when used.
    static let repointPrefetchDistance = 16

    /// Points every live entry that still names a record the copy moved at its copy in
    /// `outputs`, a chunk at a time (readers and commits go on between chunks). `moved` holds,
    /// by keyspace, where each record copied was, in the order of the outputs.
    ///
    /// An entry a commit has since replaced or removed is left as it is; one it has moved to
    /// another slot (a removal shifts entries back, growing rehashes them all) is found along
    /// its key's probe run. What still points into an input afterwards is damage, which step 5
    /// reports.
    func repointIndex(to outputs: [Segment], moved: [[RecordRef]]) {
        // The copies in the order written, paired with the old places in the order copied.
        var copied = CompactionOutputRecords(outputs)
        typealias Move = (hash: UInt32, old: RecordRef, new: RecordRef, size: Int)
        var chunk: [Move] = []
        chunk.reserveCapacity(Self.repointChunk)
        // `chunk` is passed, not captured: a captured variable would cost a dynamic
        // exclusivity check per record appended to it below.
        func repoint(_ chunk: inout [Move], keyspace: Int) {
            index.withLock { state in
                // Each move's table entry is a cache miss of its own: the entries a few moves
                // ahead are asked for early, so the misses overlap.
                let ahead = Self.repointPrefetchDistance
                for i in chunk.indices {
                    if i + ahead < chunk.count {
                        KeyDirectory.prefetchSlot(
                            state.directories[keyspace].entries, chunk[i + ahead].hash)
                    }
                    let move = chunk[i]
                    if state.directories[keyspace].replace(
                        hash: move.hash, expected: move.old, with: move.new)
                    {
                        state.segments[Int(move.new.segment)]?.liveBytes += Int64(move.size)
                    }
                }
            }
            chunk.removeAll(keepingCapacity: true)
        }
        withExtendedLifetime(outputs) {
            for keyspace in moved.indices where !moved[keyspace].isEmpty {
                index.withLock { $0.directories[keyspace].prepareForWrites(moved[keyspace].count) }
                for old in moved[keyspace] {
                    // Invariant: the outputs hold exactly the records the copy walked, in order.
                    guard let (new, record) = copied.next() else {
                        preconditionFailure("compaction output shorter than what was copied")
                    }
                    chunk.append((KeyDirectory.hash(record.key), old, new, record.encodedSize))
                    if chunk.count == Self.repointChunk { repoint(&chunk, keyspace: keyspace) }
                }
                repoint(&chunk, keyspace: keyspace)
            }
        }
    }
}
