/// Builds a `String` of up to 15 ASCII bytes directly in Swift's small-string form: two words,
/// the bytes in order, then `0xE0 | count` in the last byte.
///
/// The standard initializers spend about 200 instructions on a short string (a generic
/// closure, a validation pass, the small-string checks); this spends about 20. It is the
/// stdlib's fixed layout on 64-bit little-endian platforms (`SmallASCIITests` checks it for
/// every length); elsewhere ``make(_:)`` returns `nil` and callers take the standard path.
enum SmallASCII {
    /// The string `bytes` spell, if there are at most 15 and all are ASCII; else `nil`.
    @inline(__always)
    static func make(_ bytes: UnsafeRawBufferPointer) -> String? {
        #if _pointerBitWidth(_64) && _endian(little) && (arch(x86_64) || arch(arm64))
            let count = bytes.count
            guard count <= 15 else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            if count > 0 {
                withUnsafeMutableBytes(of: &words) {
                    $0.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: count)
                }
            }
            guard (words.0 | words.1) & 0x8080_8080_8080_8080 == 0 else { return nil }
            words.1 |= UInt64(0xE0 | count) &<< 56
            return unsafeBitCast(words, to: String.self)
        #else
            return nil
        #endif
    }

    /// ``make(_:)`` of the `count` bytes at `start` in `buffer`, read as two whole words from
    /// the 16 bytes that start there, or else from the 16 that end where the string does
    /// (no copy through memory, whose narrower stores the word loads would wait for); `nil`
    /// when they are more than 15 or not all ASCII.
    /// - Precondition: `start + count <= buffer.count`.
    @inline(__always)
    static func make(_ buffer: UnsafeRawBufferPointer, start: Int, count: Int) -> String? {
        #if _pointerBitWidth(_64) && _endian(little) && (arch(x86_64) || arch(arm64))
            guard count <= 15 else { return nil }
            var first: UInt64
            var second: UInt64
            if buffer.count - start >= 16 {
                let base = buffer.baseAddress.unsafelyUnwrapped + start
                first = base.loadUnaligned(as: UInt64.self)
                second = base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                // Keeps the string's bytes: `count` low bytes across the two words.
                let bits = UInt64(count) &* 8
                if count < 8 {
                    first &= count == 0 ? 0 : ~0 &>> (64 &- bits)
                    second = 0
                } else {
                    second &= count == 8 ? 0 : ~0 &>> (128 &- bits)
                }
            } else if start + count >= 16, count > 0 {
                // The 16 bytes before the string's end, shifted down past those before it.
                let base = buffer.baseAddress.unsafelyUnwrapped + (start + count - 16)
                let low = base.loadUnaligned(as: UInt64.self)
                let high = base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                let shift = UInt64(16 - count) &* 8  // 8…120
                if shift >= 64 {
                    first = high &>> (shift &- 64)
                    second = 0
                } else {
                    first = low &>> shift | high &<< (64 &- shift)
                    second = high &>> shift
                }
            } else {
                return make(UnsafeRawBufferPointer(rebasing: buffer[start..<start + count]))
            }
            guard (first | second) & 0x8080_8080_8080_8080 == 0 else { return nil }
            second |= UInt64(0xE0 | count) &<< 56
            return unsafeBitCast((first, second), to: String.self)
        #else
            return nil
        #endif
    }
}
