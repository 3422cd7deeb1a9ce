import Foundation

/// How text becomes the terms of a text index and of a search (FORMAT.md Part 2, "Text index",
/// "Terms"): the same rules on both sides, so a search finds what it spells however the stored
/// text spells it.
///
/// - Text is read in its compatibility decomposition (NFKD): "ﬁ" is "fi", "Ａ" is "A", and a
///   precomposed "é" reads as "e" and an accent, as a decomposed one does.
/// - A term is a run of letters and digits (Unicode general categories L and N), with the
///   combining marks that follow them; anything else separates terms.
/// - Han ideographs, Hiragana and Katakana are written without spaces between words: each such
///   character is a term of its own (with its marks), so "北京大学" is four terms; a search
///   for "北京" asks for its two characters next to each other.
/// - Diacritics are dropped: the combining marks of the Combining Diacritical Marks blocks,
///   Hebrew points and Arabic harakat. Letters that carry a stroke or are ligatures with no
///   decomposition are spelled out: ø → o, æ → ae, œ → oe, ł → l, đ and ð → d, þ → th, ħ → h,
///   ŧ → t.
/// - Case is folded: each character is lowercased, uppercased and lowercased again (so
///   "ß" and "ẞ" are "ss", "ς" and "Σ" are "σ", "İ" and "I" are "i").
/// - A term longer than ``maxTermBytes`` bytes of UTF-8 is cut to that length, at a character
///   boundary.
///
/// So "José" and "jose" are the term `jose`, "Müller" is `muller`, "O'Brien" is `o` and
/// `brien`. Terms never hold the byte 0. Stateless; `Sendable`.
enum TextTokenizer {
    /// The longest term, in bytes of UTF-8.
    static let maxTermBytes = 128

    /// Calls `body` with each term of `text` (its UTF-8 bytes, valid only during the call) and
    /// its position: `position`, then one more for each term. Returns the position after the
    /// last term.
    @discardableResult
    static func forEachTerm(
        in text: String, from position: Int, _ body: (UnsafeRawBufferPointer, Int) throws -> Void
    ) rethrows -> Int {
        var text = text
        if let next = try text.withUTF8({
            try forEachASCIITerm(UnsafeRawBufferPointer($0), from: position, body)
        }) {
            return next
        }
        return try forEachUnicodeTerm(in: text, from: position, body)
    }

    /// ``forEachTerm(in:from:_:)`` of the text whose UTF-8 is `utf8` (as a record holds it).
    @discardableResult
    static func forEachTerm(
        utf8: UnsafeRawBufferPointer, from position: Int,
        _ body: (UnsafeRawBufferPointer, Int) throws -> Void
    ) rethrows -> Int {
        if let next = try forEachASCIITerm(utf8, from: position, body) { return next }
        return try forEachUnicodeTerm(
            in: String(decoding: utf8, as: UTF8.self), from: position, body)
    }

    /// The terms of ASCII text, straight from its bytes; `nil` (and no call) if it is not ASCII.
    @inline(__always)
    private static func forEachASCIITerm(
        _ bytes: UnsafeRawBufferPointer, from position: Int,
        _ body: (UnsafeRawBufferPointer, Int) throws -> Void
    ) rethrows -> Int? {
        guard ASCIIScan.isASCII(bytes) else { return nil }
        var next = position
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxTermBytes) { term in
            var count = 0
            func flush() throws {
                guard count > 0 else { return }
                try body(UnsafeRawBufferPointer(start: term.baseAddress, count: count), next)
                next += 1
                count = 0
            }
            for byte in bytes {
                let folded: UInt8
                switch byte {
                case 0x30...0x39, 0x61...0x7A: folded = byte
                case 0x41...0x5A: folded = byte | 0x20
                default:
                    try flush()
                    continue
                }
                // Bytes past the longest term are dropped (ASCII: one byte, one character).
                if count < maxTermBytes {
                    term[count] = folded
                    count += 1
                }
            }
            try flush()
        }
        return next
    }

    private static func forEachUnicodeTerm(
        in text: String, from position: Int, _ body: (UnsafeRawBufferPointer, Int) throws -> Void
    ) rethrows -> Int {
        var next = position
        var term = String.UnicodeScalarView()
        var single = false
        func flush() throws {
            guard !term.isEmpty else { return }
            var bytes = Array(String(folded(term)).utf8)
            term = String.UnicodeScalarView()
            single = false
            guard !bytes.isEmpty else { return }
            if bytes.count > maxTermBytes {
                var end = maxTermBytes
                // Back to the start of a character (not a continuation byte).
                while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
                bytes.removeLast(bytes.count - end)
            }
            try bytes.withUnsafeBytes { try body($0, next) }
            next += 1
        }
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            switch kind(of: scalar) {
            case .mark:
                if !term.isEmpty && !isDiacritic(scalar) { term.append(scalar) }
            case .standalone:
                try flush()
                term.append(scalar)
                single = true
            case .letter:
                if single { try flush() }
                term.append(scalar)
            case .separator:
                try flush()
            }
        }
        try flush()
        return next
    }

    /// The terms of `text`, in order (positions from 0).
    static func terms(of text: String) -> [[UInt8]] {
        var terms: [[UInt8]] = []
        forEachTerm(in: text, from: 0) { term, _ in terms.append(Array(term)) }
        return terms
    }

    private enum Kind {
        case letter, mark, standalone, separator
    }

    private static func kind(of scalar: Unicode.Scalar) -> Kind {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter,
            .otherLetter:
            return isStandalone(scalar) ? .standalone : .letter
        case .decimalNumber, .letterNumber, .otherNumber:
            return .letter
        case .nonspacingMark, .spacingMark, .enclosingMark:
            return .mark
        default:
            return .separator
        }
    }

    /// Han ideographs, Hiragana and Katakana: one term per character.
    private static func isStandalone(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: return true
        default: return scalar.properties.isIdeographic
        }
    }

    /// The combining marks a search ignores (after NFKD, these are the accents of Latin, Greek
    /// and Cyrillic letters, and the vowel points of Hebrew and Arabic).
    private static func isDiacritic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
            0x0591...0x05BD, 0x05BF, 0x05C1...0x05C2, 0x05C4...0x05C5, 0x05C7,
            0x0610...0x061A, 0x064B...0x065F, 0x0670:
            return true
        default:
            return false
        }
    }

    /// A term's characters with strokes spelled out and case folded.
    private static func folded(_ term: String.UnicodeScalarView) -> String.UnicodeScalarView {
        var result = String.UnicodeScalarView()
        for scalar in term {
            if scalar.isASCII {
                let value = UInt8(scalar.value)
                result.append(Unicode.Scalar(value >= 0x41 && value <= 0x5A ? value | 0x20 : value))
                continue
            }
            if let spelled = spelledOut(scalar) {
                result.append(contentsOf: spelled.unicodeScalars)
                continue
            }
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                for upper in lower.properties.uppercaseMapping.unicodeScalars {
                    for folded in upper.properties.lowercaseMapping.unicodeScalars
                    where !isDiacritic(folded) {
                        result.append(folded)
                    }
                }
            }
        }
        return result
    }

    private static func spelledOut(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "ø", "Ø": return "o"
        case "æ", "Æ": return "ae"
        case "œ", "Œ": return "oe"
        case "ł", "Ł": return "l"
        case "đ", "Đ", "ð", "Ð": return "d"
        case "þ", "Þ": return "th"
        case "ħ", "Ħ": return "h"
        case "ŧ", "Ŧ": return "t"
        default: return nil
        }
    }
}
