import Foundation
import Logbook
import TestSupport
import Testing

/// A customer with a composite (a Codable struct stored as structured fields), an optional one,
/// and an index on one of its fields.
final class Customer: PersistentModel {
    @Attribute var name = ""
    @Attribute var address = Address()
    @Attribute var billing: Address? = nil
    @Attribute var status = Status.active
    @Attribute var tags: [String] = []
    @Attribute var balance: Decimal = 0

    static var indexes: [ModelIndex<Customer>] { [.index(\.address.city)] }

    init() {}

    convenience init(_ name: String, city: String, status: Status = .active) {
        self.init()
        self.name = name
        self.address = Address(street: "\(name) Street", city: city)
        self.status = status
    }
}

/// An account whose composite is unique: no two accounts share the whole value.
final class Holding: PersistentModel {
    @Attribute var name = ""
    @Attribute(.unique) var home = Address()
    @Attribute(.unique) var amount: Decimal = 0
    init() {}
}

/// A value whose Encodable writes a field its Decodable does not read.
struct Drifting: Codable {
    var value = 0
    var broken = false
    enum CodingKeys: String, CodingKey { case value }
    init() {}
    init(from decoder: any Decoder) throws {
        value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(value, forKey: AnyKey(broken ? "other" : "value"))
    }
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

final class HoldsDrifting: PersistentModel {
    @Attribute var name = ""
    @Attribute var drifting: Drifting? = nil
    init() {}
}

@MainActor @Suite struct CompositeAttributeTests {
    private func open(_ fixture: LogbookFixture) throws -> ModelContainer {
        try fixture.open([Customer.self])
    }

    @Test func aFieldOfACompositeIsAnAttributeOfItsOwn() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try open(fixture)
        let entity = try #require(container.schema.entity(named: "Customer"))
        #expect(
            entity.attributes.map(\.name).prefix(9) == [
                "name", "address", "address.street", "address.city", "address.zip",
                "address.geo", "address.geo.lat", "address.geo.lon", "billing",
            ])
        #expect(entity.compositeFields(of: 1) == Array(2...7))
        let context = ModelContext(container)
        context.insert(Customer("Ann", city: "Pune"))
        context.insert(Customer("Bo", city: "Oslo"))
        for i in 0..<200 { context.insert(Customer("c\(i)", city: "City \(i)")) }
        try context.save()
        // The index on address.city answers, and the dynamic API reads the field by name.
        let descriptor = FetchDescriptor<Customer>(
            predicate: #Predicate { $0.address.city == "Pune" })
        #expect(try context.fetch(descriptor).map(\.name) == ["Ann"])
        #expect(try context.explain(descriptor).indexes == ["Customer(address.city)"])
        let rows = try context.fetch(entity: "Customer", where: "address.city == %@", "Oslo")
        #expect(try rows.map { try $0.attributeValue(forKey: "name") } == [.string("Bo")])
        #expect(try rows[0].attributeValue(forKey: "address.street") == .string("Bo Street"))
    }

