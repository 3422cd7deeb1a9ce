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
}
