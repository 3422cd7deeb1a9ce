import Foundation
import Logbook
import TestSupport
import Testing

/// A scan whose predicate is one comparison of an integer attribute with a constant tests each
/// record's bytes before it locates the other fields, as a string equality does
/// (``ScanLeafTests``; issue 36: `employees list --where "salary > N"`). The answers must be
/// those of the general path: every operator, ties, the ends of the range, empty results,
/// records of an older schema version and the context's unsaved changes.
@MainActor @Suite struct IntegerScanLeafTests {
    /// The values of `count` (after one string) and of `rank` (after a string, an integer and
    /// a string), with ties, negatives and both ends of Int64.
    static let counts: [Int64] = [
        5, -5, 0, 5, .max, .min, 199_900, 199_901, 199_899, 1, -1, .max - 1, .min + 1, 5, 300, 127,
        128, -64, -65, 8_192,
    ]

    /// Each comparison's matches, by rank, against the values compared in Swift.
    @Test func everyOperatorAgreesWithTheValues() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([ScanRow.self])
        let context = ModelContext(container)
        for (i, count) in Self.counts.enumerated() {
            // Labels of 1 and 2 length bytes before the compared fields.
            context.insert(
                ScanRow(
                    label: String(repeating: "l", count: i * 9), count: count,
                    value: i % 2 == 0 ? "" : "v", rank: count))
        }
        try context.save()
        let constants: [Int64] = Self.counts + [6, 199_902, -2, 2, .min, .max]
        for c in constants {
            typealias Check = (name: String, predicate: Predicate<ScanRow>, test: (Int64) -> Bool)
            let checks: [Check] = [
                ("count == \(c)", #Predicate { $0.count == c }, { $0 == c }),
                ("count != \(c)", #Predicate { $0.count != c }, { $0 != c }),
                ("count < \(c)", #Predicate { $0.count < c }, { $0 < c }),
                ("count <= \(c)", #Predicate { $0.count <= c }, { $0 <= c }),
                ("count > \(c)", #Predicate { $0.count > c }, { $0 > c }),
                ("count >= \(c)", #Predicate { $0.count >= c }, { $0 >= c }),
                ("rank > \(c)", #Predicate { $0.rank > c }, { $0 > c }),
                ("rank <= \(c)", #Predicate { $0.rank <= c }, { $0 <= c }),
            ]
            for check in checks {
                let expected = Self.counts.filter(check.test).sorted()
                let fetched = try ModelContext(container).fetch(
                    FetchDescriptor<ScanRow>(
                        predicate: check.predicate, sortBy: [SortDescriptor(\.rank)]))
                #expect(fetched.map(\.rank) == expected, "\(check.name)")
                #expect(
                    try ModelContext(container).fetchCount(
                        FetchDescriptor<ScanRow>(predicate: check.predicate)) == expected.count,
                    "\(check.name)")
            }
        }
        try container.close()
    }

    /// The string form `employees list --where` passes, sorted by the compared attribute:
    /// the same rows, ties in primary-key order, and none above the largest value.
    @Test func stringPredicateSortedByTheComparedAttribute() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([ScanRow.self])
        let context = ModelContext(container)
        for (i, count) in Self.counts.enumerated() {
            context.insert(ScanRow(label: "r\(i)", count: count, value: "v", rank: Int64(i)))
        }
        try context.save()
        let cases: [(format: String, test: (Int64) -> Bool)] = [
            ("count > 4", { $0 > 4 }), ("count >= 5", { $0 >= 5 }), ("count < 0", { $0 < 0 }),
            ("count == 5", { $0 == 5 }), ("count > 9223372036854775807", { _ in false }),
        ]
        for (format, test) in cases {
            let descriptor = EntityFetchDescriptor(
                entityName: "ScanRow",
                predicate: try StringPredicate(format: format, arguments: []),
                sortBy: [(key: "count", ascending: true)])
            let keys = try ModelContext(container).fetchIdentifiers(descriptor).map(\.primaryKey)
            let matching: [(count: Int64, key: UInt64)] = Self.counts.enumerated()
                .filter { test($0.element) }.map { ($0.element, UInt64($0.offset + 1)) }
            let expected = matching.sorted {
                $0.count != $1.count ? $0.count < $1.count : $0.key < $1.key
            }
            .map(\.key)
            #expect(keys == expected, "\(format)")
        }
        try container.close()
    }

    /// Records written before `rank` was added lack it (the full decode answers for them, with
    /// its default); records written since take the byte test. Both kinds are in one result.
    @Test func recordsOfAnOlderSchemaVersionTakePart() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open(
                schema: Schema([
                    Entity(
                        name: "ScanRow",
                        attributes: [
                            AttributeDescription("label", .string),
                            AttributeDescription("count", .integer),
                            AttributeDescription("value", .string),
                        ])
                ]))
            for (label, count) in [("a", Int64(10)), ("b", 20), ("c", 30)] {
                try container.mainContext.insert(
                    entity: "ScanRow", values: ["label": label, "count": count, "value": "v"])
            }
            try container.mainContext.save()
            try container.close()
        }
        let container = try fixture.open([ScanRow.self])
        let context = ModelContext(container)
        context.insert(ScanRow(label: "d", count: 25, value: "v", rank: 5))
        context.insert(ScanRow(label: "e", count: 5, value: "v", rank: -5))
        try context.save()
        func labels(_ predicate: Predicate<ScanRow>) throws -> [String] {
            try ModelContext(container).fetch(
                FetchDescriptor<ScanRow>(predicate: predicate, sortBy: [SortDescriptor(\.label)])
            ).map(\.label)
        }
        #expect(try labels(#Predicate { $0.count > 15 }) == ["b", "c", "d"])
        #expect(try labels(#Predicate { $0.count <= 10 }) == ["a", "e"])
        #expect(try labels(#Predicate { $0.rank > 0 }) == ["d"])
        #expect(try labels(#Predicate { $0.rank == 0 }) == ["a", "b", "c"])
        #expect(try labels(#Predicate { $0.rank < 0 }) == ["e"])
        try container.close()
    }

    /// Unsaved inserts, changes and deletes of the fetching context decide for their objects,
    /// whatever their stored records say.
    @Test func unsavedChangesOverrideTheStoredBytes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([ScanRow.self])
        let setup = ModelContext(container)
        for (i, label) in ["a", "b", "c", "d"].enumerated() {
            setup.insert(ScanRow(label: label, count: Int64(i) * 100, value: "v", rank: Int64(i)))
        }
        try setup.save()
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<ScanRow>(sortBy: [SortDescriptor(\.label)]))
        all[3].count = 0  // d: stored above 150, no longer
        all[0].count = 1_000  // a: stored below, now above
        context.delete(all[2])  // c: stored above, deleted
        context.insert(ScanRow(label: "e", count: 151, value: "v", rank: 9))
        let above = try context.fetch(
            FetchDescriptor<ScanRow>(
                predicate: #Predicate { $0.count > 150 }, sortBy: [SortDescriptor(\.label)]))
        #expect(above.map(\.label) == ["a", "e"])
        var stored = FetchDescriptor<ScanRow>(
            predicate: #Predicate { $0.count > 150 }, sortBy: [SortDescriptor(\.label)])
        stored.includePendingChanges = false
        #expect(try context.fetch(stored).map(\.label) == ["c", "d"])
    }
}
