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

    /// The value's encoding for a scalar type (FORMAT.md Part 2, "Values"): every type but an
    /// array, a set or a composite inside one. `null` writes nothing.
    /// Invariant: `value` is `null` or a value of `type` (``AttributeDescription/holds(_:)``).
    mutating func value(_ value: AttributeValue, as type: AttributeType) {
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
        case .unsigned(let v): varint(v)
        case .float(let v):
            var bits = v.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
        case .decimal(let v):
            var form: [UInt8] = []
            DecimalBytes.append(v, to: &form)
            lengthPrefixed(form)
        case .array, .composite:
            // Invariant: scalar types only; the marker of an entity's composite takes no bytes.
            break
        }
    }

    /// The value's encoding for `shape` (FORMAT.md Part 2, "Values"). `null` writes nothing.
    /// Invariant: `value` is `null` or a value of the shape.
    mutating func value(_ value: AttributeValue, as shape: ValueShape) {
        switch (shape, value) {
        case (.scalar(let type), _): self.value(value, as: type)
        case (.collection(let element, let optional, _), .array(let items)):
            var body = ByteWriter(capacity: 16 + items.count * 4)
            body.varint(UInt64(items.count))
            body.nulls(items.map(\.isNull), if: optional)
            for item in items { body.value(item, as: element) }
            lengthPrefixed(body.bytes)
        case (.composite(_, let shapes, let optional), .composite(let composite)):
            let present = optional.indices.filter { optional[$0] }
            nulls(present.map { composite.values[$0].isNull }, if: !present.isEmpty)
            for (item, shape) in zip(composite.values, shapes) { self.value(item, as: shape) }
        default:
            break
        }
    }

    /// A bitmap with bit i set (LSB first) where `flags[i]` is true, when `written`.
    private mutating func nulls(_ flags: [Bool], if written: Bool) {
        guard written, !flags.isEmpty else { return }
        var map = [UInt8](repeating: 0, count: (flags.count + 7) / 8)
        for (i, flag) in flags.enumerated() where flag { map[i / 8] |= 1 << UInt8(i % 8) }
        bytes.append(contentsOf: map)
    }
}
