import Foundation
import Logbook
import TestSupport
import Testing

/// The JSON (`jsonText`), CSV and SQL forms of values (`AttributeValue.TextFormat`, the tools')
/// and their plain text read back (`init(text:as:)`).
@Suite struct AttributeValueRenderingTests {
    private func all(_ value: AttributeValue) -> [String] {
        [value.jsonText, value.text(as: .csv), value.text(as: .sql)]
    }

    @Test func scalarsInEachFormat() {
        #expect(all(.null) == ["null", "", "NULL"])
        #expect(all(.integer(-42)) == ["-42", "-42", "-42"])
        #expect(
            all(.integer(.min)) == [
                "-9223372036854775808", "-9223372036854775808", "-9223372036854775808",
            ])
        #expect(
            all(.integer(.max)) == [
                "9223372036854775807", "9223372036854775807", "9223372036854775807",
            ])
        #expect(all(.bool(true)) == ["true", "true", "TRUE"])
        #expect(all(.bool(false)) == ["false", "false", "FALSE"])
        #expect(all(.double(2.5)) == ["2.5", "2.5", "2.5"])
        #expect(all(.double(2)) == ["2.0", "2.0", "2.0"])
        #expect(all(.double(1e20)) == ["1e+20", "1e+20", "1e+20"])
        #expect(all(.double(.nan)) == ["\"nan\"", "nan", "'nan'"])
        #expect(all(.double(-.infinity)) == ["\"-inf\"", "-inf", "'-inf'"])
        #expect(
            all(.data(Data([0x00, 0x01, 0xFE, 0xFF]))) == [
                "\"0001feff\"", "0001feff", "'0001feff'",
            ])
        #expect(all(.data(Data())) == ["\"\"", "", "''"])
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(
            all(.uuid(uuid)).map { $0.filter { $0 != "\"" && $0 != "'" } }
                == Array(repeating: uuid.uuidString, count: 3))
    }

    @Test func datesAreISO8601WithMillisecondsOnlyWhenThereAreSome() {
        let whole = Date(timeIntervalSince1970: 1_000_000_000)
        let fraction = Date(timeIntervalSince1970: 1_000_000_000.25)
        #expect(
            all(.date(whole)) == [
                "\"2001-09-09T01:46:40Z\"", "2001-09-09T01:46:40Z", "'2001-09-09T01:46:40Z'",
            ])
        #expect(AttributeValue.date(fraction).text(as: .csv) == "2001-09-09T01:46:40.250Z")
        for value in [whole, fraction] {
            #expect(
                AttributeValue(text: AttributeValue.date(value).text(as: .csv), as: .date)
                    == .date(value))
        }
    }

    @Test func stringsEscapedForJSONQuotedForCSVAndSQL() {
        let text = "O'Brien, \"Annie\"\nline\r\n\ttab \\ \u{01} \u{7F} \u{85} é 李 🦊"
        #expect(
            AttributeValue.string(text).text(as: .json)
                == #""O'Brien, \"Annie\"\nline\r\n\ttab \\ \u0001 \u007f \u0085 é 李 🦊""#)
        #expect(
            AttributeValue.string(text).text(as: .csv)
                == "\"O'Brien, \"\"Annie\"\"\nline\r\n\ttab \\ \u{01} \u{7F} \u{85} é 李 🦊\"")
        #expect(
            AttributeValue.string(text).text(as: .sql)
                == "'O''Brien, \"Annie\"\nline\r\n\ttab \\ \u{01} \u{7F} \u{85} é 李 🦊'")
        #expect(AttributeValue.string("plain").text(as: .csv) == "plain")
        #expect(AttributeValue.string("a\r\nb").text(as: .csv) == "\"a\r\nb\"")
        // An empty string is quoted: the empty field is a null's.
        #expect(AttributeValue.string("").text(as: .csv) == "\"\"")
    }

    /// The SQL and CSV quoting against the plain rule (each quote doubled, every other byte as
    /// it is): quotes at either end, together, and at every offset of a long run; NUL, control
    /// bytes, backslashes and multi-byte UTF-8 beside them; then random strings of those.
    @Test func quotesAreDoubledAndEveryOtherByteKept() {
        func quoted(_ text: String, _ quote: UInt8) -> String {
            let bytes =
                [quote] + text.utf8.flatMap { $0 == quote ? [quote, quote] : [$0] } + [quote]
            return String(decoding: bytes, as: UTF8.self)
        }
        var texts = [
            "", "'", "''", "'''", "'a", "a'", "\0'\0", "\\'\\", "é'李'🦊", "'🦊'",
            "\u{01}'\u{1F}'\u{7F}",
            "\"", "\"\"", "a\"", "\"a", "é\"李\"🦊,", "\0\"\0\r\n", "\u{85}'\u{85}",
        ]
        let long = "0123456789abcdefghijklmnopqrstuvwxyz é李🦊 \\ \0"
        for quote in ["'", "\""] {
            for offset in 0...long.count {
                var text = long
                text.insert(contentsOf: quote, at: text.index(text.startIndex, offsetBy: offset))
                texts += [text, text + quote + text]
            }
        }
        let seed = testSeed("quotesAreDoubledAndEveryOtherByteKept")
        var rng = SeededGenerator(seed: seed)
        let pieces = [
            "'", "''", "\"", ",", "\\", "\0", "\u{01}", "\n", "\r", "a", "é", "李", "🦊", "\u{85}",
        ]
        for _ in 0..<300 {
            texts.append(
                (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                    pieces.randomElement(using: &rng)!
                }.joined())
        }
        for text in texts {
            #expect(
                AttributeValue.string(text).text(as: .sql) == quoted(text, UInt8(ascii: "'")),
                "seed \(seed): \(text.debugDescription)")
            let needsQuotes =
                text.isEmpty || text.utf8.contains { [0x2C, 0x22, 0x0D, 0x0A].contains($0) }
            #expect(
                AttributeValue.string(text).text(as: .csv)
                    == (needsQuotes ? quoted(text, UInt8(ascii: "\"")) : text),
                "seed \(seed): \(text.debugDescription)")
        }
    }

    /// Random strings of every kind of scalar: the JSON form parses back (with Foundation's
    /// parser) to the same string.
    @Test func randomStringsRoundTripThroughJSON() throws {
        let seed = testSeed("randomStringsRoundTripThroughJSON")
        var rng = SeededGenerator(seed: seed)
        let ranges: [ClosedRange<UInt32>] = [
            0...0x7F, 0x80...0x9F, 0xA0...0x7FF, 0x800...0xD7FF, 0x1F600...0x1F64F,
        ]
        for _ in 0..<300 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...20, using: &rng) {
                let range = ranges[Int.random(in: 0..<ranges.count, using: &rng)]
                scalars.append(Unicode.Scalar(UInt32.random(in: range, using: &rng))!)
            }
            let text = String(scalars)
            let json = AttributeValue.string(text).text(as: .json)
            let parsed =
                try JSONSerialization.jsonObject(
                    with: Data("[\(json)]".utf8)) as? [String]
            #expect(parsed == [text], "seed \(seed): \(json)")
        }
    }

    @Test func plainTextReadsBackEveryType() {
        let values: [(AttributeValue, AttributeType)] = [
            (.string("a,b"), .string), (.integer(-7), .integer), (.double(0.1), .double),
            (.double(.infinity), .double), (.bool(false), .bool),
            (.date(Date(timeIntervalSince1970: 86_400.5)), .date), (.data(Data([9, 10])), .data),
            (.uuid(UUID()), .uuid),
        ]
        for (value, type) in values {
            let text = value.type == .string ? "a,b" : value.text(as: .csv)
            #expect(AttributeValue(text: text, as: type) == value, "\(value)")
        }
        #expect(AttributeValue(text: "0A0b", as: .data) == .data(Data([0x0A, 0x0B])))
        #expect(AttributeValue(text: "abc", as: .data) == nil)
        #expect(AttributeValue(text: "1.5", as: .integer) == nil)
        #expect(AttributeValue(text: "yes", as: .bool) == nil)
        #expect(AttributeValue(text: "2024-13-01T00:00:00Z", as: .date) == nil)
    }
}
