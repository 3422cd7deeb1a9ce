/// Making written commits visible: applying them to the index readers use.
extension LogWriter {
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
