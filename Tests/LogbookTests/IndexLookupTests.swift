import Foundation
import Logbook
import TestSupport
import Testing

/// Lookups in an index of many chunks whose entries share long prefixes (so that finding a
/// chunk must compare whole entries, not only their first bytes), through inserts, removals
/// and changes, against a model of the data.
@Suite struct IndexLookupTests {
    static let schema = Schema([
        Entity(
            name: "Tag",
            attributes: [
                AttributeDescription("label", .string, indexed: true),
                AttributeDescription("rank", .integer, indexed: true),
            ])
    ])

    @Test func lookupsInAnIndexOfSharedPrefixesMatchAModel() throws {
        let seed = testSeed("lookupsInAnIndexOfSharedPrefixesMatchAModel")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.schema)
        let context = ModelContext(container)
        var model: [String: Int64] = [:]
        var objects: [String: any ModelObject] = [:]
        // Labels of 1 to 40 bytes, most starting with the same 16.
        func label(_ i: Int) -> String {
            switch i % 5 {
            case 0: String(i % 50)
            case 1: "a"
            default: "shared-prefix-xx\(String(repeating: "z", count: i % 7))\(i)"
            }
        }
        for i in 0..<4000 where model[label(i)] == nil {
            let rank = Int64.random(in: 0..<1000, using: &rng)
            objects[label(i)] = try context.insert(
                entity: "Tag", values: ["label": label(i), "rank": rank])
            model[label(i)] = rank
        }
        try context.save()
        for round in 0..<3 {
            for name in model.keys.shuffled(using: &rng).prefix(400) {
                if Bool.random(using: &rng) {
                    context.delete(objects[name]!)
                    model[name] = nil
                    objects[name] = nil
                } else {
                    let rank = Int64.random(in: 0..<1000, using: &rng)
                    objects[name]!["rank"] = rank
                    model[name] = rank
                }
            }
            try context.save()
            let fresh = ModelContext(container)
            for i in (0..<4000).shuffled(using: &rng).prefix(300) {
                let found = try fresh.fetch(entity: "Tag", where: "label == %@", label(i))
                #expect(
                    found.map { $0["rank"] as? Int64 } == (model[label(i)].map { [$0] } ?? []),
                    "seed \(seed), round \(round): \(label(i))")
            }
            let low = "shared-prefix-xxz"
            let high = "shared-prefix-xxzzz"
            let range = try fresh.fetch(
                entity: "Tag", where: "label >= %@ AND label < %@", low, high)
            #expect(
                Set(range.map { $0["label"] as! String })
                    == Set(model.keys.filter { $0 >= low && $0 < high }), "seed \(seed)")
            let explained = try fresh.explain(
                EntityFetchDescriptor(
                    entityName: "Tag",
                    predicate: try StringPredicate(format: "label == %@", arguments: ["a"])))
            #expect(explained.access == .index)
            #expect(try container.indexProblems().isEmpty, "seed \(seed)")
        }
    }
}
