import CKeyDirectory

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The in-memory index of one keyspace: key → the put record that holds its value.
///
/// An open-addressing table (linear probing, load ≤ 3/4, backward-shift deletion) of 12-byte
/// entries: a 32-bit hash, a ``RecordRef`` and how many cache lines the record spans. Keys are not
/// copied into memory; they are compared in the mapped log, right before their values. A hit
/// costs the entry's cache miss, then one round of misses for the record: every line of the
/// record is prefetched at once, before its header is parsed, so the key compare and the value
/// do not wait for one line after another. The index costs 16–32 bytes per key whatever the
/// key's length.
///
/// Not thread-safe: the store guards it with its index lock.
struct KeyDirectory {
    /// One slot of the table: a key's hash, where its record is, and how many cache lines past
    /// its first the record may reach (for prefetching; 12 bytes in all).
    struct Entry {
        var hash: UInt32
        private var offset: UInt32
        /// The segment handle in the low 28 bits, the extra lines in the high 4.
        private var segmentAndLines: UInt32

        static let segmentMask: UInt32 = 0x0FFF_FFFF
        /// The most lines past the first that are prefetched.
        static let maxExtraLines = 15

        init(hash: UInt32, ref: RecordRef, recordSize: Int) {
            // Invariant: `Segment.init` refuses a handle at or past `segmentMask` (the top value
            // marks `Self.empty`), and refs come from segments' handles.
            precondition(ref.segment < Self.segmentMask, "segment handle out of range")
            self.hash = hash
            self.offset = ref.offset
            let lines = UInt32(min(Self.maxExtraLines, (recordSize + 63) >> 6))
            self.segmentAndLines = ref.segment | lines << 28
        }

        private init(empty: Void) {
            hash = 0
            offset = 0
            segmentAndLines = UInt32.max
        }

        static let empty = Entry(empty: ())
        @inline(__always) var isEmpty: Bool { segmentAndLines == UInt32.max }

        /// Where the record is. Setting it keeps the line count: only compaction moves a record,
        /// and a moved record keeps its size.
        var ref: RecordRef {
            @inline(__always) get {
                RecordRef(segment: segmentAndLines & Self.segmentMask, offset: offset)
            }
            set {
                precondition(newValue.segment < Self.segmentMask, "segment handle out of range")
                offset = newValue.offset
                segmentAndLines = newValue.segment | (segmentAndLines & ~Self.segmentMask)
            }
        }

        /// Lines past the record's first that a prefetch of `recordSize + 63` bytes from its
        /// start touches (whatever the start's alignment), at most ``maxExtraLines``.
        @inline(__always) var extraLines: Int { Int(segmentAndLines >> 28) }
    }

    /// Starts loading every line of the record of `entry` (one round trip to memory, not one
    /// per line); returns where the record starts and the end of its segment's readable bytes.
    @inline(__always)
    static func prefetch(_ entry: Entry, _ bases: SegmentBases) -> (
        start: UnsafeRawPointer, end: UnsafeRawPointer
    ) {
        let ref = entry.ref
        let (base, end) = bases.span(Int(ref.segment))
        let start = base + Int(ref.offset)
        logbook_prefetch(start)
        var line = 1
        let lines = entry.extraLines
        while line <= lines {
            logbook_prefetch(start + line &* 64)
            line &+= 1
        }
        return (start, end)
    }

    /// An entry that does not point at a put record inside its segment, or at one of another
    /// hash: only a damaged (or forged) key directory file maps such an entry, since open checks
    /// such a file's entries only for pointing inside their segments.
    struct DamagedEntry: Error {
        var ref: RecordRef
        var reason: String
    }

    /// The record `entry` points at, checked (``StoredRecord/init(checkedAt:end:)``).
    @inline(__always)
    static func record(_ entry: Entry, _ bases: SegmentBases) throws(DamagedEntry) -> StoredRecord {
        let (start, end) = prefetch(entry, bases)
        guard let record = StoredRecord(checkedAt: start, end: end) else {
            throw notARecord(entry.ref)
        }
        return record
    }

    /// The record at `ref`, a reference taken from an entry, checked as ``record(_:_:)`` checks
    /// an entry's (without the prefetch): for walks over the table's references.
    @inline(__always)
    static func record(at ref: RecordRef, _ bases: SegmentBases) throws(DamagedEntry)
        -> StoredRecord
    {
        let (base, end) = bases.span(Int(ref.segment))
        guard let record = StoredRecord(checkedAt: base + Int(ref.offset), end: end) else {
            throw notARecord(ref)
        }
        return record
    }

    @inline(never)
    private static func notARecord(_ ref: RecordRef) -> DamagedEntry {
        DamagedEntry(
            ref: ref,
            reason: "it points at segment \(ref.segment) offset \(ref.offset), "
                + "which is not the start of a put record inside that segment")
    }

