/// Walking the table: every live record, in table or log order.
extension KeyDirectory {
    /// Calls `body` with every live record, in table order.
    func forEach(_ bases: SegmentBases, _ body: (RecordRef, StoredRecord) throws -> Void) rethrows {
        for slot in 0..<table.count where !table[slot].isEmpty {
            try body(table[slot].ref, StoredRecord(bases, table[slot].ref))
        }
    }

    /// Calls `body` with every live record in log order (segment handle, then offset): a scan
    /// then reads the mapped log front to back instead of jumping to a cache miss per record.
    /// With `segments` (the walk's, by handle), the pages of the segments and of a mapped table
    /// that the walk has passed are dropped from memory as it goes (``WalkPageRelease``).
    /// - Complexity: O(n) time (a radix sort of the references) and 16 bytes a key of scratch.
    func forEachInLogOrder(
        _ bases: SegmentBases, releasingPagesOf segments: [Segment?]? = nil,
        _ body: (RecordRef, StoredRecord) throws -> Void
    ) rethrows {
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
            try body(ref, StoredRecord(bases, ref))
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

    /// Number of entries whose record is in `segment`.
    func count(inSegment segment: UInt32) -> Int {
        (0..<table.count).reduce(0) { $0 + (table[$1].ref.segment == segment ? 1 : 0) }
    }
}
