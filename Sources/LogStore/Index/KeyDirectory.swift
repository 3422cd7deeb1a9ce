#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a live value lies: segment number, byte offset of the value in that file, length.
struct Location: Equatable {
    var segment: UInt32
    var offset: UInt32
    var length: UInt32
}

/// The in-memory index of one keyspace: key → ``Location``.
///
/// A compact open-addressing table: keys are stored once, back to back, in `arena`; `entries`
/// holds one 20-byte record per key in insertion order; `slots` (4 bytes each, load ≤ 3/4) maps a
/// hash to an entry. That is about 30 bytes per key beyond the key bytes, against ~80 for a
/// `Dictionary<[UInt8], Location>`.
///
/// Not thread-safe: the store guards it with its index lock.
struct KeyDirectory {
    private struct Entry {
        var keyOffset: UInt32
        var keyLength: UInt16
        var tag: UInt16  // high hash bits: most mismatches are rejected without touching `arena`
        var location: Location
    }

    private static let emptySlot: UInt32 = 0
    private static let deletedSlot: UInt32 = 1  // entry index i is stored as i + 2
    private static let freeSegment = UInt32.max  // marks an entry whose key was removed

    private var arena: [UInt8] = []
    private var entries: [Entry] = []
    private var slots: [UInt32] = [UInt32](repeating: 0, count: 16)
    private var usedSlots = 0  // live + deleted markers
    private var freeEntries = 0

    /// Live keys.
    private(set) var count = 0
    /// Bytes of live keys and values.
    private(set) var liveBytes: Int64 = 0

    /// Bytes the directory holds in memory (capacity, not just count).
    var memoryBytes: Int {
        arena.capacity + entries.capacity * MemoryLayout<Entry>.stride + slots.capacity * 4
    }

    /// The location of `key`, if present.
    func location(of key: UnsafeRawBufferPointer) -> Location? {
        let hash = Self.hash(key)
        guard let slot = findSlot(key, hash: hash).found else { return nil }
        return entries[Int(slots[slot] - 2)].location
    }

    /// Sets `key`'s location; returns the one it replaces.
    mutating func set(_ key: UnsafeRawBufferPointer, to location: Location) throws -> Location? {
        let hash = Self.hash(key)
        let probe = findSlot(key, hash: hash)
        if let slot = probe.found {
            let index = Int(slots[slot] - 2)
            let old = entries[index].location
            entries[index].location = location
            liveBytes += Int64(location.length) - Int64(old.length)
            return old
        }
        if usedSlots + 1 > slots.count / 4 * 3 {
            try rebuild(capacityFor: count + 1)
            return try set(key, to: location)
        }
        guard arena.count + key.count <= UInt32.max else {
            throw LogStoreError.invalidArgument("a keyspace cannot hold more than 4 GiB of keys")
        }
        let entryIndex = entries.count
        entries.append(
            Entry(
                keyOffset: UInt32(arena.count), keyLength: UInt16(key.count), tag: Self.tag(hash),
                location: location))
        arena.append(contentsOf: key)
        let slot = probe.insertAt
        if slots[slot] == Self.emptySlot { usedSlots += 1 }
        slots[slot] = UInt32(entryIndex + 2)
        count += 1
        liveBytes += Int64(key.count) + Int64(location.length)
        return nil
    }

    /// Removes `key`; returns its location if it was present.
    mutating func remove(_ key: UnsafeRawBufferPointer) -> Location? {
        let hash = Self.hash(key)
        guard let slot = findSlot(key, hash: hash).found else { return nil }
        let index = Int(slots[slot] - 2)
        let old = entries[index].location
        slots[slot] = Self.deletedSlot
        entries[index].location.segment = Self.freeSegment
        freeEntries += 1
        count -= 1
        liveBytes -= Int64(entries[index].keyLength) + Int64(old.length)
        if freeEntries > 1024 && freeEntries > count {
            try? rebuild(capacityFor: count)  // cannot overflow: it only shrinks
        }
        return old
    }

    /// Calls `body` with every live key and its location, in insertion order.
    func forEach(_ body: (UnsafeRawBufferPointer, Location) throws -> Void) rethrows {
        try arena.withUnsafeBytes { keys in
            for entry in entries where entry.location.segment != Self.freeSegment {
                let start = Int(entry.keyOffset)
                try body(
                    UnsafeRawBufferPointer(rebasing: keys[start..<start + Int(entry.keyLength)]),
                    entry.location)
            }
        }
    }

    // MARK: - Table

    private func findSlot(_ key: UnsafeRawBufferPointer, hash: UInt64) -> (
        found: Int?, insertAt: Int
    ) {
        let mask = slots.count - 1
        let tag = Self.tag(hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        var firstDeleted: Int?
        return slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                arena.withUnsafeBytes { arena in
                    while true {
                        let value = slots[slot]
                        if value == Self.emptySlot { return (nil, firstDeleted ?? slot) }
                        if value == Self.deletedSlot {
                            if firstDeleted == nil { firstDeleted = slot }
                        } else {
                            let entry = entries[Int(value - 2)]
                            if entry.tag == tag && Int(entry.keyLength) == key.count
                                && Self.equal(arena, Int(entry.keyOffset), key)
                            {
                                return (slot, slot)
                            }
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    /// Rehashes into a table sized for `keys` keys, dropping removed entries and their key bytes.
    private mutating func rebuild(capacityFor keys: Int) throws {
        var capacity = 16
        while capacity / 2 < keys { capacity <<= 1 }
        let compacting = freeEntries > 0
        var newArena: [UInt8] = []
        var newEntries: [Entry] = []
        if compacting {
            newArena.reserveCapacity(arena.count)
            newEntries.reserveCapacity(count)
        }
        var newSlots = [UInt32](repeating: Self.emptySlot, count: capacity)
        let mask = capacity - 1
        arena.withUnsafeBytes { keys in
            for (index, var entry) in entries.enumerated()
            where entry.location.segment != Self.freeSegment {
                let start = Int(entry.keyOffset)
                let key = UnsafeRawBufferPointer(
                    rebasing: keys[start..<start + Int(entry.keyLength)])
                var newIndex = index
                if compacting {
                    entry.keyOffset = UInt32(newArena.count)
                    newArena.append(contentsOf: key)
                    newIndex = newEntries.count
                    newEntries.append(entry)
                }
                var slot = Int(truncatingIfNeeded: Self.hash(key)) & mask
                while newSlots[slot] != Self.emptySlot { slot = (slot + 1) & mask }
                newSlots[slot] = UInt32(newIndex + 2)
            }
        }
        if compacting {
            arena = newArena
            entries = newEntries
            freeEntries = 0
        }
        slots = newSlots
        usedSlots = count
    }

    @inline(__always)
    private static func equal(
        _ arena: UnsafeRawBufferPointer, _ offset: Int, _ key: UnsafeRawBufferPointer
    ) -> Bool {
        key.count == 0 || memcmp(arena.baseAddress! + offset, key.baseAddress!, key.count) == 0
    }

    @inline(__always)
    private static func tag(_ hash: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: hash >> 48) }

    /// A fast 64-bit hash of short byte strings (8 bytes a step, then a splitmix64 finish).
    @inline(__always)
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(key.count &+ 1)
        var i = 0
        let n = key.count
        while i + 8 <= n {
            let word = key.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = (h ^ word) &* 0xBF58_476D_1CE4_E5B9
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
        return h
    }
}
