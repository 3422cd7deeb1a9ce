import Foundation

/// The ordered form of a `Decimal` (FORMAT.md Part 2, "Values" and "Index entries"): bytes
/// whose `memcmp` order is the decimals' order, equal exactly for equal decimals (1.5 and 1.50
/// have the same bytes), and self-delimiting.
///
/// ```
/// decimal := 0x01                              // NaN (before every number, as Foundation orders it)
///          | 0x02 ~positive(-x)                // a negative x: the form of -x, every byte inverted
///          | 0x03                              // zero
///          | 0x04 positive(x)                  // a positive x
/// positive(x) := exponent: u16 big-endian,     // E + 32768, where x = 0.d1 d2 … dn × 10^E, d1 ≠ 0, dn ≠ 0
///                pair…,                        // the digits two at a time: 1 + 10 × d(2i-1) + d(2i)
///                                              // (a last odd digit pairs with 0)
///                0x00                          // end
/// ```
enum DecimalBytes {
    static let nanTag: UInt8 = 1
    static let negativeTag: UInt8 = 2
    static let zeroTag: UInt8 = 3
    static let positiveTag: UInt8 = 4
    /// The longest form: a tag, the exponent, 20 pairs (Decimal has at most 39 digits) and the end.
    static let maxCount = 24

    /// Appends the ordered form of `value`.
    static func append(_ value: Decimal, to out: inout [UInt8]) {
        if value.isNaN {
            out.append(nanTag)
            return
        }
        guard let (negative, digits, exponent) = digits(of: value) else {
            out.append(zeroTag)
            return
        }
        out.append(negative ? negativeTag : positiveTag)
        let start = out.count
        let biased = UInt16(truncatingIfNeeded: exponent + 32768)
        out.append(UInt8(biased >> 8))
        out.append(UInt8(biased & 0xFF))
        var i = 0
        while i < digits.count {
            let high = digits[i]
            let low = i + 1 < digits.count ? digits[i + 1] : 0
            out.append(1 + 10 * high + low)
            i += 2
        }
        out.append(0)
        if negative {
            for j in start..<out.count { out[j] = ~out[j] }
        }
    }

    /// The sign, the digits d1…dn (no leading or trailing zero) and E of `value` = ±0.d1…dn ×
    /// 10^E; `nil` for zero (and NaN).
    private static func digits(of value: Decimal) -> (Bool, [UInt8], Int)? {
        if value.isNaN || value.isZero { return nil }
        // `description` is plain positional notation with every digit of the value.
        let text = value.description.utf8
        var negative = false
        var all: [UInt8] = []
        var point: Int?
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): negative = true
            case UInt8(ascii: "."): point = all.count
            case UInt8(ascii: "0")...UInt8(ascii: "9"): all.append(byte - UInt8(ascii: "0"))
            default: continue
            }
        }
        var exponent = point ?? all.count
        var first = 0
        while first < all.count && all[first] == 0 {
            first += 1
            exponent -= 1
        }
        var last = all.count
        while last > first && all[last - 1] == 0 { last -= 1 }
        guard first < last else { return nil }
        return (negative, Array(all[first..<last]), exponent)
    }

    /// The decimal whose ordered form is `bytes` exactly, or `nil` if they are not one.
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Decimal? {
        guard let tag = bytes.first else { return nil }
        switch tag {
        case nanTag: return bytes.count == 1 ? Decimal.nan : nil
        case zeroTag: return bytes.count == 1 ? Decimal(0) : nil
        case positiveTag, negativeTag:
            let negative = tag == negativeTag
            let body = bytes.dropFirst().map { negative ? ~$0 : $0 }
            guard body.count >= 4, body.count <= maxCount - 1, body.last == 0 else { return nil }
            let exponent = (Int(body[0]) << 8 | Int(body[1])) - 32768
            var digits: [UInt8] = []
            for pair in body[2..<(body.count - 1)] {
                guard pair >= 1 && pair <= 100 else { return nil }
                digits.append((pair - 1) / 10)
                digits.append((pair - 1) % 10)
            }
            if digits.last == 0 { digits.removeLast() }
            guard let first = digits.first, first != 0, digits.last != 0 else { return nil }
            var significand = Decimal(0)
            var chunk: UInt64 = 0
            var chunkDigits = 0
            for digit in digits {
                chunk = chunk * 10 + UInt64(digit)
                chunkDigits += 1
                if chunkDigits == 18 {
                    significand = significand * Decimal(1_000_000_000_000_000_000) + Decimal(chunk)
                    chunk = 0
                    chunkDigits = 0
                }
            }
            if chunkDigits > 0 {
                var scale: UInt64 = 1
                for _ in 0..<chunkDigits { scale *= 10 }
                significand = significand * Decimal(scale) + Decimal(chunk)
            }
            let power = exponent - digits.count
            guard power >= -128 && power <= 127 else { return nil }
            let value = Decimal(
                sign: negative ? .minus : .plus, exponent: power, significand: significand)
            return value.isNaN ? nil : value
        default: return nil
        }
    }

    /// How many bytes the ordered form at the start of `bytes` takes (its tag, and for a
    /// nonzero number up to its end byte), or `nil` if it is cut short.
    static func length(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let tag = bytes.first else { return nil }
        switch tag {
        case nanTag, zeroTag: return 1
        case positiveTag, negativeTag:
            let end: UInt8 = tag == negativeTag ? 0xFF : 0
            var i = 3
            while i < bytes.count && i < maxCount {
                if bytes[i] == end { return i + 1 }
                i += 1
            }
            return nil
        default: return nil
        }
    }
}
