import Foundation
import Logbook
import TestSupport
import Testing

/// A tally with an indexed group and an integer value that is not indexed: a fetch of one group
/// (through its index) sorted by value has its matches sorted by the radix sort.
final class SortedTally: PersistentModel {
    @Attribute(.indexed) var group: Int64 = 0
    @Attribute var value: Int64? = nil

    init() {}

    init(group: Int64, value: Int64?) {
        self.group = group
        self.value = value
    }
}

/// Fetches through an index, sorted by an attribute the index does not order, on seeded random
/// values over the whole 64-bit range (every digit of the radix sort varies), with nulls and
/// ties: the order equals a model's (nulls first ascending, last descending; ties by insertion).
@MainActor @Suite struct IndexedSortTests {
    @Test func sortsMatchAModel() throws {
        let seed = testSeed("IndexedSortTests.sortsMatchAModel")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SortedTally.self])
        let context = container.mainContext
        var rows: [(group: Int64, value: Int64?)] = []
        for _ in 0..<3_000 {
            let value: Int64? =
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: nil
                case 1: Int64.random(in: -3...3, using: &rng)
                default: Int64.random(in: .min ... .max, using: &rng)
                }
            let row = (group: Int64.random(in: 0..<3, using: &rng), value: value)
            rows.append(row)
            context.insert(SortedTally(group: row.group, value: row.value))
        }
        try context.save()
        let fresh = ModelContext(container)
        for group in Int64(0)..<3 {
            let members = rows.filter { $0.group == group }.map(\.value)
            // Stable: ties keep insertion (primary-key) order.
            let ascending = members.enumerated().sorted { a, b in
                switch (a.element, b.element) {
                case (nil, nil): return a.offset < b.offset
                case (nil, _): return true
                case (_, nil): return false
                case (let x?, let y?): return x == y ? a.offset < b.offset : x < y
                }
            }.map(\.element)
            let descending = members.enumerated().sorted { a, b in
                switch (a.element, b.element) {
                case (nil, nil): return a.offset < b.offset
                case (nil, _): return false
                case (_, nil): return true
                case (let x?, let y?): return x == y ? a.offset < b.offset : x > y
                }
            }.map(\.element)
            for (order, expected) in [
                (SortOrder.forward, ascending), (SortOrder.reverse, descending),
            ] {
                let descriptor = FetchDescriptor<SortedTally>(
                    predicate: #Predicate { $0.group == group },
                    sortBy: [SortDescriptor(\.value, order: order)])
                let found = try fresh.fetch(descriptor)
                #expect(found.map(\.value) == expected, "seed \(seed), group \(group), \(order)")
                #expect(try fresh.explain(descriptor).indexes == ["SortedTally(group)"])
            }
        }
    }
}
