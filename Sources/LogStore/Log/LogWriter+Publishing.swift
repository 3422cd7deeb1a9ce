/// Making written commits visible: applying them to the index readers use.
extension LogWriter {
    /// Puts published between two releases of the segment's mapped pages.
    static let releaseInterval = 1 << 12

    /// A cursor over a batch's encoded records that hands each one's keyspace (the store's
    /// number) and key hash to a prefetch.
    struct Lookahead {
        let records: UnsafeRawBufferPointer
        let globalIDs: [Int]
        var offset = 0

        init(_ records: UnsafeRawBufferPointer, _ globalIDs: [Int]) {
            self.records = records
            self.globalIDs = globalIDs
        }

        @inline(__always)
        mutating func next(_ prefetch: (_ keyspace: Int, _ hash: UInt32) -> Void) {
            guard offset < records.count else { return }
            let record = StoredRecord(at: records.baseAddress! + offset)
            offset += record.encodedSize
            prefetch(globalIDs[record.keyspace], KeyDirectory.hash(record.key))
        }
    }

    /// Applies a written batch to the index (its definitions, puts and deletes, in order).
    func publish(_ written: Written, into state: inout StoreState) {
        for definition in written.definitions {
            _ = state.define(definition.name, id: definition.id)
        }
        for (local, puts) in written.commit.batch.putsPerKeyspace.enumerated() where puts > 1024 {
            let id = written.globalIDs[local]
            state.directories[id].reserve(forPuts: puts)
        }
        let handle = active.handle
        var values = 0
        written.commit.batch.records.withUnsafeBytes { records in
            // Each record's table slot, and the record it names, are cache misses of their own:
            // two cursors run ahead of the one applying records, the first prefetching slots,
            // the second the records the slots name, so the misses of many keys overlap.
            var slots = Lookahead(records, written.globalIDs)
            var olds = Lookahead(records, written.globalIDs)
            for _ in 0..<KeyDirectory.slotLookahead {
                slots.next { KeyDirectory.prefetchSlot(state.directories[$0].entries, $1) }
            }
            for _ in 0..<KeyDirectory.recordLookahead {
                olds.next {
                    KeyDirectory.prefetchRecord(state.directories[$0].entries, $1, state.bases)
                }
            }
            var offset = 0
            while offset < records.count {
                slots.next { KeyDirectory.prefetchSlot(state.directories[$0].entries, $1) }
                olds.next {
                    KeyDirectory.prefetchRecord(state.directories[$0].entries, $1, state.bases)
                }
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
