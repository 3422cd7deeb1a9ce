/// LEB128 unsigned varints (FORMAT.md, "Conventions"): 7 bits a byte, low group first, high bit set
/// on every byte but the last; at most 10 bytes.
package enum Varint {
    /// Appends `value`'s encoding to `bytes`.
    @inline(__always)
    @inlinable package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Number of bytes `value` encodes to.
    @inline(__always)
    static func size(_ value: UInt64) -> Int {
        var n = 1
        var v = value
        while v >= 0x80 {
            v >>= 7
            n += 1
        }
        return n
    }

    /// Decodes a varint from `buffer` at `offset`, advancing it. Returns `nil` if the buffer ends
    /// first or the encoding is longer than 10 bytes or overflows 64 bits.
    @inline(__always)
    static func read(_ buffer: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var i = offset
        while i < buffer.count {
            let byte = buffer[i]
            i += 1
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                offset = i
                return result
            }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }
}
