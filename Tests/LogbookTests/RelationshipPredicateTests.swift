import Foundation
import Logbook
import TestSupport
import Testing

/// Predicates through to-one relationships, `#Predicate` and string forms, against a model of
/// the data kept in memory: every answer is right (never the silent empty result a scratch
/// object gives), planned through the destination's and the relationship's indexes where they
/// exist, and pending changes take part.
@MainActor @Suite struct RelationshipPredicateTests {
    /// Teams t0…t4 (sizes 0…4) and 200 staff on random teams or none, with the model: staff
    /// name → team name (or nil).
    static func seeded(_ label: String) throws -> (
        LogbookFixture, ModelContainer, [String: String?], [String: Team], UInt64
    ) {
        let seed = testSeed(label)
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        let container = try fixture.open([Staff.self, Team.self])
        let context = container.mainContext
        var teams: [String: Team] = [:]
        for i in 0..<5 {
            let team = Team("t\(i)", size: Int64(i))
            context.insert(team)
            teams[team.name] = team
        }
        var model: [String: String?] = [:]
        for i in 0..<200 {
            let team =
                Bool.random(using: &rng) ? nil : teams["t\(Int.random(in: 0..<5, using: &rng))"]
            let staff = Staff("s\(i)", salary: Int64(i), team: team)
            context.insert(staff)
            model.updateValue(team?.name, forKey: staff.name)
        }
        try context.save()
        return (fixture, container, model, teams, seed)
    }

    static func names(_ staff: [Staff]) -> Set<String> { Set(staff.map(\.name)) }

    static func names(_ objects: [any ModelObject]) -> Set<String> {
        Set(objects.map { $0["name"] as! String })
    }

