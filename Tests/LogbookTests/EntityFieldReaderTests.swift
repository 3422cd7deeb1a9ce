import Foundation
import Logbook
import TestSupport
import Testing

/// ``EntityFieldReader`` gives what ``RecordDecoder/decodeFields(keyspace:key:value:_:)`` gives,
/// field for field, with the strings of records read in place as their bytes: records of the
/// current version, of an older version that only lacks the last fields, and of one that does
/// not (whose strings come decoded).
@Suite struct EntityFieldReaderTests {
    private static func employee(_ attributes: [AttributeDescription]) -> Schema {
        Schema([Entity(name: "Employee", attributes: attributes)])
    }

    /// How a field came: as bytes, or as a value.
    fileprivate enum Read: Equatable {
        case bytes(String)
        case value(AttributeValue)
    }

    /// Every Employee record of the store at `url`, read both ways: per primary key,
    /// `decodeFields`' values and the reader's.
    private static func readBothWays(_ url: URL) throws -> [UInt64: ([AttributeValue], [Read])] {
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: url.path, options: options)
        defer { try? store.close() }
        let decoder = try RecordDecoder(store: store)
        let reader = try #require(EntityFieldReader(decoder, entity: "Employee"))
        #expect(EntityFieldReader(decoder, entity: "Nobody") == nil)
        var rows: [UInt64: ([AttributeValue], [Read])] = [:]
        try store.forEach(in: "Employee") { key, value in
            var values: [AttributeValue] = []
            let decoded = try decoder.decodeFields(keyspace: "Employee", key: key, value: value) {
                _, field in values.append(field)
            }
            var reads: [Read] = []
            let read = try reader.decode(key: key, value: value) { i, field in
                #expect(i == reads.count, "field \(i) came after \(reads.count) fields")
                switch field {
                case .utf8(let bytes): reads.append(.bytes(String(decoding: bytes, as: UTF8.self)))
                case .value(let value): reads.append(.value(value))
                }
            }
            #expect(read == decoded)
            rows[decoded.primaryKey] = (values, reads)
        }
        return rows
    }

    @Test func currentAndPrefixRecordsGiveTheirStringsAsBytes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.child("store"))
        let name = AttributeDescription("name", .string)
        let nickname = AttributeDescription("nickname", .string, optional: true)
        let level = AttributeDescription("level", .integer, defaultValue: .integer(7))
        let first = try ModelContainer(schema: Self.employee([name, nickname]), at: url)
        let context = ModelContext(first)
        try context.insert(entity: "Employee", values: ["name": "李 Ann", "nickname": "A"])
        try context.insert(entity: "Employee", values: ["name": "Bo"])
        try context.save()
        try first.close()
        let second = try ModelContainer(schema: Self.employee([name, nickname, level]), at: url)
        let later = ModelContext(second)
        try later.insert(entity: "Employee", values: ["name": "Cy\u{301}", "level": 1])
        try later.save()
        try second.close()

        let rows = try Self.readBothWays(url)
        #expect(rows[1]?.1 == [.bytes("李 Ann"), .bytes("A"), .value(.integer(7))])
        #expect(rows[2]?.1 == [.bytes("Bo"), .value(.null), .value(.integer(7))])
        #expect(rows[3]?.1 == [.bytes("Cy\u{301}"), .value(.null), .value(.integer(1))])
        for (key, (values, reads)) in rows {
            #expect(
                reads.map { if case .bytes(let text) = $0 { .string(text) } else { $0.value } }
                    == values, "record \(key)")
        }
    }

    @Test func recordsOfAVersionThatIsNoPrefixGiveDecodedStrings() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.child("store"))
        let name = AttributeDescription("name", .string)
        let nickname = AttributeDescription("nickname", .string, optional: true)
        let first = try ModelContainer(schema: Self.employee([nickname, name]), at: url)
        let context = ModelContext(first)
        try context.insert(entity: "Employee", values: ["name": "Ann", "nickname": "A"])
        try context.save()
        try first.close()
        // `nickname` dropped: the old records' fields are not today's first ones.
        let second = try ModelContainer(schema: Self.employee([name]), at: url)
        let later = ModelContext(second)
        try later.insert(entity: "Employee", values: ["name": "Bo"])
        try later.save()
        try second.close()

        let rows = try Self.readBothWays(url)
        #expect(rows[1]?.1 == [.value(.string("Ann"))])
        #expect(rows[2]?.1 == [.bytes("Bo")])
        #expect(rows[1]?.0 == [.string("Ann")])
    }

    /// A damaged record (a byte too many, a byte too few, a string's length past the end) is
    /// the error `decodeFields` reports for it, word for word.
    @Test func aDamagedRecordIsTheErrorDecodeFieldsReports() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.child("store"))
        let name = AttributeDescription("name", .string)
        let level = AttributeDescription("level", .integer, optional: true)
        let container = try ModelContainer(schema: Self.employee([name, level]), at: url)
        let context = ModelContext(container)
        try context.insert(entity: "Employee", values: ["name": "Ann", "level": 3])
        try context.insert(entity: "Employee", values: ["name": "Bo"])
        try context.save()
        try container.close()
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: url.path, options: options)
        defer { try? store.close() }
        let decoder = try RecordDecoder(store: store)
        let reader = try #require(EntityFieldReader(decoder, entity: "Employee"))
        var records: [([UInt8], [UInt8])] = []
        try store.forEach(in: "Employee") { key, value in records.append((Array(key), Array(value)))
        }
        try #require(records.count == 2)
        var damaged = 0
        for (key, value) in records {
            var longString = value
            // The first value is the name: its length byte follows the versions and bitmap.
            if let at = longString.firstIndex(of: UInt8(value.count > 6 ? 3 : 2)) {
                longString[at] = 0x7F
            }
            for bytes in [value + [0], Array(value.dropLast()), longString] where bytes != value {
                let expected = Result {
                    try key.withUnsafeBytes { k in
                        try bytes.withUnsafeBytes { v in
                            try decoder.decodeFields(keyspace: "Employee", key: k, value: v) {
                                _, _ in
                            }
                        }
                    }
                }
                let read = Result {
                    try key.withUnsafeBytes { k in
                        try bytes.withUnsafeBytes { v in
                            try reader.decode(key: k, value: v) { _, _ in }
                        }
                    }
                }
                switch (expected, read) {
                case (.failure(let a), .failure(let b)):
                    damaged += 1
                    #expect("\(a)" == "\(b)", "\(bytes)")
                case (.success(let a), .success(let b)):
                    #expect(a == b, "\(bytes)")
                default:
                    Issue.record("decodeFields \(expected), the reader \(read), for \(bytes)")
                }
            }
        }
        #expect(damaged >= 4)
    }
}

extension EntityFieldReaderTests.Read {
    fileprivate var value: AttributeValue {
        if case .value(let value) = self { value } else { .null }
    }
}
