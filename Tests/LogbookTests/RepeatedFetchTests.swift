import Foundation
import Logbook
import TestSupport
import Testing

/// A voucher with a unique code, an indexed price and an indexed section, every field required:
/// the model of the repeated-fetch tests.
final class Voucher: PersistentModel {
    @Attribute(.unique) var code = ""
    @Attribute var name = ""
    @Attribute(.indexed) var section = ""
    @Attribute(.indexed) var price: Int64 = 0

    init() {}

    init(code: String, name: String, section: String, price: Int64) {
        self.code = code
        self.name = name
        self.section = section
        self.price = price
    }
}

/// The same entity as ``Voucher`` with an optional attribute added (declared first): records
/// saved with it have a null bitmap, which older ones do not, so its fields lie elsewhere.
final class VoucherV2: PersistentModel {
    static var entityName: String { "Voucher" }
    @Attribute var note: String? = nil
    @Attribute(.unique) var code = ""
    @Attribute var name = ""
    @Attribute(.indexed) var section = ""
    @Attribute(.indexed) var price: Int64 = 0

    init() {}
}

/// A fetch repeated in one context with new constants (a lookup or a range in a loop) reuses
/// what the context learned of its types (the predicate's key paths and expression type) and
/// plans without generic look-ups; none of that may give a stale answer. Each test changes
/// what could be stale between two fetches of one shape — the constants, the attribute, the
/// context's pending changes, another context's saves, the schema — and compares with a model.
@MainActor @Suite struct RepeatedFetchTests {
    static func byCode(_ code: String) -> FetchDescriptor<Voucher> {
        FetchDescriptor<Voucher>(predicate: #Predicate { $0.code == code })
    }

    static func byName(_ name: String) -> FetchDescriptor<Voucher> {
        FetchDescriptor<Voucher>(predicate: #Predicate { $0.name == name })
    }

    /// Voucher `i` has code `c<i>`, name `c<i + 1>`, section `s<i % 3>` and price `i % 7`.
    static func saveVouchers(_ count: Int, in context: ModelContext) throws {
        for i in 0..<count {
            context.insert(
                Voucher(
                    code: "c\(i)", name: "c\(i + 1)", section: "s\(i % 3)", price: Int64(i % 7)))
        }
        try context.save()
    }

    @Test func lookupsFollowNewConstantsPendingChangesAndOtherContexts() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Voucher.self])
        let writer = ModelContext(container)
        try Self.saveVouchers(30, in: writer)
        let reader = ModelContext(container)
        for i in [3, 17, 3, 29, 0, 30] {
            let found = try reader.fetch(Self.byCode("c\(i)"))
            #expect(found.map(\.name) == (i < 30 ? ["c\(i + 1)"] : []), "code c\(i)")
        }
        // A pending insert matches; a pending change moves the object to its new code.
        reader.insert(Voucher(code: "new", name: "n", section: "s0", price: 1))
        #expect(try reader.fetch(Self.byCode("new")).map(\.name) == ["n"])
        let moved = try #require(try reader.fetch(Self.byCode("c5")).first)
        moved.code = "c5-moved"
        #expect(try reader.fetch(Self.byCode("c5")).isEmpty)
        #expect(try reader.fetch(Self.byCode("c5-moved")).first === moved)
        reader.rollback()
        #expect(try reader.fetch(Self.byCode("new")).isEmpty)
        #expect(try reader.fetch(Self.byCode("c5")).first === moved)
        // Another context's insert, change and delete.
        writer.insert(Voucher(code: "late", name: "l", section: "s1", price: 2))
        let changed = try #require(try writer.fetch(Self.byCode("c7")).first)
        changed.code = "c7-changed"
        writer.delete(try #require(try writer.fetch(Self.byCode("c8")).first))
        try writer.save()
        #expect(try reader.fetch(Self.byCode("late")).map(\.name) == ["l"])
        #expect(try reader.fetch(Self.byCode("c7")).isEmpty)
        #expect(try reader.fetch(Self.byCode("c7-changed")).map(\.name) == ["c8"])
        #expect(try reader.fetch(Self.byCode("c8")).isEmpty)
        // Left out, the pending changes do not count.
        reader.insert(Voucher(code: "hidden", name: "h", section: "s2", price: 3))
        var descriptor = Self.byCode("hidden")
        descriptor.includePendingChanges = false
        #expect(try reader.fetch(descriptor).isEmpty)
        #expect(try reader.fetch(Self.byCode("hidden")).map(\.name) == ["h"])
    }

