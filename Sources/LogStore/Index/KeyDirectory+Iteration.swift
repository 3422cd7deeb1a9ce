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
    ///
    /// The references are sorted a window of the log at a time, each window holding at most
    /// about `window` live records (``logOrderWindow``): a table of more keys is read once to
    /// count its records by region of the log, then once per window.
    /// With `reading`, only the records it accepts are read and passed to `body`.
    /// - Throws: ``DamagedEntry`` for an entry that points at no put record inside its segment
    ///   (the records before it have been passed to `body`); what `body` throws.
    /// - Complexity: O(n × (1 + n / `window`)) time (a sort of each window's references,
    ///   one pass over the table per window); at most 16 × `window` bytes of scratch, whatever
    ///   the number of keys.
    func forEachInLogOrder(
        _ bases: SegmentBases, releasingPagesOf segments: [Segment?]? = nil,
        window: Int = logOrderWindow, reading: ((RecordRef) -> Bool)? = nil,
        _ body: (RecordRef, StoredRecord) throws -> Void
    ) throws {
        let releasesTable = segments != nil && table.isUnwrittenMapping
        var release = segments.map(WalkPageRelease.init)
        defer { release?.finish() }
        let ranges =
            count <= window
            ? [UInt64.min..<UInt64.max]
            : LogWindows([self], bases, releasingTables: releasesTable, window: window).ranges
        var refs = [UInt64]()
        refs.reserveCapacity(count <= window ? count : window + LogWindows.bucketSlack)
        for range in ranges {
            LogWindows.collect(range, of: [self], releasingTables: releasesTable, into: &refs)
            for packed in refs {
                let ref = RecordRef(
                    segment: UInt32(truncatingIfNeeded: packed >> 32),
                    offset: UInt32(truncatingIfNeeded: packed))
                if let reading, !reading(ref) { continue }
                release?.reading(ref)
                try body(ref, Self.record(at: ref, bases))
            }
        }
    }

    /// Live records a log-order walk sorts at once: 16 MiB of scratch (the references and the
    /// sort's copy), one window for a store of up to a million keys.
    static let logOrderWindow = 1 << 20

    /// Calls `body` with every live entry's reference packed as segment << 32 | offset, in
    /// table order; drops the table's pages behind the read if `releasingTable`.
    @inline(__always)
    func forEachPackedRef(releasingTable: Bool, _ body: (UInt64) -> Void) {
        let slotsPerStep = WalkPageRelease.step / MemoryLayout<Entry>.stride
        var start = 0
        while start < table.count {
            let end = Swift.min(start + slotsPerStep, table.count)
            for slot in start..<end where !table[slot].isEmpty {
                let ref = table[slot].ref
                body(UInt64(ref.segment) << 32 | UInt64(ref.offset))
            }
            if releasingTable { table.releasePages(below: end) }
            start = end
        }
    }

    /// The windows of a log-order walk over this table with at most about `window` live records
    /// each (``LogWindows``; one window when every live record fits). The same table gives the
    /// same windows: compaction finds them once for its two walks.
    func logWindows(_ bases: SegmentBases, window: Int = logOrderWindow) -> [Range<UInt64>] {
        count <= window
            ? [UInt64.min..<UInt64.max]
            : LogWindows(
                [self], bases, releasingTables: table.isUnwrittenMapping, window: window
            ).ranges
    }

    /// Calls `body` with the reference of every live record that lies in a segment whose handle
    /// is marked in `segments`, in log order, sorting one of `windows` (``logWindows(_:window:)``)
    /// at a time.
    /// - Complexity: O(n × `windows.count`); 16 bytes of scratch per record of a window.
    func forEachLiveRecord(
        inSegments segments: [Bool], windows: [Range<UInt64>], _ body: (RecordRef) throws -> Void
    ) rethrows {
        // A table mapped from keys.dir that nothing wrote is read front to back and dropped
        // behind: its pages come back from the page cache for the next window.
        let releasesTable = table.isUnwrittenMapping
        var refs = [UInt64]()
        for range in windows {
            refs.removeAll(keepingCapacity: true)
            forEachPackedRef(releasingTable: releasesTable) { packed in
                let segment = Int(packed >> 32)
                if range.contains(packed) && segment < segments.count && segments[segment] {
                    refs.append(packed)
                }
            }
            RadixSort.sortDense(&refs)
            for packed in refs {
                try body(
                    RecordRef(
                        segment: UInt32(truncatingIfNeeded: packed >> 32),
                        offset: UInt32(truncatingIfNeeded: packed)))
            }
        }
    }

}

/// The windows of a log-order walk over more keys than one window holds: ranges of packed
/// references (segment << 32 | offset) in log order, each holding at most about `window` live
/// records of the directories walked. Found by one pass over their tables that counts the live
/// records in each of ``buckets`` equal regions of the log (the segments' readable bytes laid
/// end to end).
struct LogWindows {
    static let buckets = 1 << 14
    /// How far past `window` a window may go: it ends at a region's end.
    static let bucketSlack = 1 << 12

    /// The windows, in log order; together they cover every packed reference once.
    var ranges: [Range<UInt64>] = []

    /// The windows of `directories` (whose tables' pages are dropped behind the counting pass
    /// if `releasingTables` and a table is an unwritten mapping).
    init(
        _ directories: [KeyDirectory], _ bases: SegmentBases, releasingTables: Bool, window: Int
    ) {
        // Where each segment starts in the log laid end to end.
        var starts = [Int](repeating: 0, count: bases.count + 1)
        for handle in 0..<bases.count {
            starts[handle + 1] = starts[handle] + bases.spans[handle].size
        }
        let total = Swift.max(starts[bases.count], 1)
        let buckets = Self.buckets
        let width = Swift.max(1, (total + buckets - 1) / buckets)
        func bucket(_ packed: UInt64) -> Int {
            let handle = Swift.min(Int(packed >> 32), bases.count)
            return Swift.min(buckets - 1, (starts[handle] + Int(packed & 0xFFFF_FFFF)) / width)
        }
        var counts = [Int](repeating: 0, count: buckets)
        for directory in directories {
            directory.forEachPackedRef(
                releasingTable: releasingTables && directory.table.isUnwrittenMapping
            ) { counts[bucket($0)] += 1 }
        }
        // A window ends where the region after its last one starts, as a packed reference: in
        // the last segment that starts at or before that place in the log.
        func packedStart(ofBucket b: Int) -> UInt64 {
            let position = b * width
            var handle = 0
            while handle + 1 < bases.count && starts[handle + 1] <= position { handle += 1 }
            return UInt64(handle) << 32 | UInt64(position - starts[handle])
        }
        var lower = UInt64.min
        var held = 0
        for b in 0..<buckets {
            if held > 0 && held + counts[b] > window {
                let upper = packedStart(ofBucket: b)
                ranges.append(lower..<upper)
                lower = upper
                held = 0
            }
            held += counts[b]
        }
        ranges.append(lower..<UInt64.max)
    }

    /// The live references of `directories` in `range`, sorted (into `refs`, whose capacity is
    /// kept).
    static func collect(
        _ range: Range<UInt64>, of directories: [KeyDirectory], releasingTables: Bool,
        into refs: inout [UInt64]
    ) {
        refs.removeAll(keepingCapacity: true)
        for directory in directories {
            directory.forEachPackedRef(
                releasingTable: releasingTables && directory.table.isUnwrittenMapping
            ) { packed in
                if range.contains(packed) { refs.append(packed) }
            }
        }
        RadixSort.sortDense(&refs)
    }
}
