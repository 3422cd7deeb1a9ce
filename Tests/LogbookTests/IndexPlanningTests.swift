import Foundation
import Logbook
import TestSupport
import Testing

/// Each operator the planner answers from an index, on seeded random data: the fetch's
/// reported plan uses the index, and its result equals the same fetch on a twin entity
/// without indexes (a scan) and the expected rows computed from a model in memory.
@Suite struct IndexPlanningTests {
    static let groups = (0..<10).map { "g\($0)" }

    /// Two entities with the same attributes: `Indexed` has indexes on every one and a
    /// compound (group, salary); `Plain` has none.
    static func schema() -> Schema {
        func attributes(indexed: Bool) -> [AttributeDescription] {
            [
                AttributeDescription("name", .string, indexed: indexed),
                AttributeDescription("group", .string, indexed: indexed),
                AttributeDescription("salary", .integer, indexed: indexed),
                AttributeDescription("score", .double, optional: true, indexed: indexed),
                AttributeDescription("flag", .bool, indexed: indexed),
            ]
        }
        return Schema([
            Entity(
                name: "Indexed", attributes: attributes(indexed: true),
                indexes: [IndexDescription(["group", "salary"])]),
            Entity(name: "Plain", attributes: attributes(indexed: false)),
        ])
    }

    /// One object of the model.
    struct Row: Hashable {
        var id: UInt64
        var name: String
        var group: String
        var salary: Int64
        var score: Double?
        var flag: Bool

        init(id: UInt64, _ object: any ModelObject) {
            self.id = id
            name = object["name"] as! String
            group = object["group"] as! String
            salary = object["salary"] as! Int64
            score = object["score"] as? Double
            flag = object["flag"] as! Bool
        }

        init(id: UInt64, name: String, group: String, salary: Int64, score: Double?, flag: Bool) {
            self.id = id
            self.name = name
            self.group = group
            self.salary = salary
            self.score = score
            self.flag = flag
        }
    }

    /// A store with `count` random rows in both entities, and the rows.
    static func seeded(_ label: String, count: Int = 600) throws -> (
        LogbookFixture, ModelContainer, [Row], UInt64
    ) {
        let seed = testSeed(label)
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        let container = try fixture.open(schema: schema())
        let context = ModelContext(container)
        var rows: [Row] = []
        let letters = Array("abcde")
        for i in 0..<count {
            let name = String(
                (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                    letters[Int.random(in: 0..<letters.count, using: &rng)]
                })
            let row = Row(
                id: UInt64(i + 1), name: name,
                group: groups[Int.random(in: 0..<groups.count, using: &rng)],
                salary: Int64.random(in: 0..<200, using: &rng) * 10,
                score: Int.random(in: 0..<10, using: &rng) > 0
                    ? Double(Int.random(in: -50...50, using: &rng)) / 4 : nil,
                flag: Int.random(in: 0..<10, using: &rng) == 0)
            rows.append(row)
            for entity in ["Indexed", "Plain"] {
                try context.insert(
                    entity: entity,
                    values: [
                        "name": row.name, "group": row.group, "salary": row.salary,
                        "score": row.score, "flag": row.flag,
                    ])
            }
        }
        try context.save()
        return (fixture, container, rows, seed)
    }

