import LogStore

/// Makes the index entries of one entity's records: for each of the entity's indexes, its
/// fields' encodings and the primary key (``IndexKey``). Records of the current schema version
/// are read in place; older ones are decoded first.
///
/// Immutable and `Sendable`; its scan layout is read only.
final class IndexEntryMaker: @unchecked Sendable {  // raw buffers below are written once in init
    let definitions: [IndexDefinition]
    private let codec: RecordCodec
    /// Fields located in a record: every one up to the last an index reads.
    private let locateCount: Int
    private let layout: RecordCodec.ScanLayout
    private let storedCount: Int

    init(definitions: [IndexDefinition], binding: EntityBinding) {
        self.definitions = definitions
        codec = binding.codec
        locateCount = (definitions.flatMap(\.fields).max() ?? -1) + 1
        layout = binding.codec.makeScanLayout()
        storedCount = binding.stored.attributes.count
    }

    deinit { layout.deallocate() }

    /// Appends to `out[i]` the entry of index i for the record `pk`.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a record that does not
    ///   decode.
    func appendEntries(
        record: UnsafeRawBufferPointer, pk: UInt64, to out: inout [IndexEntries]
    ) throws {
        // The fields' offsets, then the count of each list before this record's entries.
        let done = withUnsafeTemporaryAllocation(
            of: Int.self, capacity: max(locateCount + out.count, 1)
        ) {
            scratch -> Bool in
            let offsets = UnsafeMutableBufferPointer(rebasing: scratch[..<locateCount])
            guard RecordCodec.locate(record, offsets, count: locateCount, layout: layout) else {
                return false
            }
            let marks = UnsafeMutableBufferPointer(rebasing: scratch[locateCount...])
            for i in out.indices { marks[i] = out[i].count }
            for i in definitions.indices {
                if definitions[i].isLinks {
                    guard appendLinks(record, at: offsets[definitions[i].fields[0]], pk, &out[i])
                    else {
                        for j in 0...i { out[j].truncate(to: marks[j]) }
                        return false
                    }
                    continue
                }
                let mark = out[i].bytes.count
                for f in definitions[i].fields.indices {
                    guard
                        IndexKey.appendField(
                            record, at: offsets[definitions[i].fields[f]],
                            shape: definitions[i].shapes[f], to: &out[i].bytes)
                    else {
                        // A value `locate` stepped over but that does not decode: let the full
                        // decode below report it.
                        out[i].bytes.removeSubrange(mark...)
                        for j in 0..<i { out[j].truncate(to: marks[j]) }
                        return false
                    }
                }
                IndexKey.appendPrimaryKey(pk, to: &out[i].bytes)
                out[i].close()
            }
            return true
        }
        if done { return }
        var values = [AttributeValue](repeating: .null, count: storedCount)
        _ = try codec.decode(record, key: String(pk)) { values[$0] = $1 }
        appendEntries(pk: pk, to: &out) { values[$0] }
    }

    /// Appends to `out[i]` the entry of index i for an object `pk` whose stored field j has
    /// the value `value(j)`.
    func appendEntries(
        pk: UInt64, to out: inout [IndexEntries], value: (Int) -> AttributeValue
    ) {
        for (i, definition) in definitions.enumerated() {
            if definition.isLinks {
                for key in LinkList.keys(value(definition.fields[0])) ?? [] {
                    IndexKey.append(.integer(Int64(bitPattern: key)), to: &out[i].bytes)
                    IndexKey.appendPrimaryKey(pk, to: &out[i].bytes)
                    out[i].close()
                }
                continue
            }
            for field in definition.fields { IndexKey.append(value(field), to: &out[i].bytes) }
            IndexKey.appendPrimaryKey(pk, to: &out[i].bytes)
            out[i].close()
        }
    }

    /// Appends an entry per link of the link list at `offset` of `record` (none for null).
    /// - Returns: `false` for a value that is not a link list.
    private func appendLinks(
        _ record: UnsafeRawBufferPointer, at offset: Int, _ pk: UInt64, _ out: inout IndexEntries
    ) -> Bool {
        guard offset >= 0 else { return true }
        var r = ByteReader(record)
        r.offset = offset
        guard let payload = try? r.lengthPrefixed(), let keys = LinkList.keys(payload) else {
            return false
        }
        for key in keys {
            IndexKey.append(.integer(Int64(bitPattern: key)), to: &out.bytes)
            IndexKey.appendPrimaryKey(pk, to: &out.bytes)
            out.close()
        }
        return true
    }

    /// One empty list per index.
    var emptyLists: [IndexEntries] { Array(repeating: IndexEntries(), count: definitions.count) }
}
