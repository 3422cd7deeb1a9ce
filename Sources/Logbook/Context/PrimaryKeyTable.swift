import LogStore

/// A flat hash table from an object's 64-bit primary key to its entry in an ``ObjectTable``:
/// open addressing with linear probing (load ≤ 1/2), backward-shift deletion, 16-byte slots in
/// one allocation. Primary key 0 is never handed out, so it marks an empty slot.
///
/// Not thread-safe; owned by one ``ObjectTable``.
final class PrimaryKeyTable {
    private struct Slot {
        var key: UInt64
        var entry: Int32
    }

    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var mask: Int
    /// Keys in the table.
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = .allocate(capacity: size)
        slots.initialize(repeating: Slot(key: 0, entry: -1), count: size)
        mask = size - 1
    }

    deinit { slots.deallocate() }

    @inline(__always)
    private static func home(_ key: UInt64, _ mask: Int) -> Int {
        // Fibonacci hashing: consecutive keys spread, and the high bits are kept.
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 17) & mask
    }

    /// The entry of `key`, or -1.
    @inline(__always)
    func find(_ key: UInt64) -> Int32 {
        var i = Self.home(key, mask)
        while true {
            let slot = slots[i]
            if slot.key == key { return slot.entry }
            if slot.key == 0 { return -1 }
            i = (i + 1) & mask
        }
    }

    /// Starts loading the slot where a lookup of `key` begins, without waiting for it.
    @inline(__always)
    func prefetch(_ key: UInt64) { Prefetch.read(slots + Self.home(key, mask)) }

    /// Maps `key` to `entry`, replacing what it mapped to.
    @inline(__always)
    func set(_ key: UInt64, _ entry: Int32) {
        if (count + 1) * 2 > mask + 1 { rehash(to: (mask + 1) * 2) }
        var i = Self.home(key, mask)
        while true {
            let k = slots[i].key
            if k == key {
                slots[i].entry = entry
                return
            }
            if k == 0 {
                slots[i] = Slot(key: key, entry: entry)
                count += 1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Removes `key` if present.
    func remove(_ key: UInt64) { remove(key, ifEntry: nil) }

    /// Removes `key` if present and (unless `entry` is `nil`) mapped to `entry`.
    func remove(_ key: UInt64, ifEntry entry: Int32?) {
        var hole = Self.home(key, mask)
        while slots[hole].key != key {
            if slots[hole].key == 0 { return }
            hole = (hole + 1) & mask
        }
        if let entry, slots[hole].entry != entry { return }
        var next = hole
        while true {
            next = (next + 1) & mask
            let slot = slots[next]
            if slot.key == 0 { break }
            let home = Self.home(slot.key, mask)
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if stays { continue }
            slots[hole] = slot
            hole = next
        }
        slots[hole] = Slot(key: 0, entry: -1)
        count -= 1
    }

    /// Makes room for `extra` more keys without rehashing on the way.
    func reserve(_ extra: Int) {
        var size = mask + 1
        while (count + extra) * 2 > size { size <<= 1 }
        if size > mask + 1 { rehash(to: size) }
    }

    /// Removes every key.
    func removeAll() {
        slots.update(repeating: Slot(key: 0, entry: -1), count: mask + 1)
        count = 0
    }

    /// Calls `body` with every key and entry, in no set order.
    func forEach(_ body: (UInt64, Int32) throws -> Void) rethrows {
        for i in 0...mask where slots[i].key != 0 { try body(slots[i].key, slots[i].entry) }
    }

    /// Bytes the table holds.
    var memoryBytes: Int { (mask + 1) * MemoryLayout<Slot>.stride }

    private func rehash(to size: Int) {
        let old = slots
        let oldSize = mask + 1
        slots = .allocate(capacity: size)
        slots.initialize(repeating: Slot(key: 0, entry: -1), count: size)
        mask = size - 1
        // As in a lookup, each key's new slot is a cache miss: load those a few keys ahead.
        let ahead = ObjectTable.registryLookahead
        for i in 0..<oldSize where old[i].key != 0 {
            if i + ahead < oldSize, old[i + ahead].key != 0 {
                Prefetch.read(slots + Self.home(old[i + ahead].key, mask))
            }
            var j = Self.home(old[i].key, mask)
            while slots[j].key != 0 { j = (j + 1) & mask }
            slots[j] = old[i]
        }
        old.deallocate()
    }
}
