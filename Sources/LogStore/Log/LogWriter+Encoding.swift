/// Turning batches into frames (FORMAT.md, "Commits" and "Records").
extension LogWriter {
    /// What the leader needs to publish one written batch.
    struct Written {
        var commit: PendingCommit
        var sequence: UInt64
        /// The store's keyspace number of each of the batch's local ones.
        var globalIDs: [Int]
        var definitions: [(name: String, id: Int)]
        /// File offset of each put record, in the batch's order.
        var recordOffsets: [UInt32]
    }

    /// The store's numbers for the batch's keyspaces, and the definitions the commit must start
    /// with: every keyspace when the active segment has not yet restated them, plus the
    /// batch's new ones (numbered next, in the order the batch first uses them).
    func resolveKeyspaces(of batch: WriteBatch) -> (
        globalIDs: [Int], definitions: [(name: String, id: Int)]
    ) {
        var globalIDs: [Int] = []
        var definitions: [(name: String, id: Int)] = []
        if activeNeedsDefinitions {
            for id in 1..<keyspaces.nextID { definitions.append((keyspaces.name(of: id)!, id)) }
            activeNeedsDefinitions = false
        }
        for name in batch.keyspaceNames {
            if let id = keyspaces.id(of: name) {
                globalIDs.append(id)
            } else {
                let id = keyspaces.nextID
                _ = keyspaces.define(name, id: id)
                globalIDs.append(id)
                definitions.append((name, id))
            }
        }
        return (globalIDs, definitions)
    }

    /// Encodes `commit` as one commit's frames at the end of `output`, handing full stretches
    /// to the OS as it goes.
    func encode(_ commit: PendingCommit, sequence: UInt64, output: inout SegmentOutput) throws
        -> Written
    {
        let (globalIDs, definitions) = resolveKeyspaces(of: commit.batch)
        var written = Written(
            commit: commit, sequence: sequence, globalIDs: globalIDs, definitions: definitions,
            recordOffsets: [])
        written.recordOffsets.reserveCapacity(commit.batch.count)
        var frames = CommitFrames(sequence: sequence, output: &output)
        try append(
            commit.batch, globalIDs: globalIDs, definitions: definitions, to: &frames,
            output: &output, putOffsets: &written.recordOffsets)
        frames.finish(&output)
        try output.flushIfFull()
        return written
    }

    /// Appends `definitions`, then every operation of `batch` with its keyspace renumbered by
    /// `globalIDs`; appends each put record's file offset to `putOffsets`.
    func append(
        _ batch: WriteBatch, globalIDs: [Int], definitions: [(name: String, id: Int)],
        to frames: inout CommitFrames, output: inout SegmentOutput, putOffsets: inout [UInt32]
    ) throws {
        for definition in definitions {
            try frames.appendDefinition(keyspace: definition.id, name: definition.name, to: &output)
        }
        try batch.records.withUnsafeBytes { records in
            var offset = 0
            while offset < records.count {
                // The batch's own encoding, with local keyspace numbers: trusted.
                let record = StoredRecord(at: records.baseAddress! + offset)
                offset += record.encodedSize
                let isPut = record.op == RecordOp.put
                let recordOffset = try frames.append(
                    op: record.op, keyspace: globalIDs[record.keyspace], key: record.key,
                    value: isPut ? record.value : nil, to: &output)
                if isPut { putOffsets.append(UInt32(truncatingIfNeeded: recordOffset)) }
            }
        }
    }
}
