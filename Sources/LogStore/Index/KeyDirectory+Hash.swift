#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Key hashing and comparison of the table.
extension KeyDirectory {
    /// Whether two keys hold the same bytes.
    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// A fast 32-bit hash of short byte strings (8 bytes a step, then a splitmix64 finish).
    @inline(__always)
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(key.count &+ 1)
        var i = 0
        let n = key.count
        while i + 8 <= n {
            h = (h ^ key.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
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
        return UInt32(truncatingIfNeeded: h)
    }

    /// ``hash(_:)`` of the 8-byte big-endian encoding of `key`.
    @inline(__always)
    static func hash(bigEndianOf key: UInt64) -> UInt32 {
        var encoded = key.bigEndian
        return withUnsafeBytes(of: &encoded) { hash($0) }
    }
}
