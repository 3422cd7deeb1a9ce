import Foundation
import Logbook
import TestSupport
import Testing

/// A reading with every number type aggregates add up, no index.
final class Reading: PersistentModel {
    @Attribute var tag = ""
    @Attribute var small: Int8 = 0
    @Attribute var medium: UInt16 = 0
    @Attribute var wide: Int32? = nil
    @Attribute var big: UInt64 = 0
    @Attribute var ratio: Float = 0
    @Attribute var price: Decimal = 0
    @Attribute var taken = Date(timeIntervalSinceReferenceDate: 0)
    init() {}
}

/// The same entity with each attribute indexed and a covering index of the tag, the price and
/// the big number, so that indexes answer extremes, counts and covered group sums.
final class IndexedReading: PersistentModel {
    static var entityName: String { "Reading" }
    @Attribute(.indexed) var tag = ""
    @Attribute(.indexed) var small: Int8 = 0
    @Attribute(.indexed) var medium: UInt16 = 0
    @Attribute(.indexed) var wide: Int32? = nil
    @Attribute(.indexed) var big: UInt64 = 0
    @Attribute(.indexed) var ratio: Float = 0
    @Attribute(.indexed) var price: Decimal = 0
    @Attribute(.indexed) var taken = Date(timeIntervalSinceReferenceDate: 0)
    static var indexes: [ModelIndex<IndexedReading>] { [.index(\.tag, \.price, \.big)] }
    init() {}
}

/// Aggregates over the number types beyond `Int` and `Double` (`Int8` … `UInt64`, `Float`,
/// `Decimal`, `Date`) against the numbers Swift computes from fetched objects, on random data,
/// with and without indexes, with pending changes.
@Suite struct AggregateNumberTypesTests {
    /// What the tests read of a reading.
    struct Row {
        var tag: String
        var small: Int8
        var medium: UInt16
        var wide: Int32?
        var big: UInt64
        var ratio: Float
        var price: Decimal
        var taken: Date
    }

    protocol Readable: PersistentModel {
        var tag: String { get set }
        var small: Int8 { get set }
        var medium: UInt16 { get set }
        var wide: Int32? { get set }
        var big: UInt64 { get set }
        var ratio: Float { get set }
        var price: Decimal { get set }
        var taken: Date { get set }
        init()
    }

    static func rows<R: Readable>(_ context: ModelContext, _ type: R.Type) throws -> [Row] {
        try context.fetch(FetchDescriptor<R>()).map {
            Row(
                tag: $0.tag, small: $0.small, medium: $0.medium, wide: $0.wide, big: $0.big,
                ratio: $0.ratio, price: $0.price, taken: $0.taken)
        }
    }

    static func randomize<R: Readable>(_ r: R, _ rng: inout SeededGenerator) {
        r.tag = ["a", "b", "c", "d"].randomElement(using: &rng)!
        r.small = Int8.random(in: .min ... .max, using: &rng)
        r.medium = UInt16.random(in: .min ... .max, using: &rng)
        r.wide = Bool.random(using: &rng) ? Int32.random(in: .min ... .max, using: &rng) : nil
        // Now and then past Int64.max: two of those overflow a UInt64 sum.
        r.big =
            Int.random(in: 0..<30, using: &rng) == 0
            ? UInt64(Int64.max) + UInt64.random(in: 1...1_000, using: &rng)
            : UInt64.random(in: 0...1_000_000, using: &rng)
        // Eighths: exact in a Float, their sums exact in a Double.
        r.ratio = Float(Int.random(in: -8_000...8_000, using: &rng)) / 8
        // Up to 12 digits, 4 after the point: sums stay exact in a Decimal.
        r.price =
            Decimal(Int64.random(in: -100_000_000...100_000_000_000, using: &rng))
            / Decimal(10_000)
        r.taken = Date(
            timeIntervalSinceReferenceDate: Double(Int.random(in: 0...100_000, using: &rng)) * 60)
    }

