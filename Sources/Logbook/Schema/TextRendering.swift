import Foundation

/// The byte-level pieces of ``AttributeValue/TextFormat``: they append UTF-8 to a buffer, so
/// a tool writing a million values builds no string per value.
@usableFromInline package enum TextRendering {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Appends the UTF-8 of `text`.
    @inline(__always)
    static func append(_ text: StaticString, to output: inout [UInt8]) {
        output.append(
            contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` in decimal, `-` first when negative.
    @inline(__always)
    static func appendDecimal(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(
                contentsOf: UnsafeBufferPointer(
                    start: digits.baseAddress! + start, count: digits.count - start))
        }
    }

    /// `text` as a JSON string, quotes included (escaped as ``escapeJSON(_:_:)`` says).
    static func appendJSONString(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendJSONString(utf8: $0, to: &output) }
    }

    /// ``appendJSONString(_:to:)`` of the string whose UTF-8 (valid) is `bytes`.
    @inline(__always)
    static func appendJSONString(utf8 bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        escapeJSON(bytes) { run, escape in
            output.append(contentsOf: run)
            output.append(contentsOf: escape)
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The package's one JSON string escaper: calls `body` with each run of `bytes` that is
    /// copied as it is, and the escape of what ended it: `\"`, `\\`, `\n`, `\r`, `\t`, or
    /// `\u00xx` for the other characters below U+0020 and U+007F–U+009F. The last run comes with
    /// an empty escape. `bytes` must be valid UTF-8 (a `String`'s).
    @inlinable
    package static func escapeJSON(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (_ run: UnsafeRawBufferPointer, _ escape: UnsafeRawBufferPointer) -> Void
    ) {
        let raw = UnsafeRawBufferPointer(bytes)
        var run = 0
        var i = 0
        while i < bytes.count {
            // Eight bytes at a time past the bytes that are copied as they are.
            while i + 8 <= bytes.count,
                !mayNeedEscape(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            {
                i += 8
            }
            guard i < bytes.count else { break }
            let byte = bytes[i]
            // Invariant: `bytes` is valid UTF-8, so 0xC2 starts U+0080–U+00BF.
            let c1 = byte == 0xC2 && i + 1 < bytes.count && bytes[i + 1] < 0xA0
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || c1 else {
                i += 1
                continue
            }
            var escape: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x5C, byte, 0, 0, 0, 0)
            var length = 2
            switch byte {
            case 0x22, 0x5C: break
            case 0x0A: escape.1 = UInt8(ascii: "n")
            case 0x0D: escape.1 = UInt8(ascii: "r")
            case 0x09: escape.1 = UInt8(ascii: "t")
            default:
                let scalar = c1 ? bytes[i + 1] : byte
                escape = (0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex(scalar >> 4), hex(scalar & 15))
                length = 6
            }
            withUnsafeBytes(of: &escape) {
                body(
                    UnsafeRawBufferPointer(rebasing: raw[run..<i]),
                    UnsafeRawBufferPointer(rebasing: $0[..<length]))
            }
            i += c1 ? 2 : 1
            run = i
        }
        body(
            UnsafeRawBufferPointer(rebasing: raw[run...]),
            UnsafeRawBufferPointer(rebasing: raw[0..<0]))
    }

    /// Whether any of the eight bytes of `word` is one ``escapeJSON(_:_:)`` may escape: below
    /// 0x20, `"`, `\\`, 0x7F, or 0xC2 (which may start U+0080–U+009F). Never false when one is.
    @inlinable
    package static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte of `x` is zero, or (with `ones &* n`, n ≤ 0x80) below n: exact for "any".
        func anyBelow(_ x: UInt64, _ n: UInt64) -> Bool { (x &- ones &* n) & ~x & highs != 0 }
        return anyBelow(word, 0x20) || anyBelow(word ^ (ones &* 0x22), 1)
            || anyBelow(word ^ (ones &* 0x5C), 1) || anyBelow(word ^ (ones &* 0x7F), 1)
            || anyBelow(word ^ (ones &* 0xC2), 1)
    }

    /// The lower-case hex digit of `value` (0–15).
    @inlinable
    package static func hex(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x57 + value }

    /// `text` as a CSV field: as is, or in double quotes with quotes doubled when it holds a
    /// comma, a quote, CR or LF.
    static func appendCSVField(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendCSVField(utf8: $0, to: &output) }
    }

    /// ``appendCSVField(_:to:)`` of the string whose UTF-8 is `bytes`.
    static func appendCSVField(utf8 bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        // An empty string is quoted, so that it is not the empty field of a null.
        let needsQuotes =
            bytes.isEmpty
            || bytes.contains {
                $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
            }
        if needsQuotes {
            appendQuoted(bytes, quote: UInt8(ascii: "\""), to: &output)
        } else {
            output.append(contentsOf: bytes)
        }
    }

    /// `text` as an SQL string literal: in single quotes, quotes doubled.
    static func appendSQLString(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendQuoted($0, quote: UInt8(ascii: "'"), to: &output) }
    }

    /// ``appendSQLString(_:to:)`` of the string whose UTF-8 is `bytes`.
    @inline(__always)
    static func appendSQLString(utf8 bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        appendQuoted(bytes, quote: UInt8(ascii: "'"), to: &output)
    }

    /// `bytes` between two `quote`s, each `quote` inside doubled: `memchr` finds the next quote
    /// and the run up to it is appended whole (a byte-at-a-time loop took seconds for a 48 MiB
    /// SQL export in a debug build).
    private static func appendQuoted(
        _ bytes: UnsafeBufferPointer<UInt8>, quote: UInt8, to output: inout [UInt8]
    ) {
        output.append(quote)
        if let start = bytes.baseAddress {
            let end = start + bytes.count
            var run = start
            while run < end, let found = memchr(run, Int32(quote), end - run) {
                // The run up to and including the quote, then the quote once more.
                let next = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) + 1
                output.append(contentsOf: UnsafeBufferPointer(start: run, count: next - run))
                output.append(quote)
                run = next
            }
            output.append(contentsOf: UnsafeBufferPointer(start: run, count: end - run))
        }
        output.append(quote)
    }

    /// Lower-case hex, two digits a byte.
    static func appendHex(_ data: Data, to output: inout [UInt8]) {
        data.withUnsafeBytes { bytes in
            // Short data (keys) is written in one append from the stack.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * min(bytes.count, 256)) {
                digits in
                var start = 0
                while start < bytes.count {
                    let end = min(start + digits.count / 2, bytes.count)
                    for (i, byte) in bytes[start..<end].enumerated() {
                        digits[2 * i] = hexDigits[Int(byte >> 4)]
                        digits[2 * i + 1] = hexDigits[Int(byte & 15)]
                    }
                    output.append(contentsOf: digits[..<(2 * (end - start))])
                    start = end
                }
            }
        }
    }

    /// `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, as `UUID.uuidString` writes it.
    static func appendUUID(_ uuid: UUID, to output: inout [UInt8]) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (i, byte) in bytes.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { output.append(UInt8(ascii: "-")) }
                output.append(upperHexDigits[Int(byte >> 4)])
                output.append(upperHexDigits[Int(byte & 15)])
            }
        }
    }

    /// `2024-05-01T12:00:00Z`, or `2024-05-01T12:00:00.250Z` when the date has a fraction of a
    /// second (milliseconds, truncated).
    static func iso8601(_ date: Date) -> String {
        let hasFraction = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) != 0
        return hasFraction ? date.formatted(fractionalStyle) : date.formatted(.iso8601)
    }

    private static let fractionalStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Parses ISO 8601 with or without fractional seconds.
    static func parseISO8601(_ text: String) -> Date? {
        if let date = try? fractionalStyle.parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// Parses hex (either case) with an even number of digits.
    static func parseHex(_ digits: some Collection<UInt8>) -> Data? {
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        var high: UInt8?
        for digit in digits {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }

    /// Parses a decimal number exactly: `[-+]digits[.digits][e[-+]digits]` (digits on at least
    /// one side of the point), or `nan` in any case; `nil` for anything else or a number out of
    /// `Decimal`'s range.
    static func parseDecimal(_ text: some StringProtocol) -> Decimal? {
        if text.lowercased() == "nan" { return Decimal.nan }
        var digits = 0
        var sawPoint = false
        var sawExponent = false
        var exponentDigits = 0
        var previous: UInt8 = 0
        for (i, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if sawExponent { exponentDigits += 1 } else { digits += 1 }
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard i == 0 || previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E")
                else { return nil }
            case UInt8(ascii: "."):
                guard !sawPoint, !sawExponent else { return nil }
                sawPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard !sawExponent, digits > 0 else { return nil }
                sawExponent = true
            default: return nil
            }
            previous = byte
        }
        guard digits > 0, !sawExponent || exponentDigits > 0, digits <= 200, exponentDigits <= 4
        else { return nil }
        guard let value = Decimal(string: String(text), locale: nil), !value.isNaN else {
            return nil
        }
        return value
    }
}