    /// Runs `format` on both entities in a fresh context and checks both against `expected`
    /// (in order when `ordered`); returns the indexed fetch's explanation.
    @discardableResult
    static func check(
        _ container: ModelContainer, _ format: String, _ arguments: [Any?] = [],
        sortBy: [(key: String, ascending: Bool)] = [], limit: Int? = nil,
        expected: [Row], seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> FetchExplanation {
        let context = ModelContext(container)
        var results: [String: [Row]] = [:]
        var explanation: FetchExplanation?
        for entity in ["Indexed", "Plain"] {
            var descriptor = EntityFetchDescriptor(
                entityName: entity,
                predicate: try StringPredicate(format: format, arguments: arguments),
                sortBy: sortBy)
            descriptor.fetchLimit = limit
            results[entity] = try context.fetch(descriptor).map {
                Row(id: $0.persistentModelID.primaryKey, $0)
            }
            let explained = try context.explain(descriptor)
            if entity == "Plain" {
                #expect(explained.access == .scan, sourceLocation: sourceLocation)
            } else {
                explanation = explained
            }
            let counted = try context.explain(descriptor, counting: true)
            #expect(
                counted.results == results[entity]!.count, "seed \(seed): count of \(format)",
                sourceLocation: sourceLocation)
        }
        #expect(
            results["Indexed"] == results["Plain"], "seed \(seed): \(format)",
            sourceLocation: sourceLocation)
        #expect(
            results["Indexed"] == expected, "seed \(seed): \(format)",
            sourceLocation: sourceLocation)
        return try #require(explanation)
    }

    @Test func everyOperatorIsAnsweredFromItsIndex() throws {
        let (fixture, container, rows, seed) = try Self.seeded(
            "everyOperatorIsAnsweredFromItsIndex")
        defer { fixture.remove() }
        var rng = SeededGenerator(seed: seed &+ 1)
        for _ in 0..<5 {
            // Selective values (a few percent of the rows), where an index beats a scan.
            let pivot = Int64.random(in: 0..<200, using: &rng) * 10
            let low = Int64.random(in: 1..<20, using: &rng) * 10
            let high = Int64.random(in: 180..<199, using: &rng) * 10
            let lo = Int64.random(in: 0..<190, using: &rng) * 10
            let hi = lo + Int64.random(in: 0..<10, using: &rng) * 10
            let group = Self.groups.randomElement(using: &rng)!
            let cases: [(String, [Any?], (Row) -> Bool, String)] = [
                ("salary == %@", [pivot], { $0.salary == pivot }, "Indexed(salary)"),
                ("salary < %@", [low], { $0.salary < low }, "Indexed(salary)"),
                ("salary <= %@", [low], { $0.salary <= low }, "Indexed(salary)"),
                ("salary > %@", [high], { $0.salary > high }, "Indexed(salary)"),
                ("salary >= %@", [high], { $0.salary >= high }, "Indexed(salary)"),
                ("%@ < salary", [high], { high < $0.salary }, "Indexed(salary)"),
                ("salary > %@", [low], { $0.salary > low }, "Indexed(salary)"),
                (
                    "salary BETWEEN {%@, %@}", [lo, hi], { $0.salary >= lo && $0.salary <= hi },
                    "Indexed(salary)"
                ),
                (
                    "group IN %@", [[group, "g3"]], { $0.group == group || $0.group == "g3" },
                    "Indexed(group)"
                ),
                ("name BEGINSWITH 'ab'", [], { $0.name.hasPrefix("ab") }, "Indexed(name)"),
                ("name == %@", ["abc"], { $0.name == "abc" }, "Indexed(name)"),
                ("score == nil", [], { $0.score == nil }, "Indexed(score)"),
                ("score != nil", [], { $0.score != nil }, "Indexed(score)"),
                ("score > 11.5", [], { ($0.score ?? -.infinity) > 11.5 }, "Indexed(score)"),
                ("score < -11", [], { $0.score.map { $0 < -11 } ?? false }, "Indexed(score)"),
                ("flag == TRUE", [], { $0.flag }, "Indexed(flag)"),
                (
                    "group == %@ AND salary > %@", [group, pivot],
                    { $0.group == group && $0.salary > pivot }, "Indexed(group, salary)"
                ),
            ]
            for (format, arguments, test, index) in cases {
                let expected = rows.filter(test)
                let explanation = try Self.check(
                    container, format, arguments, expected: expected, seed: seed)
                #expect(explanation.recordsRead <= max(explanation.candidates, rows.count))
                // A few percent of the rows: the index must answer (a scan may win beyond).
                guard expected.count <= rows.count / 8 else { continue }
                #expect(explanation.access == .index, "seed \(seed): \(format): \(explanation)")
                #expect(explanation.indexes == [index], "seed \(seed): \(format): \(explanation)")
                #expect(explanation.recordsRead == explanation.candidates)
            }
            // A disjunction over two indexes: their union.
            let union = try Self.check(
                container, "group == %@ OR salary < %@", [group, lo],
                expected: rows.filter { $0.group == group || $0.salary < lo }, seed: seed)
            #expect(union.access == .union || union.access == .scan, "seed \(seed): \(union)")
            // What no index answers: a scan, with the same results.
            let scanned = try Self.check(
                container, "name ENDSWITH 'a'", expected: rows.filter { $0.name.hasSuffix("a") },
                seed: seed)
            #expect(scanned.access == .scan)
        }
    }

    @Test func aSelectiveDisjunctionIsAUnionAndAConjunctionOfTwoIsAnIntersection() throws {
        let (fixture, container, rows, seed) = try Self.seeded(
            "aSelectiveDisjunctionIsAUnionAndAConjunctionOfTwoIsAnIntersection", count: 3000)
        defer { fixture.remove() }
        let union = try Self.check(
            container, "name == 'abcd' OR salary == 500",
            expected: rows.filter { $0.name == "abcd" || $0.salary == 500 }, seed: seed)
        #expect(union.access == .union, "seed \(seed): \(union)")
        #expect(Set(union.indexes) == ["Indexed(name)", "Indexed(salary)"])
        let both = try Self.check(
            container, "name BEGINSWITH 'a' AND score < -10",
            expected: rows.filter {
                $0.name.hasPrefix("a") && ($0.score.map { $0 < -10 } ?? false)
            },
            seed: seed)
        #expect(both.access == .intersection || both.access == .index, "seed \(seed): \(both)")
        #expect(both.recordsRead < rows.count / 10)
    }

    @Test func aSortOnAnIndexedFieldNeedsNoSortAndStopsAtTheLimit() throws {
        let (fixture, container, rows, seed) = try Self.seeded(
            "aSortOnAnIndexedFieldNeedsNoSortAndStopsAtTheLimit")
        defer { fixture.remove() }
        for ascending in [true, false] {
            let order: (Row, Row) -> Bool = { a, b in
                a.salary != b.salary ? (a.salary < b.salary) == ascending : a.id < b.id
            }
            let top = try Self.check(
                container, "salary BETWEEN {100, 1500}", sortBy: [("salary", ascending)],
                limit: 20,
                expected: Array(
                    rows.filter { $0.salary >= 100 && $0.salary <= 1500 }.sorted(by: order).prefix(
                        20)),
                seed: seed)
            #expect(top.sortedByIndex && top.stoppedEarly, "seed \(seed): \(top)")
            #expect(top.recordsRead < 100, "seed \(seed): \(top)")
            // Equality on the compound index's first field, sorted by its second.
            let group = try Self.check(
                container, "group == 'g4'", sortBy: [("salary", ascending)],
                expected: rows.filter { $0.group == "g4" }.sorted(by: order), seed: seed)
            #expect(group.sortedByIndex, "seed \(seed): \(group)")
            #expect(group.indexes == ["Indexed(group, salary)"])
            // No predicate: the whole index in order.
            let all = try Self.check(
                container, "TRUEPREDICATE", sortBy: [("salary", ascending)], limit: 5,
                expected: Array(rows.sorted(by: order).prefix(5)), seed: seed)
            #expect(all.sortedByIndex && all.stoppedEarly, "seed \(seed): \(all)")
        }
    }

    @Test func aCountTheIndexAnswersReadsNoRecord() throws {
        let (fixture, container, rows, _) = try Self.seeded("aCountTheIndexAnswersReadsNoRecord")
        defer { fixture.remove() }
        let context = ModelContext(container)
        let descriptor = EntityFetchDescriptor(
            entityName: "Indexed", predicate: try StringPredicate("group == 'g2' AND salary < 700"))
        let counted = try context.explain(descriptor, counting: true)
        #expect(counted.recordsRead == 0)
        #expect(counted.results == rows.filter { $0.group == "g2" && $0.salary < 700 }.count)
        #expect(try context.fetchCount(descriptor) == counted.results)
        // With a pending change, that object's record is read to take it out, and the pending
        // object is tested.
        let changed = try #require(try context.fetch(descriptor).first)
        changed["salary"] = 900
        let again = try context.explain(descriptor, counting: true)
        #expect(again.results == counted.results - 1)
        #expect(again.pendingObjects == 1)
    }

    @Test func pendingChangesTakePartInIndexedFetches() throws {
        let (fixture, container, rows, seed) = try Self.seeded(
            "pendingChangesTakePartInIndexedFetches")
        defer { fixture.remove() }
        let context = ModelContext(container)
        let descriptor = EntityFetchDescriptor(
            entityName: "Indexed", predicate: try StringPredicate("salary >= 1900"),
            sortBy: [("salary", true)])
        let inserted = try context.insert(
            entity: "Indexed",
            values: ["name": "new", "group": "g0", "salary": 1950, "flag": false])
        let before = try context.fetch(descriptor)
        let moved = try #require(before.first { $0 !== inserted })
        moved["salary"] = 10
        let deleted = try #require(before.last { $0 !== inserted && $0 !== moved })
        context.delete(deleted)
        let found = try context.fetch(descriptor)
        #expect(found.contains { $0 === inserted }, "seed \(seed)")
        #expect(!found.contains { $0 === moved } && !found.contains { $0 === deleted })
        let stored = rows.filter { $0.salary >= 1900 }.count
        #expect(found.count == stored - 1, "seed \(seed): one in, two out of \(stored)")
        let salaries = found.map { $0["salary"] as! Int64 }
        #expect(salaries == salaries.sorted())
        var top = descriptor
        top.fetchLimit = 3
        #expect(try context.fetch(top).map { $0["salary"] as! Int64 } == Array(salaries.prefix(3)))
    }

    @Test func aConstantOfTheWrongTypeIsAnErrorWithItsColumn() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: Self.schema())
        let context = ModelContext(container)
        for (format, column) in [
            ("salary == 'x'", 11), ("salary > 'x'", 10), ("name BEGINSWITH 3", 17),
            ("flag == 'yes'", 9), ("salary BETWEEN {1, 'z'}", 16), ("group IN {'a', 2}", 10),
        ] {
            #expect(throws: LogbookError.self) {
                try context.fetch(entity: "Indexed", where: format)
            }
            do {
                _ = try context.fetch(entity: "Indexed", where: format)
            } catch LogbookError.predicateSyntax(_, let line, let found) {
                #expect(line == 1 && found == column, "\(format): column \(found)")
            }
        }
        // Numbers of either kind compare with numbers.
        _ = try context.fetch(entity: "Indexed", where: "salary > 2.5 AND score < 3")
    }
}
