import Foundation
import LogStore

/// Appends the primitive encodings of FORMAT.md Part 2 ("Primitives") to a byte array.
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// LEB128 unsigned varint, at most 10 bytes (the engine's encoding, FORMAT.md "Conventions").
    @inline(__always)
    mutating func varint(_ value: UInt64) {
        // The usual one-byte case inline (the engine's writer is a call from this module).
        if value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else {
            Varint.append(value, to: &bytes)
        }
    }

    /// Zigzag-mapped signed varint: 0, -1, 1, -2 … become 0, 1, 2, 3 ….
    @inline(__always)
    mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Little-endian 8 bytes of the IEEE 754 bit pattern.
    @inline(__always)
    mutating func double(_ value: Double) {
        var bits = value.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
    }

    /// Varint length, then the bytes.
    @inline(__always)
    mutating func lengthPrefixed<C: Collection>(_ data: C) where C.Element == UInt8 {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// Varint length, then UTF-8.
    @inline(__always)
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { lengthPrefixed($0) }
    }

    /// Varint length, then UTF-8 of the string at `pointer`, read where it is (no copy of
    /// the string, no retain).
    @inline(__always)
    mutating func string(at pointer: UnsafeMutablePointer<String>) {
        pointer.pointee.withUTF8 { lengthPrefixed($0) }
    }

    /// The value's encoding for its type (FORMAT.md Part 2, "Values"). `null` writes nothing.
    mutating func value(_ value: AttributeValue) {
        switch value {
        case .null: break
        case .string(let v): string(v)
        case .integer(let v): zigzag(v)
        case .double(let v): double(v)
        case .bool(let v): bytes.append(v ? 1 : 0)
        case .date(let v): double(v.timeIntervalSinceReferenceDate)
        case .data(let v): lengthPrefixed(v)
        case .uuid(let v):
            var raw = v.uuid
            withUnsafeBytes(of: &raw) { bytes.append(contentsOf: $0) }
        }
    }
}
