import Foundation
import Logbook
import TestSupport
import Testing

/// The string predicate syntax (`fetch(entity:where:)`, `logbook dump --where`) over the new
/// attribute types: constants take the attribute's type, a composite's fields are named with
/// dots, arrays and sets answer CONTAINS, IN and `.@count`.
@MainActor @Suite struct TypedStringPredicateTests {
    private func filled() throws -> (LogbookFixture, ModelContext) {
        let fixture = LogbookFixture()
        let context = ModelContext(try fixture.open([Gadget.self]))
        for i in 0..<6 {
            let g = Gadget()
            g.name = "g\(i)"
            g.i8 = Int8(i) - 3
            g.u64 = i == 5 ? UInt64.max : UInt64(i) << 62
            g.ratio = Float(i) / 10
            g.price = Decimal(string: ["0.1", "0.1000000000000000000001", "9.99", "12.5", "-1", "1e30"][i])!
            g.homepage = URL(string: "https://site\(i % 2).example/")!
            g.status = Status.allCases[i % 3]
            g.priority = i % 2 == 0 ? .low : .high
            g.address = Address(street: "s\(i)", city: i < 3 ? "Pune" : "Oslo", geo: Geo(lat: Double(i)))
            g.tags = Array(["a", "b", "c"].prefix(i % 4))
            g.codes = Set([Int32(i), 7])
            context.insert(g)
        }
        try context.save()
        return (fixture, context)
    }

    private func names(_ context: ModelContext, _ format: String, _ arguments: Any?...) throws
        -> [String]
    {
        var descriptor = EntityFetchDescriptor(
            entityName: "Gadget", predicate: try StringPredicate(format: format, arguments: arguments))
        descriptor.sortBy = [("name", true)]
        return try context.fetch(descriptor)
            .map { object in
                guard case .string(let name) = try object.attributeValue(forKey: "name") else {
                    return "?"
                }
                return name
            }
    }

    @Test func constantsTakeTheAttributesType() throws {
        let (fixture, context) = try filled()
        defer { fixture.remove() }
        #expect(try names(context, "i8 < 0") == ["g0", "g1", "g2"])
        #expect(try names(context, "u64 > 9223372036854775807") == ["g2", "g3", "g5"])
        #expect(try names(context, "u64 == %@", UInt64.max) == ["g5"])
        #expect(try names(context, "ratio == 0.1") == ["g1"])  // Float(0.1), not the double
        #expect(try names(context, "price == 0.1") == ["g0"])  // exactly, not through a double
        #expect(try names(context, "price > 0.1") == ["g1", "g2", "g3", "g5"])
        #expect(try names(context, "price == %@", Decimal(string: "0.1000000000000000000001")!) == ["g1"])
        #expect(try names(context, "price BETWEEN {0, 10}") == ["g0", "g1", "g2"])
        #expect(try names(context, "homepage == 'https://site1.example/'") == ["g1", "g3", "g5"])
        #expect(try names(context, "status == 'archived'") == ["g1", "g4"])
        #expect(try names(context, "status == %@", Status.suspended) == ["g2", "g5"])
        #expect(try names(context, "priority == 10") == ["g1", "g3", "g5"])
        #expect(try names(context, "status IN {'active', 'suspended'}") == ["g0", "g2", "g3", "g5"])
    }

    @Test func compositeFieldsArraysAndSets() throws {
        let (fixture, context) = try filled()
        defer { fixture.remove() }
        #expect(try names(context, "address.city == 'Oslo'") == ["g3", "g4", "g5"])
        #expect(try names(context, "address.geo.lat >= 4") == ["g4", "g5"])
        #expect(try names(context, "address.city BEGINSWITH 'Pu'") == ["g0", "g1", "g2"])
        #expect(try names(context, "tags CONTAINS 'b'") == ["g2", "g3", "g6"].filter { $0 != "g6" })
        #expect(try names(context, "'c' IN tags") == ["g3"])
        #expect(try names(context, "tags.@count == 0") == ["g0", "g4"])
        #expect(try names(context, "tags.@count >= 2") == ["g2", "g3", "g5"].filter { $0 != "g5" } + [])
        #expect(try names(context, "codes CONTAINS 4") == ["g4"])
        #expect(try names(context, "7 IN codes") == ["g0", "g1", "g2", "g3", "g4", "g5"])
        #expect(try names(context, "tags CONTAINS[c] 'A'") == ["g1", "g2", "g3", "g5"])
    }

    @Test func mistakesAreSyntaxErrors() throws {
        let (fixture, context) = try filled()
        defer { fixture.remove() }
        #expect(throws: LogbookError.self) { try names(context, "price == 'cheap'") }
        #expect(throws: LogbookError.self) { try names(context, "name.@count > 1") }
        #expect(throws: LogbookError.self) { try names(context, "tags CONTAINS 3") }
        #expect(throws: LogbookError.self) { try names(context, "address.town == 'Pune'") }
    }
}
