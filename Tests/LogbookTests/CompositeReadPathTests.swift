import Foundation
import Logbook
import TestSupport
import Testing

/// A composite whose coding keys are not its properties' names: read through `Codable`.
struct Renamed: Codable, Hashable {
    var first = ""
    var second = 0
    enum CodingKeys: String, CodingKey {
        case first = "one"
        case second = "two"
    }
}

/// A class with both kinds of composite: `address` read and written in place, `renamed` and
/// the optional `billing` through their values.
final class Mixed: PersistentModel {
    @Attribute var name = ""
    @Attribute var address = Address()
    @Attribute var renamed = Renamed()
    @Attribute var billing: Address? = nil
    @Attribute var status = Status.active
    init() {}
}

/// Composites read in place and through `Codable` side by side in one record: reopened,
/// fetched by a field, changed in another context, rolled back.
@MainActor @Suite struct CompositeReadPathTests {
    @Test func bothKindsOfCompositeLoadFromOneRecord() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var wanted: [String: (Address, Renamed, Address?, Status)] = [:]
        do {
            let container = try fixture.open([Mixed.self])
            let context = ModelContext(container)
            for i in 0..<50 {
                let m = Mixed()
                m.name = "m\(i)"
                m.address = Address(
                    street: "\(i) Main", city: "City \(i % 5)", zip: i % 2 == 0 ? nil : "\(i)",
                    geo: Geo(lat: Double(i), lon: -Double(i)))
                m.renamed = Renamed(first: "r\(i)", second: i * 7)
                m.billing = i % 3 == 0 ? nil : Address(street: "b\(i)", city: "Billing")
                m.status = i % 4 == 0 ? .archived : .active
                context.insert(m)
                wanted[m.name] = (m.address, m.renamed, m.billing, m.status)
            }
            try context.save()
            try container.close()
        }
        let container = try fixture.open([Mixed.self])
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Mixed>())
        #expect(all.count == 50)
        for m in all {
            let w = try #require(wanted[m.name])
            #expect(
                m.address == w.0 && m.renamed == w.1 && m.billing == w.2 && m.status == w.3,
                "\(m.name)")
        }
        let city = try context.fetch(
            FetchDescriptor<Mixed>(predicate: #Predicate { $0.address.city == "City 3" }))
        #expect(Set(city.map(\.name)) == Set((0..<50).filter { $0 % 5 == 3 }.map { "m\($0)" }))
        // Another context's changes, read back by a third.
        let other = ModelContext(container)
        for m in try other.fetch(FetchDescriptor<Mixed>()) {
            m.address.city = "Moved"
            m.address.geo.lat += 0.5
            m.renamed.second += 1
            m.billing = m.billing == nil ? Address(street: "new", city: "New") : nil
        }
        try other.save()
        let fresh = ModelContext(container)
        for m in try fresh.fetch(FetchDescriptor<Mixed>()) {
            let w = try #require(wanted[m.name])
            #expect(m.address.city == "Moved" && m.address.street == w.0.street)
            #expect(m.address.geo.lat == w.0.geo.lat + 0.5 && m.renamed.second == w.1.second + 1)
            #expect((m.billing == nil) == (w.2 != nil))
        }
        // Rollback restores both kinds.
        let first = try #require(try fresh.fetch(FetchDescriptor<Mixed>()).first)
        let (address, renamed) = (first.address, first.renamed)
        first.address.street = "changed"
        first.renamed.first = "changed"
        fresh.rollback()
        #expect(first.address == address && first.renamed == renamed)
        try container.close()
    }
}
