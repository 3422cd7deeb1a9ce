/// Step 4 of a compaction: the index pointed at the records' copies, by the table slots the copy
/// walked, without walking and sorting the tables again.
extension LogStore {
    /// Records re-pointed under one acquisition of the index lock.
    static let repointChunk = 4096

    /// How many moves ahead the re-pointing prefetches table entries: enough misses in flight
    /// to cover memory's latency, few enough that the lines are still cached when used.
    static let repointPrefetchDistance = 16

    /// Points every live entry that names a record the copy moved at its copy in `outputs`, a
    /// chunk at a time (readers and commits go on between chunks). `slots` holds, by keyspace,
    /// the slot in `directories` (the tables the copy walked, which no commit changes) of each
    /// record copied, in the order of the outputs.
    ///
    /// An entry a commit has since replaced or removed is left as it is. One it has moved to
    /// another slot (a removal shifts entries back; growing rehashes them all), or one of a
    /// live table that is not the one walked (with history, the copy walks an older state), is
    /// found along its hash's probe run. What still points into an input afterwards is damage,
    /// which step 5 reports.
    func repointIndex(to outputs: [Segment], directories: [KeyDirectory], slots: [[UInt32]]) {
        // The copies in the order written, paired with the slots in the order copied.
        var copied = CompactionOutputRecords(outputs)
        typealias Move = (slot: Int, hash: UInt32, old: RecordRef, new: RecordRef, size: Int)
        var chunk: [Move] = []
        chunk.reserveCapacity(Self.repointChunk)
        let ahead = Self.repointPrefetchDistance
        // `chunk` is passed, not captured: a captured variable would cost a dynamic
        // exclusivity check per record appended to it below.
        func repoint(_ chunk: inout [Move], keyspace: Int) {
            index.withLock { state in
                // Each move's slot is a cache miss of its own: the slots a few moves ahead are
                // asked for early, so the misses overlap.
                for i in chunk.indices {
                    if i + ahead < chunk.count {
                        KeyDirectory.prefetch(
                            state.directories[keyspace].entries, slot: chunk[i + ahead].slot)
                    }
                    let move = chunk[i]
                    if state.directories[keyspace].replace(
                        slot: move.slot, hash: move.hash, expected: move.old, with: move.new)
                    {
                        state.segments[Int(move.new.segment)]?.liveBytes += Int64(move.size)
                    }
                }
            }
            chunk.removeAll(keepingCapacity: true)
        }
        withExtendedLifetime((outputs, directories)) {
            for (keyspace, walked) in directories.enumerated() where !slots[keyspace].isEmpty {
                let keyspaceSlots = slots[keyspace]
                let entries = walked.entries
                for i in keyspaceSlots.indices {
                    if i + ahead < keyspaceSlots.count {
                        KeyDirectory.prefetch(entries, slot: Int(keyspaceSlots[i + ahead]))
                    }
                    // Invariant: the outputs hold exactly the records the copy walked, in order.
                    guard let (new, record) = copied.next() else {
                        preconditionFailure("compaction output shorter than what was copied")
                    }
                    let slot = Int(keyspaceSlots[i])
                    // The key's hash, not the entry's: an entry of a damaged key directory file
                    // with another hash is then not re-pointed, and step 5 reports it.
                    chunk.append(
                        (
                            slot, KeyDirectory.hash(record.key), entries[slot].ref, new,
                            record.encodedSize
                        ))
                    if chunk.count == Self.repointChunk { repoint(&chunk, keyspace: keyspace) }
                }
                repoint(&chunk, keyspace: keyspace)
            }
        }
    }
}
