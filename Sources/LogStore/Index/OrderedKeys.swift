#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The key order of one ordered keyspace (``LogStoreOptions/orderedKeyspaces``): references to
/// its live put records, sorted by key (lexicographic bytes, a shorter key before every longer
/// key it is a prefix of). An addition to the keyspace's ``KeyDirectory``, which stays the
/// point-read path; only iteration in key order reads this.
///
/// Two sorted runs of 8-byte ``RecordRef``s: `main`, large and rebuilt only by ``fold(_:)``, and
/// `delta`, small, which every put and delete since the last fold goes into. An entry of `delta`
/// shadows the entry of `main` with the same key; a delta entry marked as a tombstone (the top
/// bit of its segment handle) removes it. Iteration merges the two. Keys are never copied:
/// comparing two entries reads both keys in the mapped log.
///
/// Invariants: each run is sorted by key with no key twice; `main` holds no tombstones; every
/// key of `main` is live or shadowed by a delta entry; every put reference (in either run) not
/// shadowed is the key's current record; every reference points into a mapped segment
/// (compaction re-points those into the segments it removes, ``repoint(from:limit:inputs:directory:_:)``).
///
/// Memory: 8 bytes a key in `main`, plus at most `deltaLimit` entries of 8 bytes.
/// Both runs are copy-on-write arrays, so a snapshot for iteration is O(1) and a writer copies
/// at most the delta (or, while compaction re-points, the main run once) while one lives.
///
/// Not thread-safe: the store guards it with its index lock.
struct OrderedKeys {
    /// The large sorted run.
    private(set) var main: [RecordRef] = [] {
        didSet { fences = [] }
    }
    /// The first 16 bytes of every ``fenceStride``-th key of `main` (``Fence``), which a search
    /// of `main` narrows to a few entries with before it reads keys in the log; empty until
    /// ``buildFences(_:)`` after `main` changed. Never stale: changing `main` empties it.
    private(set) var fences: [Fence] = []
    /// The small sorted run of changes since the last fold.
    private(set) var delta: [RecordRef] = []
    /// Bumped by every fold, which moves entries of `main`: compaction's chunked re-pointing
    /// starts over when it changes.
    private(set) var folds = 0
    /// Puts and deletes since the last ordered iteration (see ``isWorthKeeping``).
    var changesSinceRead = 0

    /// The delta run is folded into `main` when it passes this many entries. Each put costs a
    /// binary search of the delta and a move of half of it; each fold a pass over `main`.
    static let defaultDeltaLimit = 2048
    /// This keyspace's limit (tests make it small, so folds happen often).
    private(set) var deltaLimit = OrderedKeys.defaultDeltaLimit

    /// Marks a delta entry as a tombstone (segment handles stay below 2^28).
    static let tombstone: UInt32 = 1 << 31

    init(deltaLimit: Int = OrderedKeys.defaultDeltaLimit) {
        self.deltaLimit = max(1, deltaLimit)
    }

    /// Live keys' references, sorted (the key order of a keyspace rebuilt at open), with their
    /// fences if known.
    init(sorted main: [RecordRef], fences: [Fence] = [], deltaLimit: Int) {
        self.main = main
        self.fences = fences
        self.deltaLimit = max(1, deltaLimit)
    }

    /// Sets ``fences`` to `built`, which must sample the current `main` (``buildFences(_:)``).
    mutating func setFences(_ built: [Fence]) { fences = built }

    /// Bytes the two runs and the fences take.
    var memoryBytes: Int {
        (main.capacity + delta.capacity) * MemoryLayout<RecordRef>.stride
            + fences.capacity * MemoryLayout<Fence>.stride
    }

    // MARK: Keys

    /// The key of the record `ref` points at (a tombstone's too).
    @inline(__always)
    static func key(_ ref: RecordRef, _ bases: SegmentBases) -> UnsafeRawBufferPointer {
        StoredRecord(
            bases, RecordRef(segment: ref.segment & ~tombstone, offset: ref.offset)
        ).key
    }

