#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The in-memory index of one keyspace: key → the put record that holds its value.
///
/// An open-addressing table (linear probing, load ≤ 3/4, backward-shift deletion) of 12-byte
/// entries: a 32-bit hash and a ``RecordRef``. Keys are not copied into memory; they are compared
/// in the mapped log, right before their values, so a hit costs two cache misses (entry, record)
/// and the index costs 16–32 bytes per key whatever the key's length.
///
/// Not thread-safe: the store guards it with its index lock.
struct KeyDirectory {
    /// One slot of the table: a key's hash and where its record is.
    struct Entry {
        var hash: UInt32
        var ref: RecordRef

        static let empty = Entry(hash: 0, ref: RecordRef(segment: UInt32.max, offset: 0))
        @inline(__always) var isEmpty: Bool { ref.segment == UInt32.max }
    }

    /// The slots (a power of two of them). Copy-on-write: see `makeUnique()`.
    private(set) var table = EntryTable(capacity: 16)
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

}
