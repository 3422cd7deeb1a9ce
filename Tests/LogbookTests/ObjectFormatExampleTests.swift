import Foundation
import Logbook
import TestSupport
import Testing

/// FORMAT.md Part 2, "Example: one Employee, byte by byte", checked byte for byte.
@MainActor @Suite struct ObjectFormatExampleTests {
    static let formatPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../FORMAT.md").standardized.path

    /// The bytes of each code block of "### Example: one Employee", in order, and the value of
    /// the inline `lastID:` line: on each line, the hex words before the first word that is not
    /// one (the comment).
    static func documentedBytes() throws -> (blocks: [[UInt8]], lastID: [UInt8]) {
        let text = try String(contentsOfFile: formatPath, encoding: .utf8)
        let start = try #require(text.range(of: "### Example: one Employee"))
        // To the next section, of either level.
        let end = try #require(text.range(of: "\n##", range: start.upperBound..<text.endIndex))
        var blocks: [[UInt8]] = []
        var lastID: [UInt8] = []
        var inBlock = false
        for line in text[start.upperBound..<end.lowerBound].split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("```") {
                inBlock.toggle()
                if inBlock { blocks.append([]) }
                continue
            }
            if inBlock {
                blocks[blocks.count - 1] += hexWords(line.split(separator: " "))
            } else if line.contains("\"lastID:Employee\"") {
                // `logbook.meta`, key `"lastID:Employee"`: `0000000000000001`.
                lastID = hexWords(line.split(separator: "`").dropLast().suffix(1))
            }
        }
        return (blocks, lastID)
    }

    private static func hexWords(_ words: some Sequence<Substring>) -> [UInt8] {
        var bytes: [UInt8] = []
        for word in words {
            guard word.count % 2 == 0, word.allSatisfy(\.isHexDigit) else { break }
            var index = word.startIndex
            while index < word.endIndex {
                let next = word.index(index, offsetBy: 2)
                bytes.append(UInt8(word[index..<next], radix: 16)!)
                index = next
            }
        }
        return bytes
    }

    @Test func theDocumentHasTheExample() throws {
        let (blocks, lastID) = try Self.documentedBytes()
        #expect(blocks.map(\.count) == [46, 19])
        #expect(lastID == [0, 0, 0, 0, 0, 0, 0, 1])
    }

    @Test func oneEmployeeByteForByte() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        container.mainContext.insert(
            Employee(name: "Ann", designation: "Engineer", salary: 2_000_000))
        try container.mainContext.save()
        let store = container.store

        let documented = try Self.documentedBytes()
        let schema = try #require(try store.get([0, 0, 0, 1], in: "logbook.schema"))
        #expect(schema == documented.blocks.first)

        let ann = try #require(try store.get([0, 0, 0, 0, 0, 0, 0, 1], in: "Employee"))
        #expect(ann == documented.blocks.last)
        #expect(ann.count == 19)

        let lastID = try #require(try store.get(Array("lastID:Employee".utf8), in: "logbook.meta"))
        #expect(lastID == documented.lastID)
        // History (FORMAT.md Part 2, "History"): the store's identity, where its history
        // starts, and the save record of the one save.
        let identity = try #require(
            try store.get(Array("storeIdentifier".utf8), in: "logbook.meta"))
        #expect(identity.count == 16)
        #expect(
            try store.get(Array("historySince".utf8), in: "logbook.meta")
                == [0, 0, 0, 0, 0, 0, 0, 0])
        let save = try #require(try store.get(Array("save".utf8), in: "logbook.history"))
        #expect(save.count == 11)
        #expect(save[0] == 1)  // format
        #expect(Array(save[9...]) == [0, 0])  // no author, no updates
        let time = save[1..<9].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(
            abs(Double(bitPattern: time) - Date().timeIntervalSinceReferenceDate) < 600)
        #expect(
            Set(try store.keyspaces()) == [
                "Employee", "logbook.history", "logbook.meta", "logbook.schema",
            ])
    }

    @Test func optionalAttributesUseANullBitmap() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Note",
                attributes: [
                    AttributeDescription("title", .string, optional: true),
                    AttributeDescription("count", .integer),
                    AttributeDescription("flag", .bool, optional: true),
                ])
        ])
        let container = try fixture.open(schema: schema)
        try container.mainContext.insert(entity: "Note", values: ["count": -2, "flag": true])
        try container.mainContext.save()
        let record = try #require(try container.store.get([0, 0, 0, 0, 0, 0, 0, 1], in: "Note"))
        // schema 1, object 1, bitmap 0b01 (title null), count zigzag(-2) = 3, flag true
        #expect(record == [1, 1, 0b01, 3, 1])
    }
}
