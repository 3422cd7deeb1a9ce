import Foundation
import Logbook
import TestSupport
import Testing

/// FORMAT.md Part 2, "Example: one Employee, byte by byte", checked byte for byte.
@MainActor @Suite struct ObjectFormatExampleTests {
    private func hex(_ text: String) -> [UInt8] {
        let digits = text.filter { $0.isHexDigit }.map { String($0) }
        return stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(digits[$0] + digits[$0 + 1], radix: 16)
        }
    }

    @Test func oneEmployeeByteForByte() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        container.mainContext.insert(
            Employee(name: "Ann", designation: "Engineer", salary: 2_000_000))
        try container.mainContext.save()
        let store = container.store

        let schema = try #require(try store.get([0, 0, 0, 1], in: "logbook.schema"))
        #expect(
            schema
                == hex(
                    """
                    01 01 01 08 456d706c6f796565 03
                    04 6e616d65 01 08 00
                    0b 64657369676e6174696f6e 01 0a 00
                    06 73616c617279 02 08 00
                    """))

        let ann = try #require(try store.get([0, 0, 0, 0, 0, 0, 0, 1], in: "Employee"))
        #expect(ann == hex("01 01 03 416e6e 08 456e67696e656572 80 92 f4 01"))
        #expect(ann.count == 19)

        let lastID = try #require(try store.get(Array("lastID:Employee".utf8), in: "logbook.meta"))
        #expect(lastID == [0, 0, 0, 0, 0, 0, 0, 1])
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