    @Test func rollbackRestoresAWholeComposite() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try open(fixture))
        let ann = Customer("Ann", city: "Pune")
        context.insert(ann)
        try context.save()
        ann.address.city = "Mumbai"
        ann.address.geo.lat = 19
        ann.billing = Address(street: "PO Box 1", city: "Delhi")
        #expect(ann.hasChanges)
        context.rollback()
        #expect(ann.address == Address(street: "Ann Street", city: "Pune"))
        #expect(ann.billing == nil)
        ann.billing = Address(city: "Delhi")
        try context.save()
        ann.billing = nil
        context.rollback()
        #expect(ann.billing == Address(city: "Delhi"))
    }

    @Test func historySaysWhichFieldsOfACompositeChanged() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try open(fixture)
        let context = ModelContext(container)
        let ann = Customer("Ann", city: "Pune")
        context.insert(ann)
        try context.save()
        let token = try container.currentHistoryToken
        ann.address.city = "Mumbai"
        try context.save()
        let updated = try #require(try container.history(after: token).first?.changes.first)
        #expect(updated.updatedAttributes.contains("address.city"))
        #expect(!updated.updatedAttributes.contains("name"))
        // The past state shows the old value.
        let past = try container.context(asOf: token)
        #expect(try past.fetch(FetchDescriptor<Customer>()).first?.address.city == "Pune")
        #expect(
            try past.fetch(
                FetchDescriptor<Customer>(predicate: #Predicate { $0.address.city == "Pune" })
            )
            .count == 1)
    }

    @Test func batchUpdateAndDeleteReachCompositesEnumsAndArrays() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try open(fixture))
        for (i, city) in ["Pune", "Oslo", "Pune", "Lima"].enumerated() {
            let c = Customer("c\(i)", city: city, status: i % 2 == 0 ? .active : .archived)
            c.tags = i == 1 ? ["vip"] : []
            context.insert(c)
        }
        try context.save()
        let updated = try context.update(
            model: Customer.self, where: #Predicate { $0.address.city == "Pune" }
        ) {
            $0.address.city = "Mumbai"
            $0.tags.append("moved")
        }
        #expect(updated == 2)
        let moved = try context.fetch(
            FetchDescriptor<Customer>(predicate: #Predicate { $0.tags.contains("moved") }))
        #expect(Set(moved.map(\.address.city)) == ["Mumbai"])
        #expect(
            try context.fetchCount(
                FetchDescriptor<Customer>(predicate: #Predicate { $0.address.city == "Mumbai" }))
                == 2)
        let archived = Status.archived
        #expect(
            try context.delete(model: Customer.self, where: #Predicate { $0.status == archived })
                == 2)
        #expect(try context.fetchCount(FetchDescriptor<Customer>()) == 2)
        #expect(
            try context.update(
                entity: "Customer", where: "tags.@count > 0", set: ["address.city": "Rome"]) == 2)
        #expect(
            try context.fetchCount(
                FetchDescriptor<Customer>(predicate: #Predicate { $0.address.city == "Rome" })) == 2
        )
    }

    @Test func aUniqueCompositeIsAConstraintOverItsFields() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Holding.self]))
        let a = Holding()
        a.home = Address(street: "1 Main", city: "Pune")
        a.amount = Decimal(string: "12.5")!
        context.insert(a)
        try context.save()
        let b = Holding()
        b.home = Address(street: "1 Main", city: "Oslo")
        b.amount = Decimal(string: "0.1")!
        context.insert(b)
        try context.save()  // another city: a different composite
        let c = Holding()
        c.home = Address(street: "1 Main", city: "Pune")
        c.amount = 7
        context.insert(c)
        #expect(throws: LogbookError.self) { try context.save() }
        context.rollback()
        // 12.50 is the decimal 12.5: the same value.
        let d = Holding()
        d.home = Address(city: "Lima")
        d.amount = Decimal(string: "12.50")!
        context.insert(d)
        #expect(throws: LogbookError.self) { try context.save() }
        context.rollback()
        // 0.1000000000000000000001 is not 0.1 (a double could not tell them apart).
        let e = Holding()
        e.home = Address(city: "Quito")
        e.amount = Decimal(string: "0.1000000000000000000001")!
        context.insert(e)
        try context.save()
    }

    @Test func aValueThatDoesNotConvertIsRefusedAtSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([HoldsDrifting.self]))
        let holder = HoldsDrifting()
        var drifting = Drifting()
        drifting.value = 3
        holder.drifting = drifting
        context.insert(holder)
        try context.save()
        holder.drifting?.broken = true
        #expect {
            try context.save()
        } throws: { error in
            guard case LogbookError.typeMismatch(let entity, let attribute, _, _) = error else {
                return false
            }
            return entity == "HoldsDrifting" && attribute == "drifting"
        }
    }
}

// Schema versions of a composite that gains a field: records of the first read in the second.
struct AddressV1: Codable {
    var street = ""
    var city = ""
}
struct AddressV2: Codable {
    var street = ""
    var city = ""
    var zip = "00000"
    var note: String? = nil
}

final class PlaceV1: PersistentModel {
    static var entityName: String { "Place" }
    @Attribute var name = ""
    @Attribute var address = AddressV1()
    init() {}
}

final class PlaceV2: PersistentModel {
    static var entityName: String { "Place" }
    @Attribute var name = ""
    @Attribute var address = AddressV2()
    init() {}
}

@MainActor @Suite struct CompositeMigrationTests {
    @Test func aCompositeThatGainsFieldsMigrates() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([PlaceV1.self])
            let context = ModelContext(container)
            let p = PlaceV1()
            p.name = "old"
            p.address = AddressV1(street: "1 Main", city: "Pune")
            context.insert(p)
            try context.save()
            try container.close()
        }
        let container = try fixture.open([PlaceV2.self])
        #expect(container.schema.version == 2)
        let context = ModelContext(container)
        let old = try #require(try context.fetch(FetchDescriptor<PlaceV2>()).first)
        #expect(old.address.street == "1 Main" && old.address.city == "Pune")
        #expect(old.address.zip == "00000" && old.address.note == nil)
        #expect(
            try context.fetchCount(
                FetchDescriptor<PlaceV2>(predicate: #Predicate { $0.address.zip == "00000" })) == 1)
        old.address.note = "moved"
        try context.save()
        try container.close()
        // The old classes open it by lightweight migration, which removes the fields their
        // composite lacks (issue 38: removing an attribute is lightweight; an app that must
        // refuse a store of a newer model opens it with a SchemaMigrationPlan).
        let older = try fixture.open([PlaceV1.self])
        let again = try #require(try ModelContext(older).fetch(FetchDescriptor<PlaceV1>()).first)
        #expect(again.address.street == "1 Main" && again.address.city == "Pune")
    }
}