    /// Throws if `record`, which `entry` of the same hash points at and whose key is not the one
    /// looked for, has a key of another hash (cold: equal hashes of different keys are rare).
    @inline(never)
    static func checkCollision(_ entry: Entry, _ record: StoredRecord) throws(DamagedEntry) {
        guard hash(record.key) == entry.hash else {
            throw DamagedEntry(
                ref: entry.ref,
                reason: "it points at segment \(entry.ref.segment) offset \(entry.ref.offset), "
                    + "a record whose key has another hash than the entry's")
        }
    }

    /// The slots (a power of two of them). Copy-on-write: see `makeUnique()`. Replaced only
    /// through ``replaceTable(_:)``.
    private(set) var table: EntryTable
    /// The entries of `table`, beside it: a lookup reads them without touching the table
    /// object, which would cost a retain and a release (two atomic operations) a lookup.
    /// Invariant: always `table`'s; valid as long as this directory holds `table`.
    private(set) var entries: UnsafeBufferPointer<Entry>
    /// Live keys.
    private(set) var count = 0
    /// Bytes of live keys and values.
    private(set) var liveBytes: Int64 = 0

    init() {
        table = EntryTable(capacity: 16)
        entries = table.borrowedEntries
    }

    /// A directory over `table` (mapped from a key directory file) that holds `count` keys of
    /// `liveBytes` bytes.
    init(table: EntryTable, count: Int, liveBytes: Int64) {
        self.table = table
        entries = table.borrowedEntries
        self.count = count
        self.liveBytes = liveBytes
    }

    /// Bytes the table holds in memory.
    var memoryBytes: Int { table.count * MemoryLayout<Entry>.stride }

