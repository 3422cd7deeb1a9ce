#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a put record starts: the segment's handle and the byte offset of the record's op byte.
struct RecordRef: Equatable {
    var segment: UInt32
    var offset: UInt32
}

/// Base addresses of the mapped segments, by handle (`nil` once a segment is gone).
typealias SegmentBases = [UnsafeRawPointer?]

extension StoredRecord {
    /// The record `ref` points at.
    @inline(__always)
    init(_ bases: SegmentBases, _ ref: RecordRef) {
        self.init(at: bases[Int(ref.segment)].unsafelyUnwrapped + Int(ref.offset))
    }
}

/// The in-memory index of one keyspace: key → the put record that holds its value.
///
/// An open-addressing table (linear probing, load ≤ 3/4, backward-shift deletion) of 12-byte
/// entries: a 32-bit hash and a ``RecordRef``. Keys are not copied into memory; they are compared
/// in the mapped log, right before their values, so a hit costs two cache misses (entry, record)
/// and the index costs 16–32 bytes per key whatever the key's length.
///
/// Not thread-safe: the store guards it with its index lock.
struct KeyDirectory {
    private struct Entry {
        var hash: UInt32
        var ref: RecordRef

        static let empty = Entry(hash: 0, ref: RecordRef(segment: UInt32.max, offset: 0))
        @inline(__always) var isEmpty: Bool { ref.segment == UInt32.max }
    }

    private var table = EntryTable(capacity: 16)
    /// Live keys.
    private(set) var count = 0
    /// Bytes of live keys and values.
    private(set) var liveBytes: Int64 = 0

    /// Bytes the table holds in memory.
    var memoryBytes: Int { table.count * MemoryLayout<Entry>.stride }