    /// The expected value of each function over `rows`, in the order of ``functions``; `nil`
    /// for a sum that overflows.
    static func expected(_ rows: [Row]) -> [AttributeValue?] {
        let n = rows.count
        let small = rows.reduce(Int64(0)) { $0 + Int64($1.small) }
        let medium = rows.reduce(Int64(0)) { $0 + Int64($1.medium) }
        let wides = rows.compactMap(\.wide)
        let wide = wides.reduce(Int64(0)) { $0 + Int64($1) }
        var big: UInt64? = 0
        for row in rows {
            guard let b = big else { break }
            let (sum, overflow) = b.addingReportingOverflow(row.big)
            big = overflow ? nil : sum
        }
        let ratio = rows.reduce(0.0) { $0 + Double($1.ratio) }
        let price = rows.reduce(Decimal(0)) { $0 + $1.price }
        let seconds = rows.reduce(0.0) { $0 + $1.taken.timeIntervalSinceReferenceDate }
        func opt<T>(_ v: T?, _ f: (T) -> AttributeValue) -> AttributeValue { v.map(f) ?? .null }
        return [
            .integer(small), opt(rows.map(\.small).min()) { .integer(Int64($0)) },
            opt(rows.map(\.small).max()) { .integer(Int64($0)) },
            .integer(medium), opt(rows.map(\.medium).max()) { .integer(Int64($0)) },
            .integer(wide), .integer(Int64(wides.count)), opt(wides.min()) { .integer(Int64($0)) },
            big.map { .unsigned($0) }, opt(rows.map(\.big).min()) { .unsigned($0) },
            opt(rows.map(\.big).max()) { .unsigned($0) },
            .float(Float(ratio)), n == 0 ? .null : .double(ratio / Double(n)),
            opt(rows.map(\.ratio).min()) { .float($0) },
            opt(rows.map(\.ratio).max()) { .float($0) },
            .decimal(price), n == 0 ? .null : .decimal(price / Decimal(n)),
            opt(rows.map(\.price).min()) { .decimal($0) },
            opt(rows.map(\.price).max()) { .decimal($0) },
            opt(rows.map(\.taken).min()) { .date($0) }, opt(rows.map(\.taken).max()) { .date($0) },
            n == 0 ? .null : .date(Date(timeIntervalSinceReferenceDate: seconds / Double(n))),
        ]
    }

    static func functions<R: Readable>(_ type: R.Type) -> [AggregateFunction<R>] {
        [
            .sum(\.small), .minimum(\.small), .maximum(\.small), .sum(\.medium), .maximum(\.medium),
            .sum(\.wide), .count(\.wide), .minimum(\.wide), .sum(\.big), .minimum(\.big),
            .maximum(\.big), .sum(\.ratio), .average(\.ratio), .minimum(\.ratio),
            .maximum(\.ratio), .sum(\.price), .average(\.price), .minimum(\.price),
            .maximum(\.price), .minimum(\.taken), .maximum(\.taken), .average(\.taken),
        ]
    }