    /// The record holding `key`, if present.
    /// - Throws: ``DamagedEntry`` if an entry of the key's hash points at something that is not
    ///   a put record inside its segment, or at a record of another key's hash: never a read
    ///   outside the segment.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, _ bases: SegmentBases) throws(DamagedEntry) -> (
        RecordRef, StoredRecord
    )? {
        try Self.probe(entries, key, bases).map { ($0.ref, $0.record) }
    }

    /// ``find(_:_:)`` in a directory whose ``entries`` are `entries`, with the slot of the key's
    /// entry. Static, so that a caller can look up through a directory's entries alone, without
    /// copying the directory (and so retaining its table).
    @inline(__always)
    static func probe(
        _ entries: UnsafeBufferPointer<Entry>, _ key: UnsafeRawBufferPointer, _ bases: SegmentBases
    ) throws(DamagedEntry) -> (slot: Int, ref: RecordRef, record: StoredRecord)? {
        let hash = Self.hash(key)
        let mask = entries.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = entries[slot]
            if entry.isEmpty { return nil }
            if entry.hash == hash {
                let record = try Self.record(entry, bases)
                if Self.equal(record.key, key) { return (slot, entry.ref, record) }
                try Self.checkCollision(entry, record)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Points the key of the put record `ref` (whose hash is `hash`, whose key and value
    /// take `bytes` bytes, and which takes `recordSize` bytes in all) at `ref`; returns the record
    /// it replaces. Reads keys from the log only to compare entries of equal hash.
    mutating func set(
        hash: UInt32, to ref: RecordRef, bytes: Int, recordSize: Int, _ bases: SegmentBases
    ) -> (RecordRef, StoredRecord)? {
        if count + 1 > table.count / 4 * 3 { grow() }
        makeUnique()
        let mask = table.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = table[slot]
            if entry.isEmpty {
                table[slot] = Entry(hash: hash, ref: ref, recordSize: recordSize)
                count += 1
                liveBytes += Int64(bytes)
                return nil
            }
            // An entry that points at no record (a damaged key directory file) is passed over:
            // lookups that reach it throw, and the next open without that file rebuilds.
            if entry.hash == hash, let old = try? Self.record(entry, bases) {
                if Self.equal(old.key, StoredRecord(bases, ref).key) {
                    table[slot] = Entry(hash: hash, ref: ref, recordSize: recordSize)
                    liveBytes += Int64(bytes - old.key.count - old.value.count)
                    return (entry.ref, old)
                }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Slots in the table (a power of two).
    var capacity: Int { table.count }

    /// Makes room for `keys` keys without growing again.
    mutating func reserve(_ keys: Int) {
        var capacity = table.count
        while keys > capacity / 4 * 3 { capacity <<= 1 }
        if capacity > table.count { rehash(capacity) }
    }

    /// Makes room before a commit of `puts` puts, which may replace keys as well as add them:
    /// for `max(count, puts)` keys, so a commit that replaces keys rehashes nothing, and one
    /// that adds them grows the table at most once more as it goes (by doubling, as any put
    /// that finds it three quarters full).
    mutating func reserve(forPuts puts: Int) { reserve(Swift.max(count, puts)) }

    /// Removes `key`; returns the record that held it, if any.
    mutating func remove(_ key: UnsafeRawBufferPointer, _ bases: SegmentBases) -> (
        RecordRef, StoredRecord
    )? {
        // A damaged entry in the way (see `set`) leaves the key as it is; lookups that reach it
        // throw.
        guard let (slot, ref, old) = try? Self.probe(entries, key, bases) else { return nil }
        // A copy keeps every entry in its slot.
        makeUnique()
        let mask = table.count - 1
        var hole = slot
        // Backward-shift deletion: pull later entries of the probe run into the hole.
        var next = hole
        while true {
            next = (next + 1) & mask
            let entry = table[next]
            if entry.isEmpty { break }
            let home = Int(entry.hash) & mask
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if stays { continue }
            table[hole] = entry
            hole = next
        }
        table[hole] = .empty
        count -= 1
        liveBytes -= Int64(old.key.count + old.value.count)
        return (ref, old)
    }

    /// Points the key of hash `hash` (``hash(_:)``) at `new` if it still points at `expected`
    /// (compaction moving a record); returns whether it did. A record is one key's, so the
    /// entry that names `expected` is that key's: no key is compared.
    mutating func replace(hash: UInt32, expected: RecordRef, with new: RecordRef) -> Bool {
        makeUnique()
        let mask = table.count - 1
        var slot = Int(hash) & mask
        while !table[slot].isEmpty {
            if table[slot].ref == expected {
                table[slot].ref = new
                return true
            }
            slot = (slot + 1) & mask
        }
        return false
    }

    /// How many keys ahead a batch of lookups or writes (publishing, reads of many keys)
    /// prefetches table slots, and how many the records those slots name: enough misses in
    /// flight to overlap, few enough that a slot's line has arrived when its record is asked for.
    static let slotLookahead = 16
    static let recordLookahead = 8

    /// Starts loading the line of the table (whose entries are `entries`) where a probe for
    /// `hash` begins, without waiting for it: a batch of lookups or writes (reads of many keys,
    /// publishing, compaction's re-pointing) that prefetches a few keys ahead then waits for
    /// many table misses at once instead of one after another. Static, as ``probe(_:_:_:)``.
    @inline(__always)
    static func prefetchSlot(_ entries: UnsafeBufferPointer<Entry>, _ hash: UInt32) {
        logbook_prefetch(entries.baseAddress.unsafelyUnwrapped + (Int(hash) & (entries.count - 1)))
    }

    /// Starts loading the record of the first entry of hash `hash` on that hash's probe run in
    /// `entries`, if any: the record a lookup or write of the key compares keys in. Reads the
    /// table, so it is best called a little after ``prefetchSlot(_:_:)`` for the same hash.
    @inline(__always)
    static func prefetchRecord(
        _ entries: UnsafeBufferPointer<Entry>, _ hash: UInt32, _ bases: SegmentBases
    ) {
        let mask = entries.count - 1
        var slot = Int(hash) & mask
        while !entries[slot].isEmpty {
            if entries[slot].hash == hash {
                _ = prefetch(entries[slot], bases)
                return
            }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() { rehash(table.count * 2) }

    private mutating func replaceTable(_ new: EntryTable) {
        table = new
        entries = new.borrowedEntries
    }

    private mutating func rehash(_ capacity: Int) {
        let old = table
        replaceTable(EntryTable(capacity: capacity))
        let mask = table.count - 1
        for i in 0..<old.count where !old[i].isEmpty {
            let entry = old[i]
            var slot = Int(entry.hash) & mask
            while !table[slot].isEmpty { slot = (slot + 1) & mask }
            table[slot] = entry
        }
    }

    /// Before `count` writes in a row (compaction re-pointing a keyspace): a table mapped from
    /// a key directory file that so many writes would move into memory of its own
    /// (``EntryTable/shouldMoveToOwnMemory()``) moves now, before writes make its pages this
    /// process's own one at a time.
    mutating func prepareForWrites(_ count: Int) {
        if table.isMapped && count > table.writesBeforeMoving { replaceTable(table.copy()) }
    }

    /// Copy-on-write: a snapshot taken for iteration keeps the table it copied. A table mapped
    /// from a key directory file moves into memory of its own once written often enough
    /// (``EntryTable/shouldMoveToOwnMemory()``).
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&table) || table.shouldMoveToOwnMemory() {
            replaceTable(table.copy())
        }
        table.noteWritten()
    }

}
