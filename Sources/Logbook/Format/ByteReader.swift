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
        let utf8 = try lengthPrefixed()
        if let ascii = SmallASCII.make(utf8) { return ascii }
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

    /// Skips one value of `type` without building it.
    @inline(__always)
    mutating func skip(_ type: AttributeType) throws {
        switch type {
        case .string, .data: _ = try lengthPrefixed()
        case .integer: _ = try varint()
        case .double, .date:
            guard buffer.count - offset >= 8 else { throw Truncated() }
            offset += 8
        case .bool: _ = try byte()
        case .uuid:
            guard buffer.count - offset >= 16 else { throw Truncated() }
            offset += 16
        }
    }

    /// One value of `type`.
    mutating func value(_ type: AttributeType) throws -> AttributeValue {
        switch type {
        case .string: return .string(try string())
        case .integer: return .integer(try zigzag())
        case .double: return .double(try double())
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
        }
    }
}
