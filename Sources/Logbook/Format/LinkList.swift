import Foundation

/// The links of the storing side of a many-to-many relationship, as a record holds them
/// (FORMAT.md Part 2, "Object records"): a `data` value of the destination objects' primary
/// keys, each a `u64` big-endian, strictly ascending. No links is `null`, never empty data.
package enum LinkList {
    /// The stored value of `keys` (any order, duplicates and zeros dropped).
    static func value(_ keys: some Sequence<UInt64>) -> AttributeValue {
        let sorted = Array(Set(keys).subtracting([0])).sorted()
        guard !sorted.isEmpty else { return .null }
        var bytes = [UInt8]()
        bytes.reserveCapacity(sorted.count * 8)
        for key in sorted {
            withUnsafeBytes(of: key.bigEndian) { bytes.append(contentsOf: $0) }
        }
        return .data(Data(bytes))
    }

    /// The keys of a stored value, ascending; `nil` for a value that is not a link list
    /// (not data, a length that is not a multiple of 8, keys not strictly ascending, a zero).
    package static func keys(_ value: AttributeValue) -> [UInt64]? {
        switch value {
        case .null: return []
        case .data(let data): return keys(data)
        default: return nil
        }
    }

    /// The keys of a link list's `data` payload, ascending; `nil` for bytes that are not one.
    package static func keys(_ data: Data) -> [UInt64]? {
        guard data.count % 8 == 0 else { return nil }
        return data.withUnsafeBytes { raw in keys(raw) }
    }

    /// The keys of a link list's bytes (the payload of the `data` value).
    static func keys(_ raw: UnsafeRawBufferPointer) -> [UInt64]? {
        guard raw.count % 8 == 0 else { return nil }
        var result = [UInt64]()
        result.reserveCapacity(raw.count / 8)
        var previous: UInt64 = 0
        for i in stride(from: 0, to: raw.count, by: 8) {
            let key = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            guard key > previous else { return nil }
            result.append(key)
            previous = key
        }
        return result
    }
}

/// A few small link keys packed into one word, so that an object decoded with them allocates
/// no array (a fetched attendee with three seminars made and freed one per object):
///
/// ```
/// bits 62…63  how many keys (1…3); 0: none packed
/// one key     bits 0…61
/// two keys    bits 0…30 and 31…61 (each below 2³¹)
/// three keys  bits 0…19, 20…39, 40…59 (each below 2²⁰)
/// ```
/// Keys keep their order (ascending). Only memory: records hold ``LinkList``'s bytes.
enum PackedLinks {
    /// The word holding `keys`, or `nil` (0 keys, more than 3, or keys too large to pack).
    @inline(__always)
    static func pack(_ first: UInt64, _ second: UInt64?, _ third: UInt64?) -> UInt64? {
        guard let second else { return first < 1 << 62 ? 1 << 62 | first : nil }
        guard let third else {
            return first < 1 << 31 && second < 1 << 31 ? 2 << 62 | second << 31 | first : nil
        }
        return first < 1 << 20 && second < 1 << 20 && third < 1 << 20
            ? 3 << 62 | third << 40 | second << 20 | first : nil
    }

    /// The packed word of `keys`, or `nil`.
    static func pack(_ keys: [UInt64]) -> UInt64? {
        switch keys.count {
        case 1: pack(keys[0], nil, nil)
        case 2: pack(keys[0], keys[1], nil)
        case 3: pack(keys[0], keys[1], keys[2])
        default: nil
        }
    }

    /// The packed word of a link list's bytes (the payload of its `data` value) if they hold
    /// valid keys that pack; `nil` otherwise (then ``LinkList/keys(_:)-(UnsafeRawBufferPointer)``
    /// says whether they are valid).
    @inline(__always)
    static func pack(_ raw: UnsafeRawBufferPointer) -> UInt64? {
        let count = raw.count / 8
        guard raw.count % 8 == 0, (1...3).contains(count) else { return nil }
        func key(_ i: Int) -> UInt64 {
            UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
        }
        let first = key(0)
        guard first > 0 else { return nil }
        guard count > 1 else { return pack(first, nil, nil) }
        let second = key(1)
        guard second > first else { return nil }
        guard count > 2 else { return pack(first, second, nil) }
        let third = key(2)
        guard third > second else { return nil }
        return pack(first, second, third)
    }

    /// The keys of a packed word (none for 0).
    static func keys(_ word: UInt64) -> [UInt64] {
        switch word >> 62 {
        case 1: [word & (1 << 62 - 1)]
        case 2: [word & (1 << 31 - 1), word >> 31 & (1 << 31 - 1)]
        case 3: [word & (1 << 20 - 1), word >> 20 & (1 << 20 - 1), word >> 40 & (1 << 20 - 1)]
        default: []
        }
    }
}
