import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// After a lightweight migration that only appends fields (and makes a scalar optional),
/// compaction writes each older record in the current version keeping its value bytes
/// (``RecordCodec/upgradedInPlace(_:)``): the same bytes the full decode and encode write, and
/// the same objects afterwards.
@MainActor @Suite struct InPlaceUpgradeTests {
    static let employee = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("nickname", .string, optional: true),
            AttributeDescription("level", .int32),
            AttributeDescription("salary", .double),
        ])

    /// `employee` with `level` optional and four fields appended: optional, defaulted text,
    /// defaulted integer, optional date.
    static let appended = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("nickname", .string, optional: true),
            AttributeDescription("level", .int32, optional: true),
            AttributeDescription("salary", .double),
            AttributeDescription("badge", .string, optional: true),
            AttributeDescription("note", .string, defaultValue: .string("-")),
            AttributeDescription("rank", .integer, defaultValue: .integer(3)),
            AttributeDescription("hired", .date, optional: true),
        ])

    private static let fields = [
        "name", "nickname", "level", "salary", "badge", "note", "rank", "hired",
    ]

    private func rows(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(entity: "Employee", sortBy: "name").map { row in
            try Self.fields.map { "\(try row.value(forKey: $0) ?? "nil")" }
                .joined(separator: "|")
        }
    }

    @Test func olderRecordsKeepTheirValueBytesAndReadTheSameAfterCompaction() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let first = try fixture.open(schema: Schema([Self.employee]))
        for i in 0..<200 {
            try first.mainContext.insert(
                entity: "Employee",
                values: [
                    "name": "E\(1000 + i)", "nickname": i % 3 == 0 ? nil : "n\(i)",
                    "level": i % 7, "salary": Double(i) * 1.5,
                ])
        }
        try first.mainContext.save()
        try first.close()

        let container = try fixture.open(schema: Schema([Self.appended]))
        let saved = try #require(
            try container.mainContext.fetch(entity: "Employee", where: "name == 'E1001'").first)
        try saved.setValue(nil, forKey: "level")
        try saved.setValue("late", forKey: "badge")
        try container.mainContext.save()
        // Every record of the first version upgrades in place, to the bytes the full decode
        // and encode write; the current one is left alone.
        let decoder = try RecordDecoder(store: container.store)
        let codec = try #require(decoder.codecs["Employee"]?.codec)
        var inPlace = 0
        var current = 0
        try container.store.forEach(in: "Employee") { _, value in
            guard let upgraded = codec.upgradedInPlace(value) else {
                current += 1
                return
            }
            inPlace += 1
            #expect(upgraded == RecordUpgrader.upgradedByDecoding(value, codec: codec))
            // A record cut short, or with a byte more, is left to the full decode.
            #expect(
                codec.upgradedInPlace(UnsafeRawBufferPointer(rebasing: value.dropLast()))
                    == nil)
            let longer = (Array(value) + [0]).withUnsafeBytes { codec.upgradedInPlace($0) }
            #expect(longer == nil)
        }
        #expect(inPlace == 199)
        #expect(current == 1)

        let before = try rows(container)
        try container.store.compact()
        var versions: Set<UInt64> = []
        try container.store.forEach(in: "Employee") { _, value in
            var reader = ByteReader(value)
            versions.insert(try reader.varint())
        }
        #expect(versions == [2])
        #expect(try rows(container) == before)
        #expect(before.contains("E1001|n1|nil|1.5|late|-|3|nil"))
        #expect(before.contains("E1000|nil|0|0.0|nil|-|3|nil"))
        try container.close()
        #expect(try StoreCheck.run(storeAt: fixture.url.path).isDamaged == false)
    }
}