    @Test func toOnePredicatesAnswerAsTheModelDoes() throws {
        let (fixture, container, model, teams, seed) = try Self.seeded(
            "toOnePredicatesAnswerAsTheModelDoes")
        defer { fixture.remove() }
        let context = ModelContext(container)
        func expect(_ test: (String?) -> Bool) -> Set<String> {
            Set(model.filter { test($0.value) }.keys)
        }
        let acme = "t2"
        let t2 = try #require(teams[acme]?.persistentModelID)
        let cases: [(Predicate<Staff>, Set<String>, String)] = [
            (#Predicate { $0.team?.name == acme }, expect { $0 == acme }, "team?.name =="),
            (#Predicate { $0.team?.name != acme }, expect { $0 != acme }, "team?.name !="),
            (#Predicate { $0.team == nil }, expect { $0 == nil }, "team == nil"),
            (#Predicate { $0.team != nil }, expect { $0 != nil }, "team != nil"),
            (#Predicate { $0.team?.persistentModelID == t2 }, expect { $0 == acme }, "team id"),
            (
                #Predicate { $0.team.flatMap { $0.size >= 3 } ?? false },
                expect { ($0.map { Int($0.dropFirst())! } ?? -1) >= 3 }, "flatMap ?? false"
            ),
            (
                #Predicate { $0.team?.name == acme && $0.salary < 100 },
                Set(expect { $0 == acme }.filter { Int($0.dropFirst())! < 100 }), "and"
            ),
            (
                #Predicate { $0.team?.name == "t0" || $0.team == nil },
                expect { $0 == "t0" || $0 == nil }, "or"
            ),
        ]
        for (predicate, expected, label) in cases {
            let found = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Self.names(found) == expected, "seed \(seed): \(label)")
            #expect(
                try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count,
                "seed \(seed): \(label)")
        }
        // Planned through Team(name) and the relationship's own index.
        let plan = try context.explain(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.team?.name == acme }))
        #expect(plan.access == .index && plan.indexes == ["Staff(team)"], "\(plan)")
        #expect(plan.recordsRead == expect { $0 == acme }.count)
    }

    @Test func stringPredicatesFollowToOneRelationships() throws {
        let (fixture, container, model, teams, seed) = try Self.seeded(
            "stringPredicatesFollowToOneRelationships")
        defer { fixture.remove() }
        let context = ModelContext(container)
        func expect(_ test: (String?) -> Bool) -> Set<String> {
            Set(model.filter { test($0.value) }.keys)
        }
        let t1 = try #require(teams["t1"])
        let t1ID = t1.persistentModelID
        let cases: [(String, [Any?], Set<String>)] = [
            ("team.name == 't1'", [], expect { $0 == "t1" }),
            ("team.name != 't1'", [], expect { $0 != "t1" }),
            ("team.name BEGINSWITH 't'", [], expect { $0 != nil }),
            ("team.size > 2", [], expect { ($0.map { Int($0.dropFirst())! } ?? -1) > 2 }),
            ("team == %@", [t1], expect { $0 == "t1" }),
            ("team == %@", [t1ID], expect { $0 == "t1" }),
            ("team != %@", [t1ID], expect { $0 != "t1" }),
            ("team == nil", [], expect { $0 == nil }),
            (
                "team != nil AND salary >= 150", [],
                Set(expect { $0 != nil }.filter { Int($0.dropFirst())! >= 150 })
            ),
        ]
        for (format, arguments, expected) in cases {
            let found = try context.fetch(
                EntityFetchDescriptor(
                    entityName: "Staff",
                    predicate: try StringPredicate(format: format, arguments: arguments)))
            #expect(Self.names(found) == expected, "seed \(seed): \(format)")
        }
        // What cannot be followed is a typed error, not an empty result.
        #expect(throws: LogbookError.self) {
            try context.fetch(entity: "Team", where: "members.name == 'x'")
        }
        #expect(throws: LogbookError.self) {
            try context.fetch(entity: "Staff", where: "team == 3")
        }
        #expect(throws: LogbookError.self) {
            try context.fetch(
                entity: "Staff", where: "team == %@",
                PersistentIdentifier(entityName: "Staff", primaryKey: 1))
        }
    }

    @Test func pendingChangesOfEitherSideTakePart() throws {
        let (fixture, container, model, teams, seed) = try Self.seeded(
            "pendingChangesOfEitherSideTakePart")
        defer { fixture.remove() }
        let context = container.mainContext
        // Rename t1 (pending): its members match the new name, not the old one.
        let t1 = try #require(teams["t1"])
        t1.name = "renamed"
        let members = Set(model.filter { $0.value == "t1" }.keys)
        #expect(
            Self.names(
                try context.fetch(
                    FetchDescriptor<Staff>(predicate: #Predicate { $0.team?.name == "renamed" })))
                == members, "seed \(seed)")
        #expect(
            try context.fetch(
                FetchDescriptor<Staff>(predicate: #Predicate { $0.team?.name == "t1" })
            ).isEmpty)
        // Move one member to t0 (pending), and add a new member of t0.
        let moved = try #require(
            try context.fetch(
                FetchDescriptor<Staff>(predicate: #Predicate { $0.team?.name == "renamed" })
            ).first)
        let t0 = try #require(teams["t0"])
        moved.team = t0
        let newcomer = Staff("newcomer", team: t0)
        context.insert(newcomer)
        let inT0 = Set(model.filter { $0.value == "t0" }.keys).union([moved.name, "newcomer"])
        #expect(
            Self.names(
                try context.fetch(
                    FetchDescriptor<Staff>(predicate: #Predicate { $0.team?.name == "t0" })))
                == inT0)
        // Delete t4 (pending; nullify): its members now have no team.
        let t4 = try #require(teams["t4"])
        context.delete(t4)
        let noTeam = Set(model.filter { $0.value == nil || $0.value == "t4" }.keys)
        #expect(
            Self.names(
                try context.fetch(FetchDescriptor<Staff>(predicate: #Predicate { $0.team == nil })))
                == noTeam)
        // Left out, the pending changes do not count.
        var stored = FetchDescriptor<Staff>(predicate: #Predicate { $0.team?.name == "t1" })
        stored.includePendingChanges = false
        #expect(Self.names(try context.fetch(stored)) == members)
    }

    @Test func predicatesOnlyObjectsAnswerAreEvaluatedOnContextObjects() throws {
        let (fixture, container, model, _, seed) = try Self.seeded(
            "predicatesOnlyObjectsAnswerAreEvaluatedOnContextObjects")
        defer { fixture.remove() }
        let context = ModelContext(container)
        // A to-many count, and a string method through a relationship: not translated, so
        // evaluated on objects that have a context (a scratch object would see no team).
        let big = try context.fetch(
            FetchDescriptor<Staff>(predicate: #Predicate { ($0.team?.members.count ?? 0) > 0 }))
        #expect(Self.names(big) == Set(model.filter { $0.value != nil }.keys), "seed \(seed)")
        let upper = try context.fetch(
            FetchDescriptor<Staff>(
                predicate: #Predicate { $0.team?.name.contains("2") ?? false }))
        #expect(Self.names(upper) == Set(model.filter { $0.value == "t2" }.keys), "seed \(seed)")
        var stored = FetchDescriptor<Staff>(
            predicate: #Predicate { $0.team?.name.contains("2") ?? false })
        stored.includePendingChanges = false
        #expect(
            Self.names(try context.fetch(stored)) == Set(model.filter { $0.value == "t2" }.keys))
        // The object's identifier.
        let first = try #require(
            try context.fetch(FetchDescriptor<Staff>()).first?.persistentModelID)
        let one = try context.fetch(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.persistentModelID == first }))
        #expect(one.map(\.persistentModelID) == [first])
        let ids = [first]
        #expect(
            try context.fetchCount(
                FetchDescriptor<Staff>(
                    predicate: #Predicate { ids.contains($0.persistentModelID) })) == 1)
    }
}