    /// `$0.code == x` and `$0.name == x` are one expression type: what the context keeps of
    /// one must not answer the other.
    @Test func oneExpressionTypeOverTwoAttributes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Voucher.self])
        try Self.saveVouchers(12, in: ModelContext(container))
        let context = ModelContext(container)
        for i in 1..<12 {
            #expect(try context.fetch(Self.byCode("c\(i)")).map(\.code) == ["c\(i)"])
            #expect(try context.fetch(Self.byName("c\(i)")).map(\.code) == ["c\(i - 1)"])
            let sorted = try context.fetch(
                FetchDescriptor<Voucher>(
                    predicate: #Predicate { $0.section == "s1" }, sortBy: [SortDescriptor(\.code)]))
            #expect(sorted.map(\.code) == ["c1", "c10", "c4", "c7"])
            let byName = try context.fetch(
                FetchDescriptor<Voucher>(
                    predicate: #Predicate { $0.section == "s1" }, sortBy: [SortDescriptor(\.name)]))
            #expect(byName.map(\.name) == ["c11", "c2", "c5", "c8"])
        }
    }

    /// Price ranges with a limit and an offset, both directions, on seeded random prices with
    /// ties, in one context with pending inserts, changes and deletes coming and going: the
    /// result equals the model's (by price, then insertion order).
    @Test func rangesWithALimitMatchAModel() throws {
        let seed = testSeed("RepeatedFetchTests.rangesWithALimitMatchAModel")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Voucher.self])
        let writer = ModelContext(container)
        var prices: [String: Int64] = [:]
        var order: [String] = []
        for i in 0..<400 {
            let price = Int64.random(in: 0..<100, using: &rng)
            writer.insert(Voucher(code: "c\(i)", name: "", section: "s", price: price))
            prices["c\(i)"] = price
            order.append("c\(i)")
        }
        try writer.save()
        let context = ModelContext(container)
        var pending: [String: Int64] = [:]
        var gone: Set<String> = []
        var inserted: [String] = []
        for round in 0..<60 {
            // Now and then, pending changes: an insert, a change, a delete.
            if round % 10 == 5 {
                let code = "p\(round)"
                let price = Int64.random(in: 0..<100, using: &rng)
                context.insert(Voucher(code: code, name: "", section: "s", price: price))
                pending[code] = price
                inserted.append(code)
                let changedCode = order[Int.random(in: 0..<order.count, using: &rng)]
                if !gone.contains(changedCode),
                    let changed = try context.fetch(Self.byCode(changedCode)).first
                {
                    changed.price = Int64.random(in: 0..<100, using: &rng)
                    pending[changedCode] = changed.price
                }
                let deletedCode = order[Int.random(in: 0..<order.count, using: &rng)]
                if pending[deletedCode] == nil, !gone.contains(deletedCode),
                    let deleted = try context.fetch(Self.byCode(deletedCode)).first
                {
                    context.delete(deleted)
                    gone.insert(deletedCode)
                }
            } else if round % 10 == 9 {
                context.rollback()
                pending = [:]
                gone = []
                inserted = []
            }
            let low = Int64.random(in: 0..<100, using: &rng)
            let high = low + Int64.random(in: 0..<30, using: &rng)
            let ascending = Bool.random(using: &rng)
            var descriptor = FetchDescriptor<Voucher>(
                predicate: #Predicate { $0.price >= low && $0.price <= high },
                sortBy: [SortDescriptor(\.price, order: ascending ? .forward : .reverse)])
            descriptor.fetchLimit = Int.random(in: 0..<12, using: &rng)
            descriptor.fetchOffset =
                Bool.random(using: &rng) ? Int.random(in: 0..<5, using: &rng) : nil
            // The model: every live voucher's current price, ordered by price, ties by
            // insertion (primary-key) order.
            var live: [(code: String, price: Int64)] = []
            for code in order + inserted where !gone.contains(code) {
                live.append((code, pending[code] ?? prices[code]!))
            }
            let matching = live.filter { $0.price >= low && $0.price <= high }
            let sorted = matching.enumerated().sorted { a, b in
                if a.element.price != b.element.price {
                    return ascending
                        ? a.element.price < b.element.price : a.element.price > b.element.price
                }
                return a.offset < b.offset
            }.map(\.element.code)
            let start = min(descriptor.fetchOffset ?? 0, sorted.count)
            let end = min(start + descriptor.fetchLimit!, sorted.count)
            let expected = Array(sorted[start..<end])
            let objects = try context.fetch(descriptor)
            let found = objects.map(\.code)
            #expect(found == expected, "round \(round), seed \(seed)")
            // The slice's objects are registered: the same instances again (uniquing).
            let again = try context.fetch(descriptor)
            #expect(
                again.count == objects.count && zip(again, objects).allSatisfy { $0 === $1 },
                "round \(round), seed \(seed)")
            // (An empty range is answered by its index's ranges, with nothing to order.)
            if !context.hasChanges && !matching.isEmpty {
                let plan = try context.explain(descriptor)
                #expect(plan.sortedByIndex, "round \(round), seed \(seed): \(plan)")
            }
        }
    }

    /// A range over the few records of a small entity is a scan when the planner's costs say
    /// so, even with a limit: 10 records, all in the range; a limit of 3 reads 6 index entries
    /// (2.25 each), more than the 10 a scan reads, a limit of 1 reads 2.
    @Test func aSmallEntityIsScannedUnlessTheLimitIsSmaller() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Voucher.self])
        try Self.saveVouchers(10, in: ModelContext(container))
        var descriptor = FetchDescriptor<Voucher>(
            predicate: #Predicate { $0.price >= 0 && $0.price <= 10 },
            sortBy: [SortDescriptor(\.price)])
        descriptor.fetchLimit = 3
        let context = ModelContext(container)
        #expect(try context.fetch(descriptor).map(\.code) == ["c0", "c7", "c1"])
        let plan = try context.explain(descriptor)
        #expect(plan.access == .scan, "\(plan)")
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).map(\.code) == ["c0"])
        let limited = try context.explain(descriptor)
        #expect(limited.access == .index && limited.sortedByIndex, "\(limited)")
    }

    /// A fetch through the section index sorted by price reads each price straight from its
    /// record; the order equals the model's in both directions, and after a schema change (an
    /// optional attribute added) a new context on the reopened store reads the right fields
    /// from old and new records alike.
    @Test func sortKeysReadFromRecordsAcrossASchemaChange() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var rng = SeededGenerator(seed: testSeed("RepeatedFetchTests.sortKeys"))
        var rows: [(code: String, section: String, price: Int64)] = []
        do {
            let container = try fixture.open([Voucher.self])
            let context = ModelContext(container)
            for i in 0..<300 {
                let row = (
                    code: "c\(i)", section: "s\(Int.random(in: 0..<3, using: &rng))",
                    price: Int64.random(in: -1_000...1_000, using: &rng)
                )
                rows.append(row)
                context.insert(
                    Voucher(code: row.code, name: "", section: row.section, price: row.price))
            }
            try context.save()
            try check(container, v2: false)
            try container.close()
        }
        let container = try fixture.open([VoucherV2.self])
        let context = ModelContext(container)
        for i in 300..<360 {
            let row = (code: "c\(i)", section: "s\(i % 3)", price: Int64(i % 11))
            rows.append(row)
            let voucher = VoucherV2()
            voucher.note = "new"
            voucher.code = row.code
            voucher.section = row.section
            voucher.price = row.price
            context.insert(voucher)
        }
        try context.save()
        try check(container, v2: true)

        func check(_ container: ModelContainer, v2: Bool) throws {
            let context = ModelContext(container)
            for section in ["s0", "s1", "s2"] {
                let members = rows.enumerated().filter { $0.element.section == section }
                for ascending in [true, false] {
                    let expected = members.sorted { a, b in
                        a.element.price == b.element.price
                            ? a.offset < b.offset
                            : (a.element.price < b.element.price) == ascending
                    }.map(\.element.code)
                    let order: SortOrder = ascending ? .forward : .reverse
                    let found =
                        v2
                        ? try context.fetch(
                            FetchDescriptor<VoucherV2>(
                                predicate: #Predicate { $0.section == section },
                                sortBy: [SortDescriptor(\.price, order: order)])
                        ).map(\.code)
                        : try context.fetch(
                            FetchDescriptor<Voucher>(
                                predicate: #Predicate { $0.section == section },
                                sortBy: [SortDescriptor(\.price, order: order)])
                        ).map(\.code)
                    #expect(found == expected, "\(section) ascending \(ascending)")
                }
                let code = members[members.count / 2].element.code
                let byCode =
                    v2
                    ? try context.fetch(
                        FetchDescriptor<VoucherV2>(predicate: #Predicate { $0.code == code })
                    ).map(\.code)
                    : try context.fetch(Self.byCode(code)).map(\.code)
                #expect(byCode == [code])
            }
        }
    }
}
