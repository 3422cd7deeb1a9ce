import Foundation
import Logbook
import TestSupport
import Testing

/// A member with a unique email, a unique (team, number) and plain attributes.
final class LookupMember: PersistentModel {
    @Attribute(.unique) var email = ""
    @Attribute var team = ""
    @Attribute var number: Int64 = 0
    @Attribute(.indexed) var level: Int64 = 0
    @Attribute var nickname: String? = nil

    static var indexes: [ModelIndex<LookupMember>] { [.unique(\.team, \.number)] }

    init() {}

    init(_ row: UniqueLookupTests.Row) {
        email = row.email
        team = row.team
        number = row.number
        level = row.level
        nickname = row.nickname
    }
}

/// Lookups by a unique attribute or a unique compound, and the common predicate shapes
/// translated directly (without a dynamic cast per node), on seeded random data: results
/// equal a model of the data in memory; the lookups use their unique index and read at most
/// one record; pending inserts, changes and deletes take part; rollback leaves the store's
/// answer.
@Suite struct UniqueLookupTests {
    struct Row: Hashable {
        var email: String
        var team: String
        var number: Int64
        var level: Int64
        var nickname: String?

        init(email: String, team: String, number: Int64, level: Int64, nickname: String?) {
            self.email = email
            self.team = team
            self.number = number
            self.level = level
            self.nickname = nickname
        }

        init(_ m: LookupMember) {
            self.init(
                email: m.email, team: m.team, number: m.number, level: m.level,
                nickname: m.nickname)
        }
    }

    static let teams = ["red", "green", "blue", "team\u{0}zero", "café"]

    /// `count` members with distinct emails and distinct (team, number), saved; the rows.
    static func seeded(_ rng: inout SeededGenerator, _ context: ModelContext, count: Int) throws
        -> [Row]
    {
        var rows: [Row] = []
        var used = Set<String>()
        var pairs = Set<[String]>()
        while rows.count < count {
            let email = "m\(Int.random(in: 0..<100_000, using: &rng))@example.com"
            let team = teams[Int.random(in: 0..<teams.count, using: &rng)]
            let number = Int64.random(in: 0..<400, using: &rng)
            guard used.insert(email).inserted, pairs.insert([team, "\(number)"]).inserted else {
                continue
            }
            let row = Row(
                email: email, team: team, number: number,
                level: Int64.random(in: 0..<10, using: &rng),
                nickname: Bool.random(using: &rng) ? "n\(Int.random(in: 0..<5, using: &rng))" : nil)
            rows.append(row)
            context.insert(LookupMember(row))
        }
        try context.save()
        return rows
    }

    static func fetch(
        _ context: ModelContext, _ predicate: Predicate<LookupMember>
    ) throws -> Set<Row> {
        Set(try context.fetch(FetchDescriptor<LookupMember>(predicate: predicate)).map(Row.init))
    }

