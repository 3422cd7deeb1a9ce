/// The checks compaction makes of entries it follows, which may come from a key directory file
/// (open checks only that such an entry lies inside its segment): a damaged or forged entry must
/// give ``LogStoreError/damagedKeyDirectory(path:reason:)``, never a read outside a mapping,
/// a record copied into another keyspace, or an entry left pointing into an unmapped input.
extension KeyDirectory {
    /// The damage of an entry of keyspace `keyspace`'s directory that points at `record`, a put
    /// of another keyspace.
    @inline(never)
    static func otherKeyspace(_ ref: RecordRef, _ record: StoredRecord) -> DamagedEntry {
        DamagedEntry(
            ref: ref,
            reason: "it points at segment \(ref.segment) offset \(ref.offset), "
                + "a record of keyspace \(record.keyspace)")
    }

    /// The first entry that points into a segment marked in `inputs`, if any.
    /// - Complexity: one pass over the table (12 bytes a slot, read in order).
    func firstReference(into inputs: [Bool]) -> RecordRef? {
        table.withBuffer { table in
            for slot in 0..<table.count where !table[slot].isEmpty {
                let segment = Int(table[slot].ref.segment)
                if segment < inputs.count && inputs[segment] { return table[slot].ref }
            }
            return nil
        }
    }
}

extension StoreState {
    /// An entry of a key directory, or of the key order of an ordered keyspace, that still
    /// points into one of `inputs` once compaction has moved every live record out of them
    /// (step 5, under the lock that then unmaps them): only an entry that was not its record
    /// key's can be left, so its keyspace and the damage to report.
    /// - Complexity: one pass over every table and every key order.
    func referenceInto(_ inputs: [Segment]) -> (keyspace: Int, damage: KeyDirectory.DamagedEntry)? {
        var handles = [Bool](repeating: false, count: segments.count)
        for input in inputs where Int(input.handle) < handles.count {
            handles[Int(input.handle)] = true
        }
        for keyspace in directories.indices {
            let ref =
                directories[keyspace].firstReference(into: handles)
                ?? (keyspace < ordered.count
                    ? ordered[keyspace]?.firstReference(into: handles) : nil)
            guard let ref else { continue }
            return (
                keyspace,
                KeyDirectory.DamagedEntry(
                    ref: ref,
                    reason: "compaction moved every live record out of segment \(ref.segment), "
                        + "but an entry still points at offset \(ref.offset) of it "
                        + "(not its record's key)")
            )
        }
        return nil
    }
}