    /// Each function alone (so that an overflowing sum fails only itself), over all and per
    /// tag, then the shortcuts.
    static func check<R: Readable>(_ context: ModelContext, _ type: R.Type, _ label: String)
        throws
    {
        let rows = try Self.rows(context, type)
        let all = expected(rows)
        let tags = Dictionary(grouping: rows, by: \.tag).mapValues(expected)
        let groupings: [([PartialKeyPath<R>], [String: [AttributeValue?]])] = [
            ([], ["": all]), ([\R.tag], tags),
        ]
        for (f, function) in functions(type).enumerated() {
            let what = "\(label) \(function.operation) #\(f)"
            for (groupBy, wanted) in groupings {
                let descriptor = AggregateDescriptor<R>(groupBy: groupBy, computing: [function])
                guard wanted.values.allSatisfy({ $0[f] != nil }) else {
                    #expect(throws: LogbookError.self, "\(what): overflow") {
                        try context.aggregate(descriptor)
                    }
                    continue
                }
                for row in try context.aggregate(descriptor) {
                    let key = groupBy.isEmpty ? "" : (row[\R.tag] ?? "?")
                    let got = row.values[0]
                    let want = wanted[key]?[f] ?? .null
                    switch (got, want) {
                    case (.double(let a), .double(let b)):
                        #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(what) \(key)")
                    case (.date(let a), .date(let b)):
                        #expect(
                            abs(a.timeIntervalSince(b)) <= 1e-3, "\(what) \(key): \(a) \(b)")
                    default:
                        #expect(got == want, "\(what) \(key)")
                    }
                }
            }
        }
        #expect(try context.minimum(\R.big) == rows.map(\.big).min(), "\(label): min big")
        #expect(try context.maximum(\R.price) == rows.map(\.price).max(), "\(label): max price")
        #expect(
            try context.sum(\R.price) == rows.reduce(Decimal(0)) { $0 + $1.price },
            "\(label): sum price")
        let smallSum = rows.reduce(Int64(0)) { $0 + Int64($1.small) }
        if let fits = Int8(exactly: smallSum) {
            #expect(try context.sum(\R.small) == fits, "\(label): sum small")
        } else {
            #expect(
                throws: LogbookError.aggregateOverflow(entity: "Reading", attribute: "small"),
                "\(label): an Int8 sum past Int8"
            ) { try context.sum(\R.small) }
        }
    }

    func run<R: Readable>(_ type: R.Type, _ name: String) throws {
        let seed = testSeed(name)
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([R.self])
        let context = ModelContext(container)
        for step in 0..<12 {
            for _ in 0..<Int.random(in: 0...25, using: &rng) {
                let r = R()
                Self.randomize(r, &rng)
                context.insert(r)
            }
            let existing = try context.fetch(FetchDescriptor<R>()).shuffled(using: &rng)
            for r in existing.prefix(Int.random(in: 0...4, using: &rng)) {
                Self.randomize(r, &rng)
            }
            for r in existing.dropFirst(4).prefix(Int.random(in: 0...3, using: &rng)) {
                context.delete(r)
            }
            let label = "seed \(seed) step \(step)"
            try Self.check(context, type, label + " pending")
            try context.save()
            try Self.check(ModelContext(container), type, label + " saved")
        }
    }

    @Test func numberTypesAgreeWithSwiftWithoutIndexes() throws {
        try run(Reading.self, "numberTypesAgreeWithSwiftWithoutIndexes")
    }

    @Test func numberTypesAgreeWithSwiftWithIndexes() throws {
        try run(IndexedReading.self, "numberTypesAgreeWithSwiftWithIndexes")
    }

    /// Extremes, counts and covered sums of the new types come from the indexes alone.
    @Test func indexesAnswerTheNewTypes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([IndexedReading.self])
        let context = ModelContext(container)
        var rng = SeededGenerator(seed: 39)
        for _ in 0..<50 {
            let r = IndexedReading()
            Self.randomize(r, &rng)
            r.big = UInt64(Int64.max) + UInt64.random(in: 0...1, using: &rng) * 7
            context.insert(r)
        }
        try context.save()
        let fresh = ModelContext(container)
        let extremes = try fresh.explainAggregate(
            AggregateDescriptor<IndexedReading>(computing: [
                .minimum(\.small), .maximum(\.medium), .minimum(\.wide), .maximum(\.big),
                .minimum(\.ratio), .maximum(\.price), .minimum(\.taken), .count(\.price),
            ]))
        #expect(extremes.recordsRead == 0)
        #expect(extremes.rows[0].values[3] == .unsigned(UInt64(Int64.max) + 7))
        let covered = try fresh.explainAggregate(
            AggregateDescriptor<IndexedReading>(
                groupBy: [\.tag], computing: [.sum(\.price), .average(\.price), .maximum(\.big)]))
        #expect(covered.recordsRead == 0)
        let scanned = try ModelContext(container).aggregate(
            AggregateDescriptor<IndexedReading>(
                predicate: #Predicate { $0.tag != "" }, groupBy: [\.tag],
                computing: [.sum(\.price), .average(\.price), .maximum(\.big)]))
        #expect(covered.rows == scanned)
    }

    /// A Decimal sum Decimal cannot hold exactly is the overflow error, not a rounded sum.
    @Test func aDecimalSumThatLosesDigitsIsAnOverflow() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Reading.self]))
        for text in ["1e30", "1e-10"] {
            let r = Reading()
            r.price = Decimal(string: text)!
            context.insert(r)
        }
        #expect(throws: LogbookError.aggregateOverflow(entity: "Reading", attribute: "price")) {
            try context.sum(\Reading.price)
        }
        #expect(try context.average(\Reading.price) == Decimal(string: "5e29"))
    }
}

extension Reading: AggregateNumberTypesTests.Readable {}
extension IndexedReading: AggregateNumberTypesTests.Readable {}
