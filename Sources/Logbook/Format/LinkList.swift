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
