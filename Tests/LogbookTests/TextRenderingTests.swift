import Foundation
import Logbook
import TestSupport
import Testing

/// `TextRendering.escapeJSON`, which skips eight bytes at a time past what it copies as it is,
/// escapes exactly what a scalar-by-scalar escaper does, wherever in the text the characters
/// that need it fall.
@Suite struct TextRenderingTests {
    /// The JSON escape of `text`, one scalar at a time.
    static func reference(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F...0x9F: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func escaped(_ text: String) -> String {
        var output: [UInt8] = []
        var text = text
        text.withUTF8 { bytes in
            TextRendering.escapeJSON(bytes) { run, escape in
                output.append(contentsOf: run)
                output.append(contentsOf: escape)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    @Test func escapesWhatAScalarByScalarEscaperDoes() {
        var rng = SeededGenerator(seed: testSeed("escapeJSON"))
        let palette: [Unicode.Scalar] = [
            "a", "Z", " ", "~", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}",
            "\u{80}", "\u{9F}", "\u{A0}", "\u{BF}", "é", "\u{100}", "€", "😀",
        ]
        for _ in 0..<4_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...40, using: &rng) {
                // Mostly plain runs, so that whole words are skipped and special bytes fall at
                // every offset of a word.
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    text.unicodeScalars.append(palette.randomElement(using: &rng)!)
                } else {
                    text += String(repeating: "x", count: Int.random(in: 1...9, using: &rng))
                }
            }
            let expected = Self.reference(text)
            #expect(Self.escaped(text) == expected, "\(Array(text.utf8))")
            if Self.escaped(text) != expected { return }
        }
    }

    @Test func aWordIsSkippedOnlyWhenNoneOfItsBytesNeedsEscaping() {
        for special: UInt8 in [0x00, 0x1F, 0x22, 0x5C, 0x7F, 0xC2] {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = special
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(TextRendering.mayNeedEscape(word), "\(special) at \(position)")
            }
        }
        for plain: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x80, 0xC1, 0xC3, 0xFF] {
            let word = UInt64(plain) &* 0x0101_0101_0101_0101
            #expect(!TextRendering.mayNeedEscape(word), "\(plain)")
        }
    }
}
