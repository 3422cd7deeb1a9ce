import Foundation
import LogStore

/// Reads the primitive encodings of FORMAT.md Part 2 from a buffer, checking every length
/// against what is left. Never reads outside the buffer; every failure is `nil` or a thrown
/// ``ByteReader/Truncated``.
struct ByteReader {
    /// Thrown when the buffer ends early or a length is impossible.
    struct Truncated: Error {}

    let buffer: UnsafeRawBufferPointer
    var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    var isAtEnd: Bool { offset >= buffer.count }

    @inline(__always)
    mutating func byte() throws -> UInt8 {
        guard offset < buffer.count else { throw Truncated() }
        defer { offset += 1 }
        return buffer[offset]
    }

    /// A varint (the engine's one codec: at most 10 bytes, no overflow past 64 bits).
    @inline(__always)
    mutating func varint() throws -> UInt64 {
        // The usual one-byte case inline (the engine's reader is a call from this module).
        if offset < buffer.count {
            let first = buffer[offset]
            if first < 0x80 {
                offset &+= 1
                return UInt64(first)
            }
        }
        guard let value = Varint.read(buffer, &offset) else { throw Truncated() }
        return value
    }

    @inline(__always)
    mutating func zigzag() throws -> Int64 {
        let v = try varint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    @inline(__always)
    mutating func double() throws -> Double {
        guard buffer.count - offset >= 8 else { throw Truncated() }
        let bits = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return Double(bitPattern: UInt64(littleEndian: bits))
    }

    /// A length-prefixed run of bytes, as a slice of the buffer.
    @inline(__always)
    mutating func lengthPrefixed() throws -> UnsafeRawBufferPointer {
        let length = try varint()
        guard length <= UInt64(buffer.count - offset) else { throw Truncated() }
        let start = offset
        offset += Int(length)
        return UnsafeRawBufferPointer(rebasing: buffer[start..<offset])
    }

    @inline(__always)
    mutating func string() throws -> String {
        let length = try varint()
        guard length <= UInt64(buffer.count - offset) else { throw Truncated() }
        let start = offset
        offset += Int(length)
        if let ascii = SmallASCII.make(buffer, start: start, count: Int(length)) { return ascii }
        let utf8 = UnsafeRawBufferPointer(rebasing: buffer[start..<offset])
        if utf8.count <= 15 {
            // Built in place as a small string: ASCII needs no validation pass there (other
            // bytes are validated and repaired as `String(decoding:as:)` does).
            return String(unsafeUninitializedCapacity: utf8.count) { buffer in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: utf8)
                return utf8.count
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Skips one value of `type` without building it (an array's or set's whole encoding; the
    /// marker of an entity's composite takes none).
    @inline(__always)
    mutating func skip(_ type: AttributeType) throws {
        switch type {
        case .string, .data, .url, .decimal, .array, .set: _ = try lengthPrefixed()
        case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32, .uint64: _ = try varint()
        case .double, .date:
            guard buffer.count - offset >= 8 else { throw Truncated() }
            offset += 8
        case .float:
            guard buffer.count - offset >= 4 else { throw Truncated() }
            offset += 4
        case .bool: _ = try byte()
        case .uuid:
            guard buffer.count - offset >= 16 else { throw Truncated() }
            offset += 16
        case .composite: break
        }
    }

    /// One value of the scalar type `type` (for an array or set, see ``value(_:)-(ValueShape)``;
    /// an entity's composite attribute reads as present).
    mutating func value(_ type: AttributeType) throws -> AttributeValue {
        switch type {
        case .string: return .string(try string())
        case .integer: return .integer(try zigzag())
        case .int8, .int16, .int32, .uint8, .uint16, .uint32:
            let v = try zigzag()
            // Invariant: integerRange is set for these types.
            guard type.integerRange!.contains(v) else { throw Truncated() }
            return .integer(v)
        case .uint64: return .unsigned(try varint())
        case .double: return .double(try double())
        case .float:
            guard buffer.count - offset >= 4 else { throw Truncated() }
            let bits = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            offset += 4
            return .float(Float(bitPattern: UInt32(littleEndian: bits)))
        case .decimal:
            guard let v = DecimalBytes.decimal(try lengthPrefixed()) else { throw Truncated() }
            return .decimal(v)
        case .url:
            let text = try string()
            guard URL(string: text) != nil else { throw Truncated() }
            return .string(text)
        case .bool:
            let b = try byte()
            guard b <= 1 else { throw Truncated() }
            return .bool(b == 1)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try double()))
        case .data: return .data(Data(try lengthPrefixed()))
        case .uuid:
            guard buffer.count - offset >= 16 else { throw Truncated() }
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + 16]))
            }
            offset += 16
            return .uuid(UUID(uuid: raw))
        case .composite: return .composite(.present)
        case .array, .set:
            // Invariant: callers read collections through their shape.
            throw Truncated()
        }
    }

    /// One value of `shape`.
    mutating func value(_ shape: ValueShape) throws -> AttributeValue {
        switch shape {
        case .scalar(let type): return try value(type)
        case .collection(let element, let optional, let isSet):
            var body = ByteReader(try lengthPrefixed())
            let count = try body.varint()
            // Every element takes at least a byte unless it is null or takes none.
            guard count <= UInt64(body.buffer.count) * 8 + 64 else { throw Truncated() }
            let nulls = try body.nulls(Int(count), if: optional)
            var items: [AttributeValue] = []
            items.reserveCapacity(Int(count))
            for i in 0..<Int(count) {
                if let nulls, nulls[i / 8] & (1 << UInt8(i % 8)) != 0 {
                    items.append(.null)
                } else {
                    items.append(try body.value(element))
                }
            }
            guard body.isAtEnd else { throw Truncated() }
            if isSet {
                // A set's elements are stored ascending, each once: anything else is damage.
                for (a, b) in zip(items, items.dropFirst())
                where AttributeValue.compare(a, b) != .orderedAscending {
                    throw Truncated()
                }
            }
            return .array(items)
        case .composite(let fields, let shapes, let optional):
            let optionalCount = optional.filter { $0 }.count
            let nulls = try self.nulls(optionalCount, if: optionalCount > 0)
            var values: [AttributeValue] = []
            values.reserveCapacity(shapes.count)
            var slot = 0
            for (shape, isOptional) in zip(shapes, optional) {
                if isOptional {
                    defer { slot += 1 }
                    if let nulls, nulls[slot / 8] & (1 << UInt8(slot % 8)) != 0 {
                        values.append(.null)
                        continue
                    }
                }
                values.append(try value(shape))
            }
            return .composite(CompositeValue(fields: fields, values: values))
        }
    }

    /// A bitmap of `count` bits, when `present`.
    private mutating func nulls(_ count: Int, if present: Bool) throws -> UnsafeRawBufferPointer? {
        guard present, count > 0 else { return nil }
        let bytes = (count + 7) / 8
        guard buffer.count - offset >= bytes else { throw Truncated() }
        defer { offset += bytes }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + bytes])
    }
}
