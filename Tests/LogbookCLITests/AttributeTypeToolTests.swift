import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Every new attribute type through the tools: `export` (JSON Lines, CSV, SQL) and `import`
/// give back the same stored values, `dump` shows them and the declared types and filters on
/// them, `history`, `changes` and `verify` read them.
@Suite struct AttributeTypeToolTests {
    /// A store of random gadgets (seeded) and their stored values, by entity and name.
    static func gadgets(at path: String, seed: UInt64, count: Int = 25) throws
        -> [String: [String: AttributeValue]]
    {
        var values = TypeValues(seed: seed)
        var expected: [String: [String: AttributeValue]] = [:]
        let container = try ModelContainer(
            for: [Gadget.self, OptionalGadget.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        for i in 0..<count {
            let g = values.gadget("g\(i)")
            context.insert(g)
            expected["Gadget/g\(i)"] = storedValues(of: g)
            let o = values.optionalGadget("o\(i)")
            context.insert(o)
            expected["OptionalGadget/o\(i)"] = storedValues(of: o)
        }
        try context.save()
        try container.close()
        return expected
    }

    /// Checks that the live objects of the store at `path` hold exactly `expected`.
    static func check(
        _ path: String, _ expected: [String: [String: AttributeValue]], entities: [String],
        seed: UInt64, _ what: String
    ) throws {
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: path, options: options)
        defer { try? store.close() }
        let decoder = try RecordDecoder(store: store)
        var seen = 0
        for entity in entities {
            for record in try decoder.records(of: entity, in: store) {
                guard case .string(let name)? = record.values["name"],
                    let wanted = expected["\(entity)/\(name)"]
                else {
                    Issue.record("\(what): unexpected \(record.id)")
                    continue
                }
                seen += 1
                // Text writes every NaN as `nan`: its payload is not kept.
                let difference = firstDifference(record.values, wanted, anyNaN: true)
                #expect(
                    difference == nil,
                    "\(what) \(entity)/\(name): \(difference ?? "") (seed \(seed))")
            }
        }
        #expect(
            seen
                == expected.keys.filter { key in entities.contains { key.hasPrefix($0 + "/") } }
                .count, "\(what)")
    }

    @Test func jsonLinesExportImportsBackToTheSameValues() throws {
        let seed = testSeed("AttributeTypeToolTests.jsonl")
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let expected = try Self.gadgets(at: dir.child("source"), seed: seed)
        let export = try CLI.run(["export", dir.child("source")])
        #expect(export.status == 0, "\(export.stderr)")
        writeFile(dir.child("objects.jsonl"), b(export.stdout))
        // Into a new store: the schema comes from the file's first line.
        let result = try CLI.run(["import", dir.child("copy"), dir.child("objects.jsonl")])
        #expect(result.status == 0, "\(result.stderr)")
        try Self.check(
            dir.child("copy"), expected, entities: ["Gadget", "OptionalGadget"], seed: seed,
            "jsonl import")
        let again = try CLI.run(["export", dir.child("copy")])
        #expect(again.stdout == export.stdout)
        // The copy's schema is the source's, declared types and all.
        let source = try ModelContainer(schema: nil, at: URL(fileURLWithPath: dir.child("source")))
        let copy = try ModelContainer(schema: nil, at: URL(fileURLWithPath: dir.child("copy")))
        #expect(source.schema.fingerprint == copy.schema.fingerprint)
        try source.close()
        try copy.close()
        // And the classes open the copy.
        let container = try ModelContainer(
            for: [Gadget.self, OptionalGadget.self], at: URL(fileURLWithPath: dir.child("copy")))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Gadget>()) == 25)
        try container.close()
        #expect(try CLI.run(["verify", dir.child("copy")]).status == 0)
    }

    @Test func aCompositeMayBeImportedAsANestedObject() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        _ = try Self.gadgets(at: dir.child("store"), seed: 1, count: 1)
        let input = """
            {"_entity":"OptionalGadget","name":"nested","address":{"street":"MG Road","city":"Pune","geo":{"lat":18.5,"lon":73.8}},"price":"nan","statuses":["suspended","active","active"],"u64":18446744073709551615}

            """
        let result = try CLI.run(["import", dir.child("store"), "-"], input: input)
        #expect(result.status == 0, "\(result.stderr)")
        let container = try ModelContainer(
            for: [Gadget.self, OptionalGadget.self], at: URL(fileURLWithPath: dir.child("store")))
        defer { try? container.close() }
        let found = try #require(
            try ModelContext(container).fetch(
                FetchDescriptor<OptionalGadget>(predicate: #Predicate { $0.name == "nested" })
            ).first)
        #expect(
            found.address
                == Address(street: "MG Road", city: "Pune", geo: Geo(lat: 18.5, lon: 73.8)))
        #expect(found.price?.isNaN == true)
        #expect(found.statuses == [.active, .suspended])
        #expect(found.u64 == UInt64.max)
        // A value of the wrong type names the line and the attribute.
        let wrong = try CLI.run(
            ["import", dir.child("store"), "-"],
            input: "{\"_entity\":\"OptionalGadget\",\"name\":\"x\",\"i8\":300}\n")
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("OptionalGadget.i8 holds Int8?"), "\(wrong.stderr)")
    }

    @Test func csvExportImportsBackToTheSameValues() throws {
        let seed = testSeed("AttributeTypeToolTests.csv")
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let expected = try Self.gadgets(at: dir.child("source"), seed: seed)
        // An empty store with the schema.
        let empty = try ModelContainer(
            for: [Gadget.self, OptionalGadget.self], at: URL(fileURLWithPath: dir.child("copy")))
        try empty.close()
        for entity in ["Gadget", "OptionalGadget"] {
            let export = try CLI.run([
                "export", dir.child("source"), "--format", "csv", "--entity", entity,
            ])
            #expect(export.status == 0, "\(export.stderr)")
            writeFile(dir.child("\(entity).csv"), b(export.stdout))
            let result = try CLI.run(
                ["import", dir.child("copy"), dir.child("\(entity).csv"), "--entity", entity])
            #expect(result.status == 0, "\(entity): \(result.stderr)")
        }
        try Self.check(
            dir.child("copy"), expected, entities: ["Gadget", "OptionalGadget"], seed: seed,
            "csv import")
    }

    @Test func dumpShowsDeclaredTypesAndValuesAndFiltersOnThem() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Gadget.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let g = Gadget()
        g.name = "one"
        g.u64 = UInt64.max
        g.ratio = 0.1
        g.price = Decimal(string: "12.50")!
        g.status = .archived
        g.address = Address(street: "MG Road", city: "Pune")
        g.tags = ["a", "b"]
        g.codes = [3, 1]
        g.labels = [Tag(name: "x", weight: 2)]
        context.insert(g)
        let other = Gadget()
        other.name = "two"
        context.insert(other)
        try context.save()
        try container.close()
        let text = try CLI.run(["dump", path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("u64: UInt64"))
        #expect(text.stdout.contains("status: Status"))
        #expect(text.stdout.contains("address: Address, address.street: String"))
        #expect(text.stdout.contains("codes: Set<Int32>"))
        #expect(text.stdout.contains("labels: [Tag]"))
        #expect(text.stdout.contains("u64=18446744073709551615"))
        #expect(text.stdout.contains("ratio=0.1 price=12.5"))
        #expect(text.stdout.contains("status=\"archived\""))
        #expect(text.stdout.contains("address.city=\"Pune\""))
        #expect(text.stdout.contains("tags=[\"a\",\"b\"] codes=[1,3]"))
        #expect(text.stdout.contains("labels=[{\"name\":\"x\",\"weight\":2,\"status\":null}]"))
        let json = try CLI.run([
            "dump", path, "--format", "jsonl", "--where",
            "address.city == 'Pune' AND tags CONTAINS 'b'",
        ])
        #expect(json.status == 0, "\(json.stderr)")
        let objects = json.stdout.split(separator: "\n").filter { $0.contains("\"object\"") }
        #expect(objects.count == 1)
        #expect(objects.first?.contains("\"price\":12.5,") == true)
        #expect(objects.first?.contains("\"u64\":18446744073709551615,") == true)
        #expect(objects.first?.contains("\"address\":{},\"address.street\":\"MG Road\"") == true)
        let all = try CLI.run(["dump", path, "--format", "jsonl"])
        let schema = all.stdout.split(separator: "\n").first { $0.contains("\"schema\"") }
        #expect(schema?.contains("\"declaredType\":\"Set<Int32>\"") == true)
        let filtered = try CLI.run([
            "dump", path, "--where", "price > 12.4 AND status == 'archived'",
        ])
        #expect(filtered.stdout.contains("name=\"one\""))
        #expect(!filtered.stdout.contains("name=\"two\""))
    }

    @Test func historyChangesAndVerifyReadTheNewTypes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        _ = try Self.gadgets(at: path, seed: 7, count: 5)
        let container = try ModelContainer(
            for: [Gadget.self, OptionalGadget.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let g = try #require(
            try context.fetch(FetchDescriptor<Gadget>(predicate: #Predicate { $0.name == "g1" }))
                .first)
        g.address.city = "Lima"
        g.status = .suspended
        try context.save()
        try container.close()
        let history = try CLI.run(["history", path])
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.contains("update Gadget/"), "\(history.stdout)")
        #expect(history.stdout.contains("address.city"))
        let changes = try CLI.run(["changes", path])
        #expect(changes.status == 0, "\(changes.stderr)")
        #expect(changes.stdout.contains("\"address.city\":\"Lima\""))
        let sql = try CLI.run(["changes", path, "--format", "sql"])
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(sql.stdout.contains("\"price\" NUMERIC NOT NULL"))
        #expect(sql.stdout.contains("\"tags\" TEXT[] NOT NULL"))
        #expect(sql.stdout.contains("\"labels\" JSONB NOT NULL"))
        #expect(sql.stdout.contains("\"address\" BOOLEAN NOT NULL"))
        #expect(sql.stdout.contains("\"u64\" NUMERIC(20, 0) NOT NULL"))
        let verify = try CLI.run(["verify", path])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test func verifyFindsAValueThatIsNotOfItsType() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        _ = try Self.gadgets(at: path, seed: 3, count: 2)
        // A record whose Int8 field holds 300: its bytes have the right length, but not a value
        // of its type.
        var options = LogStoreOptions()
        options.autoCompactionDeadFraction = nil
        let store = try LogStore(path: path, options: options)
        let key: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
        var record = try #require(try store.get(key, in: "Gadget"))
        // schema version, object version, then name (length-prefixed), then i8's zigzag varint.
        let nameLength = Int(record[2])
        let at = 3 + nameLength
        #expect(record[at] < 0x80)
        record.replaceSubrange(at...at, with: [0xD8, 0x04])  // zigzag(300) = 600
        try store.put(record, for: key, in: "Gadget")
        try store.close()
        let verify = try CLI.run(["verify", path])
        #expect(verify.status == 1)
        #expect(
            (verify.stdout + verify.stderr).contains("Gadget/1"), "\(verify.stdout)\(verify.stderr)"
        )
    }
}