    /// Lexicographic comparison of bytes: negative, zero or positive.
    @inline(__always)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, common)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    /// The first index of `run` in `range` whose key is not below `key` (`strictly`: above it).
    static func lowerBound(
        _ run: UnsafeBufferPointer<RecordRef>, _ range: Range<Int>, _ key: UnsafeRawBufferPointer,
        strictly: Bool, _ bases: SegmentBases
    ) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) >> 1
            let c = compare(Self.key(run[middle], bases), key)
            if c < 0 || (strictly && c == 0) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Changes

    /// Whether keeping this order up to date is still cheaper than building it again at the next
    /// ordered iteration: not once the changes since the last one pass a sixteenth of the keys
    /// (and 4096). Keeping costs a few microseconds a change (a fold reads keys in the log at
    /// random); a build about 0.3 µs a key. So a bulk load into an ordered keyspace pays for the
    /// order once, when it is next read.
    var isWorthKeeping: Bool {
        changesSinceRead <= max(4096, main.count >> 4)
    }

    /// Records that the key of put record `ref` now lives there (a new key or an overwrite).
    mutating func put(_ ref: RecordRef, _ bases: SegmentBases) {
        changesSinceRead &+= 1
        insertIntoDelta(ref, bases)
    }

    /// Records that the key of record `old` (its current record until now) was deleted.
    mutating func remove(_ old: RecordRef, _ bases: SegmentBases) {
        changesSinceRead &+= 1
        insertIntoDelta(
            RecordRef(segment: old.segment | Self.tombstone, offset: old.offset), bases)
    }

    private mutating func insertIntoDelta(_ ref: RecordRef, _ bases: SegmentBases) {
        let key = Self.key(ref, bases)
        let position = delta.withUnsafeBufferPointer {
            Self.lowerBound($0, 0..<$0.count, key, strictly: false, bases)
        }
        if position < delta.count && Self.compare(Self.key(delta[position], bases), key) == 0 {
            delta[position] = ref
        } else {
            delta.insert(ref, at: position)
            if delta.count > deltaLimit { fold(bases) }
        }
    }

    /// Merges the delta run into `main`, dropping what tombstones remove.
    /// - Complexity: O(m log n) key comparisons for m delta entries, and a copy of `main`.
    mutating func fold(_ bases: SegmentBases) {
        guard !delta.isEmpty else { return }
        var merged: [RecordRef] = []
        merged.reserveCapacity(main.count + delta.count)
        main.withUnsafeBufferPointer { main in
            var cursor = 0
            for entry in delta {
                let key = Self.key(entry, bases)
                let position = Self.lowerBound(
                    main, cursor..<main.count, key, strictly: false, bases)
                merged.append(contentsOf: main[cursor..<position])
                cursor = position
                if cursor < main.count && Self.compare(Self.key(main[cursor], bases), key) == 0 {
                    cursor += 1  // shadowed
                }
                if entry.segment & Self.tombstone == 0 { merged.append(entry) }
            }
            merged.append(contentsOf: main[cursor..<main.count])
        }
        main = merged
        delta = []
        folds &+= 1
    }

    // MARK: Compaction

    /// Points the entries of `main` from index `start` (at most `limit` of them) that refer
    /// into a segment marked in `inputs` at their key's current record in `directory`; returns
    /// the index to go on from. An entry whose key `directory` no longer holds is left: a
    /// tombstone in the delta removes it at the next fold.
    mutating func repoint(
        from start: Int, limit: Int, inputs: [Bool], directory: KeyDirectory,
        _ bases: SegmentBases
    ) -> Int {
        let end = min(main.count, start + limit)
        var i = start
        while i < end {
            let segment = Int(main[i].segment)
            if segment < inputs.count && inputs[segment],
                let (current, _) = try? directory.find(Self.key(main[i], bases), bases)
            {
                main[i] = current
            }
            i += 1
        }
        return end
    }

    /// The first entry (tombstones included) that refers into a segment marked in `inputs`.
    func firstReference(into inputs: [Bool]) -> RecordRef? {
        for run in [main, delta] {
            for entry in run {
                let segment = Int(entry.segment & ~Self.tombstone)
                if segment < inputs.count && inputs[segment] { return entry.withoutTombstone }
            }
        }
        return nil
    }

    // MARK: Iteration

    /// Calls `body` with the records of the keys in `range`, in key order (`reverse`: the
    /// opposite), until it returns `false`.
    func forEach(
        in range: KeyRange, reverse: Bool, _ bases: SegmentBases,
        _ body: (StoredRecord) throws -> Bool
    ) rethrows {
        try main.withUnsafeBufferPointer { main in
            try delta.withUnsafeBufferPointer { delta in
                try fences.withUnsafeBufferPointer { fences in
                    if reverse {
                        try Self.backward(main, delta, fences, range, bases, body)
                    } else {
                        try Self.forward(main, delta, fences, range, bases, body)
                    }
                }
            }
        }
    }

    /// How many entries of `main` ahead of the one being read a forward iteration starts
    /// loading: each lies at a random place of the log, so their cache misses overlap rather than
    /// come one after another.
    static let prefetchDistance = 6

    /// Starts loading the first line of the record of the entry at `index` of `run`, if any.
    @inline(__always)
    private static func prefetch(
        _ run: UnsafeBufferPointer<RecordRef>, _ index: Int, _ bases: SegmentBases
    ) {
        guard index < run.count else { return }
        let ref = run[index]
        Prefetch.read(bases.span(Int(ref.segment)).base + Int(ref.offset))
    }

    /// The record of the entry at `index` of `run`, or `nil` past its end.
    @inline(__always)
    private static func record(
        _ run: UnsafeBufferPointer<RecordRef>, _ index: Int, _ bases: SegmentBases
    ) -> StoredRecord? {
        guard index >= 0 && index < run.count else { return nil }
        return StoredRecord(bases, run[index].withoutTombstone)
    }

    /// Merges the two runs upward from `i` and `j`; each record is decoded once (the side that
    /// did not advance keeps its decoded record).
    private static func forward(
        _ main: UnsafeBufferPointer<RecordRef>, _ delta: UnsafeBufferPointer<RecordRef>,
        _ fences: UnsafeBufferPointer<Fence>, _ range: KeyRange, _ bases: SegmentBases,
        _ body: (StoredRecord) throws -> Bool
    ) rethrows {
        var i = 0
        var j = 0
        if let lower = range.lower {
            lower.key.withUnsafeBytes { key in
                i = lowerBound(main, fences, key, strictly: !lower.inclusive, bases)
                j = lowerBound(delta, 0..<delta.count, key, strictly: !lower.inclusive, bases)
            }
        }
        for ahead in 1...prefetchDistance { prefetch(main, i + ahead, bases) }
        var m = record(main, i, bases)
        var d = record(delta, j, bases)
        try range.withUpperKey { upper, inclusive in
            while true {
                let next: StoredRecord
                var removed = false
                if let mr = m, d == nil || compare(mr.key, d!.key) < 0 {
                    next = mr
                    i += 1
                    prefetch(main, i + prefetchDistance, bases)
                    m = record(main, i, bases)
                } else if let dr = d {
                    if let mr = m, compare(mr.key, dr.key) == 0 {
                        i += 1
                        m = record(main, i, bases)
                    }
                    next = dr
                    removed = delta[j].segment & tombstone != 0
                    j += 1
                    d = record(delta, j, bases)
                } else {
                    return
                }
                if let upper {
                    let c = compare(next.key, upper)
                    if c > 0 || (c == 0 && !inclusive) { return }
                }
                if removed { continue }
                guard try body(next) else { return }
            }
        }
    }

    /// Merges the two runs downward from just below `i` and `j`.
    private static func backward(
        _ main: UnsafeBufferPointer<RecordRef>, _ delta: UnsafeBufferPointer<RecordRef>,
        _ fences: UnsafeBufferPointer<Fence>, _ range: KeyRange, _ bases: SegmentBases,
        _ body: (StoredRecord) throws -> Bool
    ) rethrows {
        // Indexes of the next entries to visit (-1: none left).
        var i = main.count - 1
        var j = delta.count - 1
        range.withUpperKey { upper, inclusive in
            if let upper {
                i = lowerBound(main, fences, upper, strictly: inclusive, bases) - 1
                j = lowerBound(delta, 0..<delta.count, upper, strictly: inclusive, bases) - 1
            }
        }
        var m = record(main, i, bases)
        var d = record(delta, j, bases)
        let lower = range.lower
        try (lower?.key ?? []).withUnsafeBytes { lowerKey in
            while true {
                let next: StoredRecord
                var removed = false
                if let mr = m, d == nil || compare(mr.key, d!.key) > 0 {
                    next = mr
                    i -= 1
                    m = record(main, i, bases)
                } else if let dr = d {
                    if let mr = m, compare(mr.key, dr.key) == 0 {
                        i -= 1
                        m = record(main, i, bases)
                    }
                    next = dr
                    removed = delta[j].segment & tombstone != 0
                    j -= 1
                    d = record(delta, j, bases)
                } else {
                    return
                }
                if let lower {
                    let c = compare(next.key, lowerKey)
                    if c < 0 || (c == 0 && !lower.inclusive) { return }
                }
                if removed { continue }
                guard try body(next) else { return }
            }
        }
    }

    // MARK: Building

    /// The key order of `directory`'s live keys, built without comparing most keys: the
    /// references are put in log order (so keys are read front to back), then radix-sorted by
    /// their first 16 bytes (big-endian, zero-padded); only runs that agree on those bytes are
    /// sorted by comparing whole keys.
    /// - Throws: ``KeyDirectory/DamagedEntry`` if an entry of `directory` points at no put record
    ///   inside its segment (only a damaged key directory file maps one): every reference the
    ///   order keeps has been read through the checked decoder.
    /// - Complexity: O(n) plus O(k log k) comparisons per run of k keys sharing 16 bytes.
    static func build(
        from directory: KeyDirectory, deltaLimit: Int, _ bases: SegmentBases
    ) throws -> OrderedKeys {
        struct Item {
            var high: UInt64
            var low: UInt64
            var ref: RecordRef
        }
        var items: [Item] = []
        items.reserveCapacity(directory.count)
        try directory.forEachInLogOrder(bases) { ref, record in
            var prefix: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &prefix) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: record.key.prefix(16)))
            }
            items.append(
                Item(high: UInt64(bigEndian: prefix.0), low: UInt64(bigEndian: prefix.1), ref: ref))
        }
        RadixSort.sort(&items, by: { $0.low })
        RadixSort.sort(&items, by: { $0.high })
        var start = 0
        while start < items.count {
            var end = start + 1
            while end < items.count && items[end].high == items[start].high
                && items[end].low == items[start].low
            {
                end += 1
            }
            if end - start > 1 {
                items[start..<end].sort { compare(key($0.ref, bases), key($1.ref, bases)) < 0 }
            }
            start = end
        }
        var fences: [Fence] = []
        fences.reserveCapacity(items.count / fenceStride + 1)
        for i in stride(from: 0, to: items.count, by: fenceStride) {
            fences.append(Fence(high: items[i].high, low: items[i].low))
        }
        return OrderedKeys(sorted: items.map(\.ref), fences: fences, deltaLimit: deltaLimit)
    }
}

extension RecordRef {
    /// The reference with the tombstone mark cleared.
    @inline(__always)
    var withoutTombstone: RecordRef {
        RecordRef(segment: segment & ~OrderedKeys.tombstone, offset: offset)
    }
}
