import Foundation
import Logbook
import TestSupport
import Testing

/// `AttributeValue.appendString(utf8:as:to:)`, which writes a stored string's bytes without
/// building a `String`, writes what the decoded string writes, in every format, for any bytes.
@Suite struct StoredStringRenderingTests {
    static func expectSame(_ bytes: [UInt8], _ comment: String) {
        for format in [AttributeValue.TextFormat.json, .csv, .sql] {
            var decoded: [UInt8] = []
            AttributeValue.string(String(decoding: bytes, as: UTF8.self)).append(
                as: format, to: &decoded)
            var stored: [UInt8] = []
            bytes.withUnsafeBytes { AttributeValue.appendString(utf8: $0, as: format, to: &stored) }
            #expect(stored == decoded, "\(format) of \(bytes) (\(comment))")
        }
    }

    @Test func writesWhatTheDecodedStringWrites() {
        let texts = [
            "", "plain", "a,b", "\"quoted\"", "O'Brien", "''", "line\nbreak", "cr\r", "tab\t",
            "\u{01}\u{1F}\u{7F}", "back\\slash", "caf\u{E9}", "\u{85}\u{9F}\u{A0}", "\u{1F600}",
            String(repeating: "0123456789abcdef,'\"", count: 9),
        ]
        for text in texts { Self.expectSame(Array(text.utf8), text) }
    }

    @Test func repairsBytesThatAreNotUTF8AsTheDecoderDoes() {
        Self.expectSame([0xFF], "a lone 0xFF")
        Self.expectSame([0x61, 0xC3], "a cut two-byte sequence")
        Self.expectSame([0xC2, 0x22], "0xC2 before a quote")
        Self.expectSame([0xED, 0xA0, 0x80], "a surrogate")
        var rng = SeededGenerator(seed: 0x7374_7269_6E67)
        for round in 0..<500 {
            let count = Int(rng.next() % 24)
            // Mostly bytes that need escaping or quoting, some above 0x7F.
            let alphabet: [UInt8] = [
                0x00, 0x0A, 0x22, 0x27, 0x2C, 0x5C, 0x61, 0x7F, 0x80, 0xC2, 0xC3, 0xE2, 0xFF,
            ]
            let bytes = (0..<count).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            Self.expectSame(bytes, "round \(round), seed 0x7374_7269_6E67")
        }
    }
}
