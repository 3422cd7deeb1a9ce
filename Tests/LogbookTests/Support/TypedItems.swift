import Foundation
import Logbook
import TestSupport

/// What the randomized predicate tests read of an item, the same for the class without and the
/// class with indexes.
protocol TypedItemModel: PersistentModel {
    var n: Int { get set }
    var i8: Int8 { get set }
    var i32: Int32 { get set }
    var u64: UInt64 { get set }
    var ratio: Float { get set }
    var price: Decimal { get set }
    var link: URL { get set }
    var status: Status { get set }
    var priority: Priority { get set }
    var address: Address { get set }
    var spot: Address? { get set }
    var tags: [String] { get set }
    var codes: Set<Int32> { get set }
    var maybeStatus: Status? { get set }
}

/// An item with every new type, no index.
final class TypedItem: TypedItemModel {
    @Attribute var n = 0
    @Attribute var i8: Int8 = 0
    @Attribute var i32: Int32 = 0
    @Attribute var u64: UInt64 = 0
    @Attribute var ratio: Float = 0
    @Attribute var price: Decimal = 0
    @Attribute var link = URL(string: "https://a.example/")!
    @Attribute var status = Status.active
    @Attribute var priority = Priority.low
    @Attribute var address = Address()
    @Attribute var spot: Address? = nil
    @Attribute var tags: [String] = []
    @Attribute var codes: Set<Int32> = []
    @Attribute var maybeStatus: Status? = nil
    init() {}
}

/// The same item with an index on each field and on composite fields.
final class IndexedTypedItem: TypedItemModel {
    @Attribute var n = 0
    @Attribute(.indexed) var i8: Int8 = 0
    @Attribute(.indexed) var i32: Int32 = 0
    @Attribute(.indexed) var u64: UInt64 = 0
    @Attribute(.indexed) var ratio: Float = 0
    @Attribute(.indexed) var price: Decimal = 0
    @Attribute(.indexed) var link = URL(string: "https://a.example/")!
    @Attribute(.indexed) var status = Status.active
    @Attribute(.indexed) var priority = Priority.low
    @Attribute(.indexed) var address = Address()
    @Attribute var spot: Address? = nil
    @Attribute(.indexed) var tags: [String] = []
    @Attribute(.indexed) var codes: Set<Int32> = []
    @Attribute(.indexed) var maybeStatus: Status? = nil

    static var indexes: [ModelIndex<IndexedTypedItem>] {
        [.index(\.address.city), .index(\.address.geo.lat), .index(\.spot?.city), .index(\.status, \.price)]
    }

    init() {}
}

/// The values items take: few of each, so that equality finds matches, edge values among them.
struct TypedItemValues {
    static let i8: [Int8] = [.min, -1, 0, 1, 3, .max]
    static let i32: [Int32] = [.min, -7, 0, 7, 100_000, .max]
    static let u64: [UInt64] = [0, 1, 42, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
    static let ratio: [Float] = [-.infinity, -1.5, -0.0, 0, 1e-30, 0.1, 0.5, .infinity, .nan]
    static let price: [Decimal] = [
        Decimal.nan, Decimal(string: "-3")!, Decimal(0), Decimal(string: "0.1")!,
        Decimal(string: "0.1000000000000000000001")!, Decimal(string: "12.5")!,
        Decimal(string: "12.50")!, Decimal(string: "1e30")!,
        Decimal(string: "99999999999999999999999999999999999999")!,
    ]
    static let link: [URL] = [
        URL(string: "https://a.example/")!, URL(string: "https://b.example/x?y=1")!,
        URL(string: "file:///tmp/z")!,
    ]
    static let cities = ["Pune", "Oslo", "", "Zürich"]
    static let tags = ["a", "b", "c"]
    static let codes: [Int32] = [1, 2, 3]
    static let lat: [Double] = [-0.0, 0, 18.5, -73.25]

    var rng: SeededGenerator

    mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &rng)! }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    mutating func address() -> Address {
        Address(
            street: pick(["", "MG Road"]), city: pick(Self.cities),
            zip: chance(40) ? nil : pick(["411001", "0150"]), geo: Geo(lat: pick(Self.lat), lon: 1))
    }

    /// Fills `item` (number `n`) with random values.
    mutating func fill<M: TypedItemModel>(_ item: M, n: Int) {
        item.n = n
        item.i8 = pick(Self.i8)
        item.i32 = pick(Self.i32)
        item.u64 = pick(Self.u64)
        item.ratio = pick(Self.ratio)
        item.price = pick(Self.price)
        item.link = pick(Self.link)
        item.status = pick(Status.allCases)
        item.priority = pick([.low, .normal, .high])
        item.address = address()
        item.spot = chance(40) ? nil : address()
        item.tags = Self.tags.filter { _ in chance(40) }
        item.codes = Set(Self.codes.filter { _ in chance(40) })
        item.maybeStatus = chance(40) ? nil : pick(Status.allCases)
    }
}
