/// Making written commits visible: applying them to the index readers use.
extension LogWriter {
    /// Puts published between two releases of the segment's mapped pages.
    static let releaseInterval = 1 << 12

    /// Applies a written batch to the index (its definitions, puts and deletes, in order).
    func publish(_ written: Written, into state: inout IndexState) {
        for definition in written.definitions {
            _ = state.define(definition.name, id: definition.id)
        }
        for (local, puts) in written.commit.batch.putsPerKeyspace.enumerated() where puts > 1024 {
            let id = written.globalIDs[local]
            state.directories[id].reserve(state.directories[id].count + puts)
        }
        let handle = active.handle
        var values = 0
        written.commit.batch.records.withUnsafeBytes { records in
            var offset = 0
            while offset < records.count {
                let record = StoredRecord(at: records.baseAddress! + offset)
                offset += record.encodedSize
                let keyspace = written.globalIDs[record.keyspace]
                if record.op == RecordOp.put {
                    let ref = RecordRef(segment: handle, offset: written.recordOffsets[values])
                    values += 1
                    // Comparing keys on a hash collision reads the log, which maps a stretch of
                    // the segment (a whole large folio) into this process: a large batch hands
                    // the pages of what it wrote back as it goes, so a bulk load does not hold
                    // its segment resident (the pages stay in the page cache). Only those: the
                    // pages before the batch hold records the app read, and the batch's
                    // overwrites compare keys there, so dropping them made every 4,096 puts
                    // fault them all back (14,000 faults saving 100,000 fetched objects).
                    if values & (Self.releaseInterval - 1) == 0 {
                        active.releasePages(
                            from: Int(written.recordOffsets[0]), to: Int(ref.offset))
                    }
                    state.applyPut(
                        keyspace: keyspace, hash: KeyDirectory.hash(record.key), ref: ref,
                        keyLength: record.key.count, valueLength: record.value.count,
                        encodedSize: RecordFormat.encodedSize(
                            keyspace: keyspace, keyLength: record.key.count,
                            valueLength: record.value.count))
                } else {
                    state.applyDelete(keyspace: keyspace, key: record.key)
                }
            }
        }
    }
}