    @Test func uniqueLookupsUseTheirIndexAndMatchAModel() throws {
        let seed = testSeed("uniqueLookupsUseTheirIndexAndMatchAModel")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([LookupMember.self])
        var rows = try Self.seeded(&rng, ModelContext(container), count: 400)
        let context = ModelContext(container)
        for round in 0..<200 {
            // An existing email or a missing one.
            let wanted =
                round % 4 == 0
                ? "missing\(round)@example.com"
                : rows[Int.random(in: 0..<rows.count, using: &rng)].email
            let level = Int64.random(in: 0..<10, using: &rng)
            let descriptor = FetchDescriptor<LookupMember>(
                predicate: #Predicate { $0.email == wanted })
            let found = Set(try context.fetch(descriptor).map(Row.init))
            #expect(found == Set(rows.filter { $0.email == wanted }), "seed \(seed)")
            let plan = try context.explain(descriptor)
            #expect(plan.access == .index, "seed \(seed)")
            #expect(plan.indexes == ["LookupMember(email)"], "seed \(seed)")
            #expect(plan.candidates <= 1 && plan.recordsRead <= 1, "seed \(seed): \(plan)")
            #expect(try context.explain(descriptor, counting: true).recordsRead == 0)
            // The constant on the left, and a further term tested on the one candidate.
            #expect(
                try Self.fetch(context, #Predicate { wanted == $0.email })
                    == Set(rows.filter { $0.email == wanted }), "seed \(seed)")
            let narrowed = FetchDescriptor<LookupMember>(
                predicate: #Predicate { $0.email == wanted && $0.level >= level })
            #expect(
                Set(try context.fetch(narrowed).map(Row.init))
                    == Set(rows.filter { $0.email == wanted && $0.level >= level }),
                "seed \(seed)")
            #expect(
                try context.fetchCount(narrowed)
                    == rows.filter { $0.email == wanted && $0.level >= level }.count)
            #expect(try context.explain(narrowed).indexes == ["LookupMember(email)"])
            // The compound, in either order of its terms.
            let pick = rows[Int.random(in: 0..<rows.count, using: &rng)]
            let (team, number) = (pick.team, round % 5 == 0 ? Int64(999) : pick.number)
            let compound = FetchDescriptor<LookupMember>(
                predicate: #Predicate { $0.number == number && $0.team == team })
            #expect(
                Set(try context.fetch(compound).map(Row.init))
                    == Set(rows.filter { $0.team == team && $0.number == number }),
                "seed \(seed)")
            let compoundPlan = try context.explain(compound)
            #expect(compoundPlan.indexes == ["LookupMember(team, number)"], "seed \(seed)")
            #expect(compoundPlan.candidates <= 1, "seed \(seed)")
            // Two emails: a union of two lookups.
            let other = rows[Int.random(in: 0..<rows.count, using: &rng)].email
            #expect(
                try Self.fetch(context, #Predicate { $0.email == wanted || $0.email == other })
                    == Set(rows.filter { $0.email == wanted || $0.email == other }),
                "seed \(seed)")
        }

        // Pending changes take part: an insert, a changed email, a delete.
        let edits = ModelContext(container)
        let inserted = Row(
            email: "new@example.com", team: "new", number: 1, level: 3, nickname: nil)
        edits.insert(LookupMember(inserted))
        let changed = rows[0]
        let deleted = rows[1]
        let members = try edits.fetch(FetchDescriptor<LookupMember>())
        let changedObject = try #require(members.first { $0.email == changed.email })
        changedObject.email = "changed@example.com"
        edits.delete(try #require(members.first { $0.email == deleted.email }))
        for (email, expected) in [
            ("new@example.com", [inserted]), (changed.email, []),
            ("changed@example.com", [Row(changedObject)]), (deleted.email, []),
        ] {
            #expect(
                try Self.fetch(edits, #Predicate { $0.email == email }) == Set(expected),
                "seed \(seed): \(email)")
        }
        edits.rollback()
        for email in ["new@example.com", changed.email, "changed@example.com", deleted.email] {
            #expect(
                try Self.fetch(edits, #Predicate { $0.email == email })
                    == Set(rows.filter { $0.email == email }), "seed \(seed): \(email)")
        }
        // Saved, then looked up from another context.
        edits.insert(LookupMember(inserted))
        try edits.save()
        rows.append(inserted)
        #expect(
            try Self.fetch(ModelContext(container), #Predicate { $0.email == "new@example.com" })
                == [inserted])
    }

    @Test func commonPredicateShapesMatchAModel() throws {
        let seed = testSeed("commonPredicateShapesMatchAModel")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([LookupMember.self])
        let rows = try Self.seeded(&rng, ModelContext(container), count: 300)
        let context = ModelContext(container)
        for _ in 0..<30 {
            let level = Int64.random(in: 0..<10, using: &rng)
            let number = Int64.random(in: 0..<400, using: &rng)
            let team = Self.teams[Int.random(in: 0..<Self.teams.count, using: &rng)]
            let nick: String? =
                Bool.random(using: &rng) ? "n\(Int.random(in: 0..<5, using: &rng))" : nil
            let cases: [(Predicate<LookupMember>, (Row) -> Bool, String)] = [
                (#Predicate { $0.level == level }, { $0.level == level }, "=="),
                (#Predicate { $0.level != level }, { $0.level != level }, "!="),
                (#Predicate { $0.number < number }, { $0.number < number }, "<"),
                (#Predicate { $0.number <= number }, { $0.number <= number }, "<="),
                (#Predicate { $0.number > number }, { $0.number > number }, ">"),
                (#Predicate { $0.number >= number }, { $0.number >= number }, ">="),
                (#Predicate { level < $0.level }, { level < $0.level }, "constant <"),
                (
                    #Predicate { $0.team == team && $0.level > level },
                    { $0.team == team && $0.level > level }, "&&"
                ),
                (
                    #Predicate { $0.team == team || $0.number < number },
                    { $0.team == team || $0.number < number }, "||"
                ),
                (#Predicate { !($0.team == team) }, { !($0.team == team) }, "!"),
                (#Predicate { $0.nickname == nick }, { $0.nickname == nick }, "optional =="),
                (#Predicate { $0.nickname == nil }, { $0.nickname == nil }, "== nil"),
                (#Predicate { $0.nickname != nil }, { $0.nickname != nil }, "!= nil"),
                (#Predicate { _ in true }, { _ in true }, "true"),
                (#Predicate { _ in false }, { _ in false }, "false"),
                // Shapes the general walk translates.
                (
                    #Predicate { $0.team.starts(with: "gr") }, { $0.team.hasPrefix("gr") },
                    "starts(with:)"
                ),
                (
                    #Predicate { (3...6).contains($0.level) }, { (3...6).contains($0.level) },
                    "range"
                ),
            ]
            for (predicate, model, label) in cases {
                #expect(
                    try Self.fetch(context, predicate) == Set(rows.filter(model)),
                    "seed \(seed): \(label)")
            }
        }
    }

    /// Ranges of an index with 0 to 11 entries (around the few entries the collect step
    /// compares before it searches for the range's end), through one save of removals.
    @Test func rangesOfEveryShortLengthFindTheirEntries() throws {
        let schema = Schema([
            Entity(
                name: "Tally", attributes: [AttributeDescription("value", .integer, indexed: true)])
        ])
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(schema: schema)
        let context = ModelContext(container)
        var objects: [Int64: [any ModelObject]] = [:]
        for value in Int64(0)..<12 {
            for _ in 0..<value {
                objects[value, default: []].append(
                    try context.insert(entity: "Tally", values: ["value": value]))
            }
        }
        try context.save()
        func check(_ expected: [Int64: Int]) throws {
            let fresh = ModelContext(container)
            for value in Int64(-1)...12 {
                let found = try fresh.fetch(entity: "Tally", where: "value == %@", value)
                #expect(found.count == expected[value] ?? 0, "value \(value)")
                #expect(found.allSatisfy { $0["value"] as? Int64 == value })
                #expect(
                    try fresh.fetchCount(
                        EntityFetchDescriptor(
                            entityName: "Tally",
                            predicate: try StringPredicate(
                                format: "value == %@", arguments: [value])))
                        == expected[value] ?? 0)
                let between = try fresh.fetch(
                    entity: "Tally", where: "value BETWEEN {%@, %@}", value, value + 1)
                #expect(between.count == (expected[value] ?? 0) + (expected[value + 1] ?? 0))
            }
        }
        try check(Dictionary(uniqueKeysWithValues: (0..<12).map { (Int64($0), $0) }))
        // One fewer of each value.
        for value in Int64(1)..<12 { context.delete(objects[value]![0]) }
        try context.save()
        try check(Dictionary(uniqueKeysWithValues: (1..<12).map { (Int64($0), $0 - 1) }))
    }

    /// Entries of 128 bytes and more (lengths of two varint bytes in the sidecar) among short
    /// ones are read back from the sidecar at the next open.
    @Test func longEntriesAreReadBackFromTheSidecar() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let emails = (0..<300).map { i in
            i % 3 == 0
                ? String(repeating: "x", count: 100 + i) + "\(i)@example.com" : "m\(i)@example.com"
        }
        do {
            let container = try fixture.open([LookupMember.self])
            let context = ModelContext(container)
            for (i, email) in emails.enumerated() {
                context.insert(
                    LookupMember(
                        Row(email: email, team: "t", number: Int64(i), level: 0, nickname: nil)))
            }
            try context.save()
            try container.close()
        }
        let container = try fixture.open([LookupMember.self])
        #expect(container.indexesReadFromSidecar)
        #expect(try container.indexProblems() == [])
        let context = ModelContext(container)
        for (i, email) in emails.enumerated() {
            let found = try context.fetch(
                FetchDescriptor<LookupMember>(predicate: #Predicate { $0.email == email }))
            #expect(found.map(\.number) == [Int64(i)], "\(email.count) bytes")
        }
        try container.close()
    }
}
