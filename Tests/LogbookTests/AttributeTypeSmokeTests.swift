import Foundation
import Logbook
import TestSupport
import Testing

@MainActor @Suite struct AttributeTypeSmokeTests {
    @Test func aGadgetRoundTrips() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([Gadget.self, OptionalGadget.self])
            print(container.schema.entities.map { $0.attributes.map { "\($0.name): \($0.declaredType)" } })
            let context = container.mainContext
            let g = Gadget()
            g.name = "one"
            g.i8 = -128
            g.u64 = UInt64.max
            g.ratio = 0.1
            g.price = Decimal(string: "12.50")!
            g.homepage = URL(string: "https://logbook.example/a?b=c")!
            g.status = .archived
            g.priority = .high
            g.address = Address(street: "MG Road", city: "Pune", zip: "411001", geo: Geo(lat: 18.5, lon: 73.8))
            g.tags = ["a", "b"]
            g.codes = [3, 1, 2]
            g.labels = [Tag(name: "x", weight: 2, status: .active)]
            g.matrix = [[1, 2], [], [3]]
            context.insert(g)
            let o = OptionalGadget()
            o.name = "opt"
            context.insert(o)
            let p = OptionalGadget()
            p.name = "full"
            p.address = Address(street: "s", city: "c")
            p.statuses = [.suspended, .active]
            p.maybeNames = ["x", nil]
            context.insert(p)
            try context.save()
            try container.close()
        }
        let container = try fixture.open([Gadget.self, OptionalGadget.self])
        let context = ModelContext(container)
        let g = try #require(try context.fetch(FetchDescriptor<Gadget>()).first)
        #expect(g.i8 == -128)
        #expect(g.u64 == UInt64.max)
        #expect(g.ratio == 0.1)
        #expect(g.price == Decimal(string: "12.5")!)
        #expect(g.homepage == URL(string: "https://logbook.example/a?b=c")!)
        #expect(g.status == .archived)
        #expect(g.priority == .high)
        #expect(g.address == Address(street: "MG Road", city: "Pune", zip: "411001", geo: Geo(lat: 18.5, lon: 73.8)))
        #expect(g.tags == ["a", "b"])
        #expect(g.codes == [1, 2, 3])
        #expect(g.labels == [Tag(name: "x", weight: 2, status: .active)])
        #expect(g.matrix == [[1, 2], [], [3]])
        let all = try context.fetch(FetchDescriptor<OptionalGadget>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["full", "opt"])
        #expect(all[1].address == nil && all[1].statuses == nil && all[1].u64 == nil)
        #expect(all[0].address == Address(street: "s", city: "c"))
        #expect(all[0].statuses == [.active, .suspended])
        #expect(all[0].maybeNames == ["x", nil])
        let pune = try context.fetch(FetchDescriptor<Gadget>(predicate: #Predicate { $0.address.city == "Pune" }))
        #expect(pune.count == 1)
        print(try context.explain(FetchDescriptor<Gadget>(predicate: #Predicate { $0.address.city == "Pune" })))
        print(try context.explain(FetchDescriptor<Gadget>(predicate: #Predicate { $0.tags.contains("a") })))
        print(try context.explain(FetchDescriptor<Gadget>(predicate: #Predicate { $0.tags.count > 1 })))
        print(try context.explain(FetchDescriptor<Gadget>(predicate: #Predicate { $0.tags.isEmpty })))
        print(try context.explain(FetchDescriptor<OptionalGadget>(predicate: #Predicate { $0.address?.city == "c" })))
        print(try context.explain(FetchDescriptor<Gadget>(predicate: #Predicate { $0.address.geo.lat > 10 })))
        print(try context.explain(FetchDescriptor<Gadget>(predicate: #Predicate { $0.price > 12 })))
        print(try context.explain(FetchDescriptor<Gadget>(sortBy: [SortDescriptor(\.address.city)])))
        let archived = Status.archived
        let byStatus = try context.fetch(FetchDescriptor<Gadget>(predicate: #Predicate { $0.status == archived }))
        #expect(byStatus.count == 1)
        print(try context.explain(FetchDescriptor<Gadget>(predicate: #Predicate { $0.status == archived })))
        let sorted = try context.fetch(FetchDescriptor<OptionalGadget>(sortBy: [SortDescriptor(\.address?.city)]))
        #expect(sorted.map(\.name) == ["opt", "full"])
    }
}