    /// The record holding `key`, if present.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, _ bases: SegmentBases) -> (RecordRef, StoredRecord)? {
        let hash = Self.hash(key)
        return table.withBuffer { table in
            let mask = table.count - 1
            var slot = Int(hash) & mask
            while true {
                let entry = table[slot]
                if entry.isEmpty { return nil }
                if entry.hash == hash {
                    let record = StoredRecord(bases, entry.ref)
                    if Self.equal(record.key, key) { return (entry.ref, record) }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Points the key of the put record `ref` (whose hash is `hash` and whose key and value
    /// take `bytes` bytes) at `ref`; returns the record it replaces. Reads keys from the log only
    /// to compare entries of equal hash.
    mutating func set(hash: UInt32, to ref: RecordRef, bytes: Int, _ bases: SegmentBases) -> (
        RecordRef, StoredRecord
    )? {
        if count + 1 > table.count / 4 * 3 { grow() }
        makeUnique()
        let mask = table.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = table[slot]
            if entry.isEmpty {
                table[slot] = Entry(hash: hash, ref: ref)
                count += 1
                liveBytes += Int64(bytes)
                return nil
            }
            if entry.hash == hash {
                let old = StoredRecord(bases, entry.ref)
                if Self.equal(old.key, StoredRecord(bases, ref).key) {
                    table[slot].ref = ref
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

    /// Removes `key`; returns the record that held it, if any.
    mutating func remove(_ key: UnsafeRawBufferPointer, _ bases: SegmentBases) -> (
        RecordRef, StoredRecord
    )? {
        guard let (ref, old) = find(key, bases) else { return nil }
        makeUnique()
        let mask = table.count - 1
        var hole = Int(Self.hash(key)) & mask
        while table[hole].ref != ref { hole = (hole + 1) & mask }
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

    /// Calls `body` with every live record, in table order.
    func forEach(_ bases: SegmentBases, _ body: (RecordRef, StoredRecord) throws -> Void) rethrows {
        for slot in 0..<table.count where !table[slot].isEmpty {
            try body(table[slot].ref, StoredRecord(bases, table[slot].ref))
        }
    }

    /// Calls `body` with every live record in log order (segment handle, then offset): a scan
    /// then reads the mapped log front to back instead of jumping to a cache miss per record.
    /// - Complexity: O(n) time (a radix sort of the references) and 16 bytes a key of scratch.
    func forEachInLogOrder(_ bases: SegmentBases, _ body: (RecordRef, StoredRecord) throws -> Void)
        rethrows
    {
        var refs = [UInt64]()
        refs.reserveCapacity(count)
        for slot in 0..<table.count where !table[slot].isEmpty {
            refs.append(UInt64(table[slot].ref.segment) << 32 | UInt64(table[slot].ref.offset))
        }
        RadixSort.sort(&refs)
        for packed in refs {
            let ref = RecordRef(
                segment: UInt32(truncatingIfNeeded: packed >> 32),
                offset: UInt32(truncatingIfNeeded: packed))
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

    /// Points `key` at `new` if it still points at `expected` (compaction moving a record);
    /// returns whether it did.
    mutating func replace(
        _ key: UnsafeRawBufferPointer, expected: RecordRef, with new: RecordRef,
        _ bases: SegmentBases
    )
        -> Bool
    {
        let hash = Self.hash(key)
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

    /// Number of entries whose record is in `segment`.
    func count(inSegment segment: UInt32) -> Int {
        (0..<table.count).reduce(0) { $0 + (table[$1].ref.segment == segment ? 1 : 0) }
    }

    private mutating func grow() { rehash(table.count * 2) }

    private mutating func rehash(_ capacity: Int) {
        let old = table
        table = EntryTable(capacity: capacity)
        let mask = table.count - 1
        for i in 0..<old.count where !old[i].isEmpty {
            let entry = old[i]
            var slot = Int(entry.hash) & mask
            while !table[slot].isEmpty { slot = (slot + 1) & mask }
            table[slot] = entry
        }
    }

    /// Copy-on-write: a snapshot taken for iteration keeps the table it copied.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&table) { table = table.copy() }
    }

    /// The table's memory: one allocation, with transparent huge pages asked for when it is
    /// large (a lookup's first cache miss then costs no TLB walk).
    private final class EntryTable: @unchecked Sendable {
        let count: Int
        private let entries: UnsafeMutablePointer<Entry>
        private let bytes: Int

        init(capacity: Int) {
            count = capacity
            bytes = capacity * MemoryLayout<Entry>.stride
            var raw: UnsafeMutableRawPointer?
            if bytes >= Self.hugePage && posix_memalign(&raw, Self.hugePage, bytes) == 0, let raw {
                #if os(Linux)
                    _ = madvise(raw, bytes, MADV_HUGEPAGE)
                #endif
                entries = raw.bindMemory(to: Entry.self, capacity: capacity)
            } else {
                entries = UnsafeMutableRawPointer(malloc(max(bytes, 1))!).bindMemory(
                    to: Entry.self, capacity: capacity)
            }
            entries.initialize(repeating: .empty, count: capacity)
        }

        static let hugePage = 2 << 20

        deinit { free(entries) }

        subscript(slot: Int) -> Entry {
            @inline(__always) get { entries[slot] }
            @inline(__always) set { entries[slot] = newValue }
        }

        @inline(__always)
        func withBuffer<R>(_ body: (UnsafeBufferPointer<Entry>) throws -> R) rethrows -> R {
            try body(UnsafeBufferPointer(start: entries, count: count))
        }

        func copy() -> EntryTable {
            let new = EntryTable(capacity: count)
            new.entries.update(from: entries, count: count)
            return new
        }
    }

    @inline(__always)
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// A fast 32-bit hash of short byte strings (8 bytes a step, then a splitmix64 finish).
    @inline(__always)
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(key.count &+ 1)
        var i = 0
        let n = key.count
        while i + 8 <= n {
            h = (h ^ key.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 29
            i += 8
        }
        if i < n {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                tail |= UInt64(key[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* 0xBF58_476D_1CE4_E5B9
        }
        h ^= h >> 31
        h = h &* 0x94D0_49BB_1331_11EB
        h ^= h >> 32
        return UInt32(truncatingIfNeeded: h)
    }
}
