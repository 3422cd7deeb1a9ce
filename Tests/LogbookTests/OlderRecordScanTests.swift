import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// Records written before a lightweight change are never rewritten; scans, indexes and sorts
/// read them where they lie. Records of a version whose fields are a prefix of today's (fields
/// appended since, all reading as `null`) are located as current ones are; the others decode
/// through their version. Both give what a store of today's records would.
@Suite struct OlderRecordScanTests {
    static func schema(tag: Bool = false, level: Bool = false, indexedName: Bool = false)
        -> Schema
    {
        var attributes = [
            AttributeDescription("name", .string, indexed: indexedName),
            AttributeDescription("n", .integer),
            AttributeDescription("note", .string, optional: true),
        ]
        if tag { attributes.append(AttributeDescription("tag", .string, optional: true)) }
        if level {
            attributes.append(AttributeDescription("level", .integer, defaultValue: .integer(7)))
        }
        return Schema([Entity(name: "Item", attributes: attributes)])
    }

    static func count(_ container: ModelContainer, _ format: String) throws -> Int {
        try ModelContext(container).fetch(entity: "Item", where: format).count
    }

    /// 300 items of the first version: `n` 1…300, a note on two of every three.
    static func writeFirstVersion(at url: URL) throws {
        let container = try ModelContainer(schema: schema(), at: url)
        let context = ModelContext(container)
        for n in 1...300 {
            _ = try context.insert(
                entity: "Item",
                values: ["name": "item \(n)", "n": Int64(n), "note": n % 3 == 0 ? nil : "x"])
        }
        try context.save()
        try container.close()
    }

    /// With `indexedName`, the name index this version adds is built from the old records;
    /// without, a name equality is tested on each record's bytes.
    @Test(arguments: [false, true])
    func appendedOptionalFieldsReadAsNullInScansSortsAndIndexes(indexedName: Bool) throws {
        let directory = TemporaryDirectory("older-records")
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.child("store"))
        try Self.writeFirstVersion(at: url)
        let container = try ModelContainer(
            schema: Self.schema(tag: true, indexedName: indexedName), at: url)
        defer { try? container.close() }
        #expect(try Self.count(container, "n > 250") == 50)
        #expect(try Self.count(container, "note == nil") == 100)
        #expect(try Self.count(container, "note == nil AND n <= 30") == 10)
        #expect(try Self.count(container, "tag == nil") == 300)
        #expect(try Self.count(container, "tag != nil") == 0)
        #expect(try Self.count(container, "name == 'item 7'") == 1)
        #expect(try Self.count(container, "name != 'item 7'") == 299)
        let context = ModelContext(container)
        let top = try context.fetch(
            entity: "Item", where: "note != nil", sortBy: "n", ascending: false)
        #expect(
            top.prefix(3).map { try? $0.value(forKey: "n") as? Int64 } == [Int64(299), 298, 296])
        for n in 301...310 {
            _ = try context.insert(
                entity: "Item", values: ["name": "item \(n)", "n": Int64(n), "tag": "t"])
        }
        try context.save()
        #expect(try Self.count(container, "tag == 't'") == 10)
        #expect(try Self.count(container, "tag == nil AND n > 250") == 50)
        #expect(try Self.count(container, "n > 250") == 60)
    }

    /// A field added with a default reads as that default in the old records: those records
    /// are not located as a prefix of today's.
    @Test func anAppendedDefaultReadsAsTheDefault() throws {
        let directory = TemporaryDirectory("older-records")
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.child("store"))
        try Self.writeFirstVersion(at: url)
        let container = try ModelContainer(schema: Self.schema(tag: true, level: true), at: url)
        defer { try? container.close() }
        #expect(try Self.count(container, "level == 7") == 300)
        #expect(try Self.count(container, "level == 7 AND n > 250 AND tag == nil") == 50)
    }

    /// The codec locates a record of the first version with today's layout when what it lacks
    /// reads as null, and declines when a lacking field has a default.
    @Test func onlyRecordsWhoseMissingFieldsReadAsNullAreLocated() throws {
        var first = Self.schema()
        first.version = 1
        var history = SchemaHistory()
        history.add(first)
        let old = RecordCodec(
            entity: first.entity(named: "Item")!, schemaVersion: 1, history: history)
        var w = ByteWriter()
        let values: [AttributeValue] = [.string("a"), .integer(5), .null]
        let types: [AttributeType] = [.string, .integer, .string]
        old.encode(objectVersion: 1, into: &w) { i, w in
            guard !values[i].isNull else { return false }
            w.value(values[i], as: types[i])
            return true
        }
        let record = w.bytes
        for (later, located) in [(Self.schema(tag: true), true), (Self.schema(level: true), false)]
        {
            var schema = later
            schema.version = 2
            var both = history
            both.add(schema)
            let codec = RecordCodec(
                entity: schema.entity(named: "Item")!, schemaVersion: 2, history: both)
            let layout = codec.makeScanLayout()
            defer { layout.deallocate() }
            let count = schema.entity(named: "Item")!.attributes.count
            var offsets = [Int](repeating: 99, count: count)
            let found = record.withUnsafeBytes { bytes in
                offsets.withUnsafeMutableBufferPointer {
                    RecordCodec.locate(bytes, $0, count: count, layout: layout)
                }
            }
            #expect(found == located)
            if located { #expect(offsets[2] == -1 && offsets[3] == -1 && offsets[1] > 0) }
        }
    }
}
