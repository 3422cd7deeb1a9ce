import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Every attribute type of schema format 3, with its edge values, generated from a seed:
/// saved, read back by a reopened container (classes), by a container without classes
/// (``ManagedObject``), by the tools' decoder (``RecordDecoder``), and as of an earlier save.
@MainActor @Suite struct AttributeTypeRoundTripTests {
    static let types: [any PersistentModel.Type] = [Gadget.self, OptionalGadget.self]

    @Test func randomValuesRoundTripThroughEveryReader() throws {
        let seed = testSeed("AttributeTypeRoundTripTests")
        var values = TypeValues(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var expected: [String: [String: AttributeValue]] = [:]
        do {
            let container = try fixture.open(Self.types)
            let context = ModelContext(container)
            for i in 0..<60 {
                let g = values.gadget("g\(i)")
                context.insert(g)
                expected["Gadget/\(g.name)"] = storedValues(of: g)
                let o = values.optionalGadget("o\(i)")
                context.insert(o)
                expected["OptionalGadget/\(o.name)"] = storedValues(of: o)
            }
            try context.save()
            try container.close()
        }
        // Classes, after a reopen (the records are read from the log, not from memory).
        let container = try fixture.open(Self.types)
        let context = ModelContext(container)
        let gadgets = try context.fetch(FetchDescriptor<Gadget>())
        #expect(gadgets.count == 60)
        for g in gadgets {
            let difference = firstDifference(storedValues(of: g), expected["Gadget/\(g.name)"] ?? [:])
            #expect(difference == nil, "\(g.name): \(difference ?? "") (seed \(seed))")
        }
        let optionals = try context.fetch(FetchDescriptor<OptionalGadget>())
        #expect(optionals.count == 60)
        for o in optionals {
            let difference = firstDifference(
                storedValues(of: o), expected["OptionalGadget/\(o.name)"] ?? [:])
            #expect(difference == nil, "\(o.name): \(difference ?? "") (seed \(seed))")
        }
        try container.close()
        // The tools' decoder, with the store's own schema.
        let store = try LogStore(path: fixture.url.path, options: {
            var options = LogStoreOptions()
            options.readOnly = true
            return options
        }())
        let decoder = try RecordDecoder(store: store)
        for entity in ["Gadget", "OptionalGadget"] {
            for record in try decoder.records(of: entity, in: store) {
                let values = record.values
                guard case .string(let name)? = values["name"] else {
                    Issue.record("no name in \(record.id)")
                    continue
                }
                let difference = firstDifference(values, expected["\(entity)/\(name)"] ?? [:])
                #expect(difference == nil, "\(entity)/\(name): \(difference ?? "") (seed \(seed))")
            }
        }
        try store.close()
        // Dynamic objects, without the classes.
        let dynamic = try ModelContainer(schema: nil, at: fixture.url)
        for object in try ModelContext(dynamic).fetch(entity: "Gadget") {
            let name = try object.attributeValue(forKey: "name")
            guard case .string(let n) = name, let wanted = expected["Gadget/\(n)"] else {
                Issue.record("unexpected \(name)")
                continue
            }
            for (key, value) in wanted {
                let found = try object.attributeValue(forKey: key)
                #expect(sameValue(found, value), "Gadget/\(n).\(key): \(found) (seed \(seed))")
            }
        }
        try dynamic.close()
    }

    @Test func theSchemaRecordsEachDeclaredType() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(Self.types)
        let gadget = try #require(container.schema.entity(named: "Gadget"))
        let declared = Dictionary(
            uniqueKeysWithValues: gadget.attributes.map { ($0.name, $0.declaredType) })
        #expect(declared["i8"] == "Int8")
        #expect(declared["i16"] == "Int16")
        #expect(declared["i32"] == "Int32")
        #expect(declared["u8"] == "UInt8")
        #expect(declared["u16"] == "UInt16")
        #expect(declared["u32"] == "UInt32")
        #expect(declared["u64"] == "UInt64")
        #expect(declared["ratio"] == "Float")
        #expect(declared["price"] == "Decimal")
        #expect(declared["homepage"] == "URL")
        #expect(declared["status"] == "Status")
        #expect(declared["priority"] == "Priority")
        #expect(declared["address"] == "Address")
        #expect(declared["address.zip"] == "String?")
        #expect(declared["address.geo"] == "Geo")
        #expect(declared["tags"] == "[String]")
        #expect(declared["codes"] == "Set<Int32>")
        #expect(declared["labels"] == "[Tag]")
        #expect(declared["matrix"] == "[[Int64]]")
        let optional = try #require(container.schema.entity(named: "OptionalGadget"))
        let optionalDeclared = Dictionary(
            uniqueKeysWithValues: optional.attributes.map { ($0.name, $0.declaredType) })
        #expect(optionalDeclared["address"] == "Address?")
        #expect(optionalDeclared["address.city"] == "String?")
        #expect(optionalDeclared["statuses"] == "Set<Status>?")
        #expect(optionalDeclared["maybeNames"] == "[String?]")
        #expect(gadget.attribute(named: "status")?.type == .string)
        #expect(gadget.attribute(named: "priority")?.type == .integer)
        // The schema read back from the store is the same.
        try container.close()
        let reopened = try ModelContainer(schema: nil, at: fixture.url)
        #expect(reopened.schema.entity(named: "Gadget") == gadget)
        #expect(reopened.schema.fingerprint == container.schema.fingerprint)
    }
}

extension Entity {
    func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name }
    }
}
