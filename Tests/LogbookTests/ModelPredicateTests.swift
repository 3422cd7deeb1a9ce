import Foundation
import Logbook
import TestSupport
import Testing

/// `#Predicate { $0.team == t2 }`: a to-one relationship compared with a model (issue 14). The
/// model stands for its identifier, so any context's instance of an object matches it; a model
/// never inserted, or one deleted, is no stored object's team and matches nothing.
@MainActor @Suite struct ModelPredicateTests {
    @Test func aToOneComparedWithAModelAnswersAsTheModelDoes() throws {
        let (fixture, container, model, teams, seed) = try RelationshipPredicateTests.seeded(
            "aToOneComparedWithAModelAnswersAsTheModelDoes")
        defer { fixture.remove() }
        let context = ModelContext(container)
        func expect(_ test: (String?) -> Bool) -> Set<String> {
            Set(model.filter { test($0.value) }.keys)
        }
        let t2 = try #require(teams["t2"])
        // The same object as another context holds it.
        let t2Here = try #require(try context.model(for: t2.persistentModelID) as Team?)
        let cases: [(Predicate<Staff>, Set<String>, String)] = [
            (#Predicate { $0.team == t2 }, expect { $0 == "t2" }, "=="),
            (#Predicate { t2 == $0.team }, expect { $0 == "t2" }, "== reversed"),
            (#Predicate { $0.team != t2 }, expect { $0 != "t2" }, "!="),
            (#Predicate { t2 != $0.team }, expect { $0 != "t2" }, "!= reversed"),
            (#Predicate { $0.team == t2Here }, expect { $0 == "t2" }, "this context's t2"),
            (
                #Predicate { $0.team == t2 && $0.salary < 100 },
                Set(expect { $0 == "t2" }.filter { Int($0.dropFirst())! < 100 }), "and"
            ),
            // `contains` on a string is not translated: the whole predicate is evaluated on
            // objects, by identifier too.
            (
                #Predicate { $0.team == t2 && $0.name.contains("1") },
                Set(expect { $0 == "t2" }.filter { $0.contains("1") }), "evaluated"
            ),
        ]
        for (predicate, expected, label) in cases {
            let found = try context.fetch(FetchDescriptor(predicate: predicate))
            #expect(RelationshipPredicateTests.names(found) == expected, "seed \(seed): \(label)")
            #expect(
                try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count,
                "seed \(seed): \(label)")
        }
        // Planned through the relationship's index, reading only the matches.
        let plan = try context.explain(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.team == t2 }))
        #expect(plan.access == .index && plan.indexes == ["Staff(team)"], "\(plan)")
        #expect(plan.recordsRead == expect { $0 == "t2" }.count, "\(plan)")
    }

    @Test func pendingChangesTakePart() throws {
        let (fixture, container, _, teams, _) = try RelationshipPredicateTests.seeded(
            "pendingChangesTakePart")
        defer { fixture.remove() }
        let context = container.mainContext
        let t0 = try #require(teams["t0"])
        let staff = try context.fetch(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.team != t0 }))
        let moved = try #require(staff.first)
        moved.team = t0
        let onT0 = try context.fetch(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.team == t0 }))
        #expect(onT0.map(\.name).contains(moved.name))
        #expect(
            try context.fetchCount(FetchDescriptor<Staff>(predicate: #Predicate { $0.team == t0 }))
                == onT0.count)
    }

    @Test func aModelNeverInsertedMatchesNothing() throws {
        let (fixture, container, model, _, _) = try RelationshipPredicateTests.seeded(
            "aModelNeverInsertedMatchesNothing")
        defer { fixture.remove() }
        let context = container.mainContext
        let loose = Team("loose")
        #expect(loose.persistentModelID.isTemporary)
        #expect(
            try context.fetch(FetchDescriptor<Staff>(predicate: #Predicate { $0.team == loose }))
                .isEmpty)
        #expect(
            try context.fetchCount(
                FetchDescriptor<Staff>(predicate: #Predicate { $0.team != loose }))
                == model.count)
        // Inserted (not yet saved), it has its identifier: a staff member moved to it matches.
        let fresh = Team("fresh")
        context.insert(fresh)
        let moved = try #require(try context.fetch(FetchDescriptor<Staff>()).first)
        moved.team = fresh
        let found = try context.fetch(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.team == fresh }))
        #expect(found.map(\.name) == [moved.name])
        // The predicate holds the identifier the model had when it was made.
        let before = Team("before")
        let early = #Predicate<Staff> { $0.team == before }
        context.insert(before)
        moved.team = before
        #expect(try context.fetch(FetchDescriptor(predicate: early)).isEmpty)
    }

    @Test func aDeletedModelMatchesNothing() throws {
        let (fixture, container, model, teams, _) = try RelationshipPredicateTests.seeded(
            "aDeletedModelMatchesNothing")
        defer { fixture.remove() }
        let context = container.mainContext
        let t3 = try #require(teams["t3"])
        let members = model.filter { $0.value == "t3" }.count
        #expect(
            try context.fetchCount(FetchDescriptor<Staff>(predicate: #Predicate { $0.team == t3 }))
                == members)
        context.delete(t3)
        try context.save()
        #expect(t3.isDeleted || t3.modelContext == nil)
        #expect(
            try context.fetch(FetchDescriptor<Staff>(predicate: #Predicate { $0.team == t3 }))
                .isEmpty)
        #expect(
            try ModelContext(container).fetch(
                FetchDescriptor<Staff>(predicate: #Predicate { $0.team == t3 })
            ).isEmpty)
        #expect(
            try context.fetchCount(FetchDescriptor<Staff>(predicate: #Predicate { $0.team != t3 }))
                == model.count)
    }
}
