import Foundation

/// A stored record's values, decoded only when a filter or sort asks for them: the scan
/// locates each attribute's bytes once, and equality with a constant compares bytes without
/// building a `String`.
///
/// Invariant: `offsets[i]` is the offset in `buffer` of attribute i's value, or -1 for `null`,
/// for every attribute the filter reads (the scan locates all attributes up to the highest one
/// it needs).
struct RecordFilterValues: FilterValues {
    let buffer: UnsafeRawBufferPointer
    let offsets: UnsafeMutableBufferPointer<Int>
    let types: UnsafeBufferPointer<AttributeType>
    let shapes: UnsafeBufferPointer<ValueShape>
    let primaryKey: UInt64

    /// Filters reaching here are bound to positions; a name means a bug in binding.
    func value(forKey key: String) throws -> AttributeValue {
        throw LogbookError.unsupportedPredicate("the key \(key) was not resolved to an attribute")
    }

    @inline(__always)
    func value(at index: Int) -> AttributeValue {
        let offset = offsets[index]
        if offset < 0 { return .null }
        var r = ByteReader(buffer)
        r.offset = offset
        // Invariant: `locate` already walked this value; one that does not decode is damage
        // the full decode reports (a scan tests records it could locate only).
        if types[index].isCollection { return (try? r.value(shapes[index])) ?? .null }
        return (try? r.value(types[index])) ?? .null
    }

    /// The length-prefixed bytes at `offset` (a string's or data's value), or `nil` if the
    /// record is damaged there.
    @inline(__always)
    static func lengthPrefixed(_ buffer: UnsafeRawBufferPointer, at offset: Int)
        -> UnsafeRawBufferPointer?
    {
        // One length byte (values under 128 bytes): no reader needed.
        if let base = buffer.baseAddress, offset < buffer.count {
            let length = Int(base.load(fromByteOffset: offset, as: UInt8.self))
            if length < 0x80 {
                guard offset + 1 + length <= buffer.count else { return nil }
                return UnsafeRawBufferPointer(start: base + offset + 1, count: length)
            }
        }
        var r = ByteReader(buffer)
        r.offset = offset
        return try? r.lengthPrefixed()
    }

    /// The zigzag integer at `offset`, or `nil` if the record is damaged there.
    @inline(__always)
    static func zigzag(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> Int64? {
        var r = ByteReader(buffer)
        r.offset = offset
        return try? r.zigzag()
    }

    @inline(__always)
    func equals(at index: Int, _ constant: AttributeValue) -> Bool? {
        let offset = offsets[index]
        if offset < 0 { return constant.isNull }
        var r = ByteReader(buffer)
        r.offset = offset
        switch (types[index], constant) {
        case (.string, .string(let text)):
            guard let stored = try? r.lengthPrefixed() else { return nil }
            var text = text
            let sameBytes = text.withUTF8 {
                $0.count == stored.count
                    && ($0.isEmpty
                        || memcmp($0.baseAddress!, stored.baseAddress!, stored.count) == 0)
            }
            if sameBytes { return true }
            // Different bytes can still be canonically equal strings, unless both are ASCII.
            if text.utf8.allSatisfy({ $0 < 0x80 }) && stored.allSatisfy({ $0 < 0x80 }) {
                return false
            }
            return nil
        case (let type, .integer(let wanted)) where type.isInteger:
            guard let stored = try? r.zigzag() else { return nil }
            return stored == wanted
        default:
            return nil
        }
    }
}
