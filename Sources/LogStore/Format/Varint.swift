/// LEB128 unsigned varints (FORMAT.md, "Conventions"): 7 bits a byte, low group first, high bit set
/// on every byte but the last; at most 10 bytes, and a 10th byte holds only the top bit of a
/// `UInt64` (0 or 1). The one varint codec of the package: the engine's records and hints and the
/// object layer's records all use it. (`@usableFromInline` so that other modules inline its
/// `@inlinable` members: see ``RadixSort``.)
@usableFromInline package enum Varint {
    /// The longest encoding.
    package static let maxSize = 10

    /// Writes `value`'s encoding at `pointer` (which has room for ``maxSize`` bytes); returns
    /// the number of bytes written.
    @inline(__always)
    @inlinable package static func write(_ value: UInt64, to pointer: UnsafeMutableRawPointer)
        -> Int
    {
        var v = value
        var n = 0
        while v >= 0x80 {
            pointer.storeBytes(
                of: UInt8(truncatingIfNeeded: v) | 0x80, toByteOffset: n, as: UInt8.self)
            v >>= 7
            n += 1
        }
        pointer.storeBytes(of: UInt8(v), toByteOffset: n, as: UInt8.self)
        return n + 1
    }

    /// Appends `value`'s encoding to `bytes`.
    @inline(__always)
    @inlinable package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        // Byte by byte: an append of a few bytes is cheaper than `append(contentsOf:)` (about
        // 100 instructions for a 3-byte varint).
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Number of bytes `value` encodes to.
    @inline(__always)
    @inlinable package static func size(_ value: UInt64) -> Int {
        var n = 1
        var v = value
        while v >= 0x80 {
            v >>= 7
            n += 1
        }
        return n
    }

    /// Decodes a varint from `buffer` at `offset`, advancing it. Returns `nil` (and leaves
    /// `offset` alone) if the buffer ends first, or the encoding is longer than 10 bytes or
    /// overflows 64 bits.
    @inline(__always)
    @inlinable package static func read(_ buffer: UnsafeRawBufferPointer, _ offset: inout Int)
        -> UInt64?
    {
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

    /// ``readTrusted(_:)`` that reads at most 10 bytes: `-1` if they all have the continuation
    /// bit (not a varint). For bytes that may not be a record header at all.
    @inline(__always)
    static func readBounded(_ pointer: inout UnsafeRawPointer) -> Int {
        let first = pointer.load(as: UInt8.self)
        pointer += 1
        if first < 0x80 { return Int(first) }
        var result = Int(first & 0x7F)
        var shift = 7
        while shift < 70 {
            let byte = pointer.load(as: UInt8.self)
            pointer += 1
            result |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        return -1
    }

    /// Decodes a varint at `pointer`, advancing it, without any check: only for bytes this
    /// package wrote or has already decoded with ``read(_:_:)`` (a trusted record).
    @inline(__always)
    static func readTrusted(_ pointer: inout UnsafeRawPointer) -> Int {
        let first = pointer.load(as: UInt8.self)
        pointer += 1
        if first < 0x80 { return Int(first) }  // the usual case: one byte
        var result = Int(first & 0x7F)
        var shift = 7
        while true {
            let byte = pointer.load(as: UInt8.self)
            pointer += 1
            result |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }
}
