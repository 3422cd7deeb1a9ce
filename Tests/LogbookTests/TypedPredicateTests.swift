import Foundation
import Logbook
import TestSupport
import Testing

/// Randomized predicates over every new attribute type, checked against a plain Swift filter of
/// the same objects, on a model without indexes and one with an index on every field: each must
/// be translated (evaluated on stored values, not on objects), and give the Swift answer.
@Suite struct TypedPredicateTests {
    /// One predicate over `M` and the same test as Swift code.
    struct Case<M: TypedItemModel> {
        var name: String
        var predicate: Predicate<M>
        var test: (M) -> Bool
    }

    /// A random predicate of each shape, with constants drawn from the values items take.
    static func cases<M: TypedItemModel>(_ values: inout TypedItemValues) -> [Case<M>] {
        let i8 = values.pick(TypedItemValues.i8)
        let i32 = values.pick(TypedItemValues.i32)
        let u64 = values.pick(TypedItemValues.u64)
        let ratio = values.pick(TypedItemValues.ratio)
        let price = values.pick(TypedItemValues.price)
        let price2 = values.pick(TypedItemValues.price)
        let link = values.pick(TypedItemValues.link)
        let status = values.pick(Status.allCases)
        let priority = values.pick([Priority.low, .normal, .high])
        let city = values.pick(TypedItemValues.cities)
        let lat = values.pick(TypedItemValues.lat)
        let zip = values.pick(["411001", "0150"])
        let tag = values.pick(TypedItemValues.tags)
        let count = values.pick([0, 1, 2])
        let code = values.pick(TypedItemValues.codes)
        return [
            Case("i8 < \(i8)", #Predicate { $0.i8 < i8 }) { $0.i8 < i8 },
            Case("i8 == \(i8)", #Predicate { $0.i8 == i8 }) { $0.i8 == i8 },
            Case("i32 >= \(i32)", #Predicate { $0.i32 >= i32 }) { $0.i32 >= i32 },
            Case("u64 > \(u64)", #Predicate { $0.u64 > u64 }) { $0.u64 > u64 },
            Case("u64 == \(u64)", #Predicate { $0.u64 == u64 }) { $0.u64 == u64 },
            Case("u64 <= \(u64)", #Predicate { $0.u64 <= u64 }) { $0.u64 <= u64 },
            Case("ratio < \(ratio)", #Predicate { $0.ratio < ratio }) { $0.ratio < ratio },
            Case("ratio >= \(ratio)", #Predicate { $0.ratio >= ratio }) { $0.ratio >= ratio },
            Case("ratio == \(ratio)", #Predicate { $0.ratio == ratio }) { $0.ratio == ratio },
            Case("price > \(price)", #Predicate { $0.price > price }) { $0.price > price },
            Case("price <= \(price)", #Predicate { $0.price <= price }) { $0.price <= price },
            Case("price == \(price)", #Predicate { $0.price == price }) { $0.price == price },
            Case(
                "price in \(price)...\(price2)",
                #Predicate { $0.price >= price && $0.price < price2 }
            ) { $0.price >= price && $0.price < price2 },
            Case("link == \(link)", #Predicate { $0.link == link }) { $0.link == link },
            Case("status == \(status)", #Predicate { $0.status == status }) { $0.status == status },
            Case("status != \(status)", #Predicate { $0.status != status }) { $0.status != status },
            Case("priority == \(priority)", #Predicate { $0.priority == priority }) {
                $0.priority == priority
            },
            Case("address.city == \(city)", #Predicate { $0.address.city == city }) {
                $0.address.city == city
            },
            Case("address.geo.lat > \(lat)", #Predicate { $0.address.geo.lat > lat }) {
                $0.address.geo.lat > lat
            },
            Case("address.zip == nil", #Predicate { $0.address.zip == nil }) {
                $0.address.zip == nil
            },
            Case("address.zip == \(zip)", #Predicate { $0.address.zip == zip }) {
                $0.address.zip == zip
            },
            Case("spot?.city == \(city)", #Predicate { $0.spot?.city == city }) {
                $0.spot?.city == city
            },
            Case("spot == nil", #Predicate { $0.spot == nil }) { $0.spot == nil },
            Case("spot != nil", #Predicate { $0.spot != nil }) { $0.spot != nil },
            Case("tags contains \(tag)", #Predicate { $0.tags.contains(tag) }) {
                $0.tags.contains(tag)
            },
            Case("tags.count > \(count)", #Predicate { $0.tags.count > count }) {
                $0.tags.count > count
            },
            Case("tags.isEmpty", #Predicate { $0.tags.isEmpty }) { $0.tags.isEmpty },
            Case("!tags.isEmpty", #Predicate { !$0.tags.isEmpty }) { !$0.tags.isEmpty },
            Case("codes contains \(code)", #Predicate { $0.codes.contains(code) }) {
                $0.codes.contains(code)
            },
            Case("codes.count == \(count)", #Predicate { $0.codes.count == count }) {
                $0.codes.count == count
            },
            Case("maybeStatus == \(status)", #Predicate { $0.maybeStatus == status }) {
                $0.maybeStatus == status
            },
            Case("maybeStatus == nil", #Predicate { $0.maybeStatus == nil }) {
                $0.maybeStatus == nil
            },
            Case(
                "status == \(status) && price > \(price)",
                #Predicate { $0.status == status && $0.price > price }
            ) { $0.status == status && $0.price > price },
            Case(
                "address.city == \(city) || tags contains \(tag)",
                #Predicate { $0.address.city == city || $0.tags.contains(tag) }
            ) { $0.address.city == city || $0.tags.contains(tag) },
        ]
    }

    private func run<M: TypedItemModel>(_ type: M.Type, seed: UInt64, indexed: Bool) throws {
        var values = TypedItemValues(rng: SeededGenerator(seed: seed))
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([type])
            let context = ModelContext(container)
            for n in 0..<300 {
                let item = M()
                values.fill(item, n: n)
                context.insert(item)
            }
            try context.save()
            try container.close()
        }
        // Reopened: the stored records (and, for the indexed model, the indexes) answer.
        let container = try fixture.open([type])
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<M>())
        #expect(all.count == 300)
        var usedIndex = 0
        for round in 0..<8 {
            for c: Case<M> in Self.cases(&values) {
                let descriptor = FetchDescriptor<M>(predicate: c.predicate)
                let found = Set(try context.fetch(descriptor).map(\.n))
                let expected = Set(all.filter(c.test).map(\.n))
                #expect(
                    found == expected,
                    "\(M.self) \(c.name): \(found.count) found, \(expected.count) expected, missing \(expected.subtracting(found).sorted().prefix(5)), extra \(found.subtracting(expected).sorted().prefix(5)) (round \(round), seed \(seed))"
                )
                let explanation = try context.explain(descriptor)
                #expect(
                    !explanation.predicateOnObjects,
                    "\(M.self) \(c.name) was not translated: \(explanation)")
                if explanation.access != .scan { usedIndex += 1 }
                #expect(try context.fetchCount(descriptor) == expected.count, "\(c.name)")
            }
        }
        if indexed {
            #expect(usedIndex > 100, "indexes were used \(usedIndex) times")
        } else {
            #expect(usedIndex == 0)
        }
    }

    @Test func randomPredicatesMatchASwiftFilterWithoutIndexes() throws {
        try run(
            TypedItem.self, seed: testSeed("TypedPredicateTests.withoutIndexes"), indexed: false)
    }

    @Test func randomPredicatesMatchASwiftFilterWithIndexes() throws {
        try run(
            IndexedTypedItem.self, seed: testSeed("TypedPredicateTests.withIndexes"), indexed: true)
    }

    /// Sorting by each new type orders as Swift does (a decimal exactly, NaN where Swift's
    /// comparison puts it), with and without an index on the key.
    @Test func sortsFollowTheTypesOwnOrder() throws {
        let seed = testSeed("TypedPredicateTests.sorts")
        try sorts(TypedItem.self, seed: seed)
        try sorts(IndexedTypedItem.self, seed: seed)
    }

    private func sorts<M: TypedItemModel>(_ type: M.Type, seed: UInt64) throws {
        var values = TypedItemValues(rng: SeededGenerator(seed: seed))
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([type])
        let context = ModelContext(container)
        for n in 0..<200 {
            let item = M()
            values.fill(item, n: n)
            context.insert(item)
        }
        try context.save()
        func check<K>(
            _ sort: SortDescriptor<M>, _ key: (M) -> K, _ before: (K, K) -> Bool,
            _ name: String
        ) throws {
            let found = try context.fetch(FetchDescriptor<M>(sortBy: [sort])).map(key)
            for (a, b) in zip(found, found.dropFirst()) where before(b, a) {
                Issue.record("\(M.self) sorted by \(name): \(b) after \(a) (seed \(seed))")
                return
            }
        }
        // NaN last for binary floating point (the order indexes keep); Decimal's NaN first.
        func floatBefore(_ a: Float, _ b: Float) -> Bool {
            b.isNaN ? !a.isNaN : (!a.isNaN && a < b)
        }
        try check(SortDescriptor(\.price), \.price, { $0 < $1 }, "price")
        try check(SortDescriptor(\.price, order: .reverse), \.price, { $0 > $1 }, "price reversed")
        try check(SortDescriptor(\.u64), \.u64, { $0 < $1 }, "u64")
        try check(SortDescriptor(\.i8), \.i8, { $0 < $1 }, "i8")
        try check(SortDescriptor(\.ratio), \.ratio, floatBefore, "ratio")
        try check(SortDescriptor(\.address.city), \.address.city, { $0 < $1 }, "address.city")
        try check(SortDescriptor(\.link.absoluteString), \.link.absoluteString, { $0 < $1 }, "link")
    }
}

extension TypedPredicateTests.Case {
    init(_ name: String, _ predicate: Predicate<M>, _ test: @escaping (M) -> Bool) {
        self.init(name: name, predicate: predicate, test: test)
    }
}
