#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scans of text bytes that parsers and the text index share, eight bytes at a time: a byte
/// loop is the cost of reading a long string (an imported note of 16 KiB, say).
///
/// `@usableFromInline` so that other modules inline its members (see ``RadixSort``): the
/// `employees` tool's table checks two strings of every row.
@usableFromInline package enum ASCIIScan {
    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether every byte of `bytes` is ASCII (below 0x80).
    @inlinable package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        var seen: UInt64 = 0
        while i + 8 <= count {
            seen |= base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            seen |= UInt64(base.load(fromByteOffset: i, as: UInt8.self))
            i += 1
        }
        return seen & highs == 0
    }

    /// ``isASCII(_:)`` of typed bytes.
    @inlinable package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isASCII(UnsafeRawBufferPointer(bytes))
    }

    /// Whether every byte of `bytes` is printable ASCII, space (0x20) to `~` (0x7E): text that
    /// is its own display form, one column a byte.
    @inlinable package static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        // The top bit of a byte below 0x20 (after subtracting 0x20), of 0x7F (after adding 1)
        // or of 0x80 and up. A borrow or carry between bytes starts only at such a byte.
        @inline(__always) func outside(_ word: UInt64) -> UInt64 {
            (word &- ones &* 0x20) | (word &+ ones) | word
        }
        guard count >= 8 else {
            // The bytes below spaces: no branch per byte (a name or a designation is short).
            var word = ones &* 0x20
            for i in 0..<count { word = word << 8 | UInt64(base[i]) }
            return outside(word) & highs == 0
        }
        var i = 0
        var seen: UInt64 = 0
        while i + 8 <= count {
            seen |= outside(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        // The last eight bytes, overlapping those already read.
        if i < count {
            seen |= outside(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        return seen & highs == 0
    }

    /// The offset of the first `byte` in `bytes`, or `nil`.
    @inlinable package static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>)
        -> Int?
    {
        guard let base = bytes.baseAddress, let found = memchr(base, Int32(byte), bytes.count)
        else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    /// The offset of the first byte of `bytes` at or after `start` that is a quote (`"`), a
    /// backslash or a control character (below 0x20): where a JSON string's plain run ends.
    /// `nil` if there is none.
    @inlinable package static func firstQuoteBackslashOrControl(
        in bytes: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var i = start
        while i + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            // A byte below 0x20 (the top bit of ~word keeps bytes of 0x80 and up out), or one
            // equal to 0x22 or 0x5C (a zero byte after the XOR).
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let found =
                ((word &- ones &* 0x20) | (quote &- ones) & ~quote | (backslash &- ones)
                    & ~backslash)
                & ~word & highs
            if found != 0 { break }
            i += 8
        }
        while i < count {
            let c = base[i]
            if c == 0x22 || c == 0x5C || c < 0x20 { return i }
            i += 1
        }
        return nil
    }
}
