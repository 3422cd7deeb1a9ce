/// Walking the table: every live record, in table or log order.
///
/// A walk follows every entry, so it checks each record as a point read does
/// (``KeyDirectory/record(_:_:)``): an entry of a damaged or forged key directory file that
/// points at no put record inside its segment throws ``KeyDirectory/DamagedEntry``, never a
/// read outside the mapping. Callers turn that into ``LogStoreError/damagedKeyDirectory(path:reason:)``.
extension KeyDirectory {
    /// Calls `body` with every live record, in table order.
    /// - Throws: ``DamagedEntry`` for an entry that points at no put record inside its segment,
    ///   or at a record whose key has another hash.
    func forEach(_ bases: SegmentBases, _ body: (RecordRef, StoredRecord) -> Void)
        throws(DamagedEntry)
    {
        for slot in 0..<table.count where !table[slot].isEmpty {
            let entry = table[slot]
            let record = try Self.record(entry, bases)
            if Self.hash(record.key) != entry.hash { try Self.checkCollision(entry, record) }
            body(entry.ref, record)
        }
    }

    /// Calls `body` with every live record in log order (segment handle, then offset): a scan
    /// then reads the mapped log front to back instead of jumping to a cache miss per record.
    /// With `segments` (the walk's, by handle), the pages of the segments and of a mapped table
    /// that the walk has passed are dropped from memory as it goes (``WalkPageRelease``).
    /// - Throws: ``DamagedEntry`` for an entry that points at no put record inside its segment
    ///   (the records before it have been passed to `body`); what `body` throws.
    /// - Complexity: O(n) time (a radix sort of the references) and 16 bytes a key of scratch.
    func forEachInLogOrder(
        _ bases: SegmentBases, releasingPagesOf segments: [Segment?]? = nil,
        _ body: (RecordRef, StoredRecord) throws -> Void
    ) throws {
        var refs = [UInt64]()
        refs.reserveCapacity(count)
        let releasesTable = segments != nil && table.isUnwrittenMapping
        let slotsPerStep = WalkPageRelease.step / MemoryLayout<Entry>.stride
        var start = 0
        while start < table.count {
            let end = min(start + slotsPerStep, table.count)
            for slot in start..<end where !table[slot].isEmpty {
                refs.append(UInt64(table[slot].ref.segment) << 32 | UInt64(table[slot].ref.offset))
            }
            if releasesTable { table.releasePages(below: end) }
            start = end
        }
        RadixSort.sort(&refs)
        var release = segments.map(WalkPageRelease.init)
        defer { release?.finish() }
        for packed in refs {
            let ref = RecordRef(
                segment: UInt32(truncatingIfNeeded: packed >> 32),
                offset: UInt32(truncatingIfNeeded: packed))
            release?.reading(ref)
            try body(ref, Self.record(at: ref, bases))
        }
    }

    /// References to the live records that lie in segments whose handle is marked in `segments`,
    /// in log order.
    func liveRecords(inSegments segments: [Bool]) -> [RecordRef] {
        var refs = [UInt64]()
        for slot in 0..<table.count where !table[slot].isEmpty {
            let segment = Int(table[slot].ref.segment)
            guard segment < segments.count && segments[segment] else { continue }
            refs.append(UInt64(table[slot].ref.segment) << 32 | UInt64(table[slot].ref.offset))
        }
        RadixSort.sort(&refs)
        return refs.map {
            RecordRef(
                segment: UInt32(truncatingIfNeeded: $0 >> 32),
                offset: UInt32(truncatingIfNeeded: $0))
        }
    }

}
