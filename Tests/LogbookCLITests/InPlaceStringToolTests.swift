import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `dump` and `export` write the strings of records read in place from their stored bytes
/// (``EntityFieldReader``): the output must be what the decoded values give, for every kind of
/// text, and records that do not decode must still be reported.
@Suite struct InPlaceStringToolTests {
    /// Text that JSON, CSV and SQL escape or quote, text that is not ASCII (U+0085 is a C1
    /// control JSON escapes), empty text and text longer than a small string.
    static let nicknames: [String?] = [
        "plain", "", "O'Brien, \"Annie\"\nsecond line", "back\\slash\ttab\r\u{7F}\u{01}",
        "caf\u{E9} \u{85} \u{9F} \u{A0} \u{1F600}", "\u{2028}", "''",
        String(repeating: "x\"", count: 40),
        String(repeating: "long text without escapes ", count: 20), nil,
    ]

    /// One Contact per nickname, primary keys 1… in order.
    static func store(at path: String) throws {
        let container = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        for (i, nickname) in nicknames.enumerated() {
            context.insert(Contact(email: "c\(i)@example.com", nickname: nickname, age: i))
        }
        try context.save()
        try container.close()
    }

    @Test func dumpOfLentRecordsIsTheDecodedRecordsDump() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.store(at: path)
        for format in ["jsonl", "json"] {
            let lent = try CLI.run(["dump", path, "--entity", "Contact", "--format", format])
            // A filter sends every record through the decoded record (`RecordMeaning`).
            let decoded = try CLI.run([
                "dump", path, "--entity", "Contact", "--format", format, "--where",
                "email != \"none\"",
            ])
            #expect(lent.status == 0 && decoded.status == 0, "\(lent.stderr)\(decoded.stderr)")
            #expect(lent.stdout == decoded.stdout)
            #expect(
                lent.stdout.contains("\"nickname\":\"caf\u{E9} \\u0085 \\u009f \u{A0} \u{1F600}\""))
        }
        let lines = try CLI.run([
            "dump", path, "--entity", "Contact", "--format", "jsonl", "--live",
        ])
        .stdout.split(separator: "\n")
        #expect(lines.count == Self.nicknames.count)
        for (line, nickname) in zip(lines, Self.nicknames) {
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let object = try #require(json?["object"] as? [String: Any])
            #expect(object["nickname"] as? String == nickname)
        }
    }

    @Test func dumpStillReportsRecordsThatDoNotDecode() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.store(at: path)
        let store = try Stores.openStore(path)
        // Current schema version, object version 1, then: a bitmap and nothing else (ends
        // early); the same record with a byte after its values; a string longer than the record.
        let good = try #require(try store.get([0, 0, 0, 0, 0, 0, 0, 1], in: "Contact"))
        try store.put([0x01, 0x01, 0x00], for: [0, 0, 0, 0, 0, 0, 0, 0x51], in: "Contact")
        try store.put(good + [0x00], for: [0, 0, 0, 0, 0, 0, 0, 0x52], in: "Contact")
        var long = good
        long[3] = 0x7F  // the email's length
        try store.put(long, for: [0, 0, 0, 0, 0, 0, 0, 0x53], in: "Contact")
        try store.close()
        let result = try CLI.run(["dump", path, "--entity", "Contact", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == Self.nicknames.count + 3)
        for (line, key) in zip(lines.suffix(3), ["51", "52", "53"]) {
            #expect(line.contains("\"keyHex\":\"00000000000000\(key)\""), "\(line)")
            #expect(line.contains("\"decodeError\":"), "\(line)")
            #expect(!line.contains("\"object\":"), "\(line)")
        }
    }

    @Test func exportWritesEachStringAsItsDecodedValue() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.store(at: path)
        for (format, textFormat) in [
            ("jsonl", AttributeValue.TextFormat.json), ("csv", .csv), ("sql", .sql),
        ] {
            let result = try CLI.run(["export", path, "--format", format])
            #expect(result.status == 0, "\(result.stderr)")
            for nickname in Self.nicknames {
                var text: [UInt8] = []
                AttributeValue.string(nickname ?? "").append(as: textFormat, to: &text)
                if nickname != nil {
                    #expect(result.stdout.contains(String(decoding: text, as: UTF8.self)))
                }
            }
        }
        let lines = try CLI.run(["export", path, "--format", "jsonl"]).stdout.split(separator: "\n")
        #expect(lines.count == Self.nicknames.count + 1)
        for (line, nickname) in zip(lines.dropFirst(), Self.nicknames) {
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(json?["nickname"] as? String == nickname)
        }
    }
}
