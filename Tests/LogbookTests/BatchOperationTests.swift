import Foundation
import Logbook
import TestSupport
import Testing

/// Batch deletes and updates by predicate (issue 12): atomic commits that build no objects,
/// with the context's registered objects reflecting the result.
@MainActor @Suite struct BatchOperationTests {
    /// Ten Employees saved: five Engineers (salaries 100…500), five Managers (600…1000).
    private func seeded(_ fixture: LogbookFixture) throws -> ModelContainer {
        let container = try fixture.open()
        for i in 1...10 {
            container.mainContext.insert(
                Employee(
                    name: "E\(i)", designation: i <= 5 ? "Engineer" : "Manager",
                    salary: Int64(i * 100)))
        }
        try container.mainContext.save()
        return container
    }

    private func stored(_ container: ModelContainer) throws -> [String: Int64] {
        let fresh = ModelContext(container)
        return Dictionary(
            uniqueKeysWithValues: try fresh.fetch(FetchDescriptor<Employee>()).map {
                ($0.name, $0.salary)
            })
    }

    @Test func batchDeleteRemovesTheStoredMatchesAtOnce() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let deleted = try container.mainContext.delete(
            model: Employee.self, where: #Predicate { $0.designation == "Engineer" })
        #expect(deleted == 5)
        #expect(try stored(container).keys.sorted() == ["E10", "E6", "E7", "E8", "E9"])
        // Durable and atomic: a reopened store agrees.
        try container.close()
        let reopened = try fixture.open()
        #expect(try stored(reopened).count == 5)
    }

    @Test func batchDeleteWithoutPredicateDeletesEveryObject() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        #expect(try container.mainContext.delete(model: Employee.self) == 10)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 0)
        #expect(try container.mainContext.delete(model: Employee.self) == 0)
    }

    @Test func batchDeleteBesideUnsavedChanges() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        let engineers = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Engineer" },
                sortBy: [SortDescriptor(\.salary)]))
        let e1 = engineers[0]
        let e2 = engineers[1]
        e2.salary = 9_999  // an unsaved change to an object the batch deletes
        let manager = try #require(
            try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "E6" }))
                .first)
        manager.salary = 6_666  // an unsaved change to an object the batch leaves
        let newcomer = Employee(name: "New", designation: "Engineer", salary: 1)
        context.insert(newcomer)  // an unsaved insert that matches

        #expect(
            try context.delete(
                model: Employee.self, where: #Predicate { $0.designation == "Engineer" }) == 5)
        // Registered objects of deleted records report it; their unsaved changes are dropped.
        #expect(e1.isDeleted && e2.isDeleted)
        #expect(!context.changedModels.contains { $0 === e2 })
        #expect(try context.model(for: e1.persistentModelID, as: Employee.self) == nil)
        // The rest of the pending work is untouched and saves.
        #expect(context.hasChanges)
        #expect(!newcomer.isDeleted)
        try context.save()
        let after = try stored(container)
        #expect(after["New"] == 1)
        #expect(after["E6"] == 6_666)
        #expect(after["E2"] == nil)
    }

    @Test func batchDeleteByStringPredicate() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        #expect(
            try container.mainContext.delete(entity: "Employee", where: "salary > %@", 800) == 2)
        #expect(try stored(container).count == 8)
        #expect(throws: LogbookError.self) {
            try container.mainContext.delete(entity: "Employee", where: "salary >")
        }
        #expect(throws: LogbookError.unknownEntity("Nope")) {
            try container.mainContext.delete(entity: "Nope")
        }
    }

    @Test func anotherContextSavingADeletedObjectConflicts() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let other = ModelContext(container)
        let e1 = try #require(
            try other.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "E1" }))
                .first)
        try container.mainContext.delete(
            model: Employee.self, where: #Predicate { $0.designation == "Engineer" })
        e1.salary = 1
        #expect(throws: LogbookError.self) { try other.save() }
    }

    @Test func batchUpdateChangesTheStoredMatches() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let updated = try container.mainContext.update(
            model: Employee.self, where: #Predicate { $0.designation == "Engineer" }
        ) { $0.salary += 1_000 }
        #expect(updated == 5)
        let after = try stored(container)
        #expect(after["E1"] == 1_100 && after["E5"] == 1_500 && after["E6"] == 600)
        try container.close()
        #expect(try stored(try fixture.open())["E3"] == 1_300)
    }

    @Test func batchUpdateOfAnObjectWithPendingEdits() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        let byName = Dictionary(
            uniqueKeysWithValues: try context.fetch(FetchDescriptor<Employee>()).map {
                ($0.name, $0)
            })
        let untouched = try #require(byName["E1"])
        let renamed = try #require(byName["E2"])
        let repaid = try #require(byName["E3"])
        renamed.name = "Renamed"
        repaid.salary = 7  // a pending edit of the attribute the batch sets

        try context.update(
            model: Employee.self, where: #Predicate { $0.designation == "Engineer" }
        ) { $0.salary += 1_000 }
        // Registered objects take the new values, except attributes with a pending edit: it wins.
        #expect(untouched.salary == 1_100)
        #expect(renamed.salary == 1_200 && renamed.name == "Renamed")
        #expect(repaid.salary == 7)
        #expect(try stored(container)["E3"] == 1_300)
        // Rollback returns to the updated values, not to those before the batch.
        context.rollback()
        #expect(renamed.name == "E2" && repaid.salary == 1_300)
        // Saving after a batch update raises no conflict with the context's own batch.
        repaid.salary = 8
        try context.save()
        #expect(try stored(container)["E3"] == 8)
    }

    @Test func pendingEditsWinAtTheNextSave() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        let e3 = try #require(
            try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "E3" }))
                .first)
        e3.salary = 7
        try context.update(
            entity: "Employee", where: "name == %@", "E3",
            set: ["salary": 5, "designation": "Lead"])
        #expect(e3.designation == "Lead" && e3.salary == 7)
        try context.save()
        let saved = try #require(
            try ModelContext(container).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "E3" })
            ).first)
        #expect(saved.salary == 7 && saved.designation == "Lead")
    }

    @Test func batchUpdateByNameChecksTypes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        #expect(
            throws: LogbookError.typeMismatch(
                entity: "Employee", attribute: "salary", expected: "Int64", found: "String")
        ) { try context.update(entity: "Employee", set: ["salary": "lots"]) }
        #expect(
            throws: LogbookError.typeMismatch(
                entity: "Employee", attribute: "name", expected: "String", found: "nil")
        ) { try context.update(entity: "Employee", set: ["name": nil]) }
        #expect(throws: LogbookError.unknownAttribute(entity: "Employee", attribute: "age")) {
            try context.update(entity: "Employee", set: ["age": 3])
        }
        #expect(try stored(container)["E1"] == 100)
        #expect(
            try context.update(
                entity: "Employee", where: "salary == %@", 2_000_000, set: ["salary": 3_000_000])
                == 0)
    }

    @Test func batchUpdateThatBreaksUniquenessChangesNothing() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Contact.self])
        for email in ["a@x", "b@x", "c@x"] { container.mainContext.insert(Contact(email: email)) }
        try container.mainContext.save()
        #expect(throws: LogbookError.self) {
            try container.mainContext.update(
                entity: "Contact", where: "email != %@", "c@x", set: ["email": "same@x"])
        }
        #expect(throws: LogbookError.self) {
            try container.mainContext.update(
                model: Contact.self, where: #Predicate { $0.email == "a@x" }
            ) {
                $0.email = "b@x"
            }
        }
        let emails = try ModelContext(container).fetch(FetchDescriptor<Contact>()).map(\.email)
            .sorted()
        #expect(emails == ["a@x", "b@x", "c@x"])
        #expect(
            try container.mainContext.update(
                model: Contact.self, where: #Predicate { $0.email == "a@x" }
            ) { $0.age = 30 } == 1)
    }

    @Test func batchDeleteAppliesDeleteRules() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Company.self, StaffedEmployee.self])
        let context = container.mainContext
        let acme = Company(name: "Acme")
        let globex = Company(name: "Globex")
        context.insert(acme)
        context.insert(globex)
        for i in 0..<3 { context.insert(StaffedEmployee(name: "A\(i)", company: acme)) }
        context.insert(StaffedEmployee(name: "G0", company: globex))
        try context.save()
        // Company.employees cascades: deleting Acme by batch deletes its three employees.
        #expect(
            try context.delete(model: Company.self, where: #Predicate { $0.name == "Acme" }) == 1)
        let left = try ModelContext(container).fetch(FetchDescriptor<StaffedEmployee>()).map(\.name)
        #expect(left == ["G0"])
        #expect(acme.isDeleted)
    }

    @Test func batchDeleteRefusedByADenyRuleDeletesNothing() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([BatchTeam.self, BatchPlayer.self])
        let context = container.mainContext
        let reds = BatchTeam(name: "Reds")
        let blues = BatchTeam(name: "Blues")
        context.insert(reds)
        context.insert(blues)
        let player = BatchPlayer(name: "P")
        context.insert(player)
        player.team = reds
        try context.save()
        #expect(throws: LogbookError.self) { try context.delete(model: BatchTeam.self) }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BatchTeam>()) == 2)
        #expect(!reds.isDeleted)
        // A team nobody plays for can go.
        #expect(
            try context.delete(model: BatchTeam.self, where: #Predicate { $0.name == "Blues" }) == 1
        )
    }

    @Test func batchDeleteNullifiesInverseReferences() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([BatchClub.self, BatchFan.self])
        let context = container.mainContext
        let club = BatchClub(name: "C")
        context.insert(club)
        let fans = (0..<3).map { BatchFan(name: "F\($0)") }
        for fan in fans {
            context.insert(fan)
            fan.club = club
        }
        try context.save()
        #expect(try context.delete(model: BatchClub.self) == 1)
        // The fans stay, with no club: in the store and in the context.
        let stored = try ModelContext(container).fetch(FetchDescriptor<BatchFan>())
        #expect(stored.count == 3)
        #expect(stored.allSatisfy { $0.club == nil })
        #expect(fans.allSatisfy { $0.club == nil })
        // Their versions moved with the rewrite: saving them raises no conflict.
        fans[0].name = "F0'"
        try context.save()
    }
}

final class BatchTeam: PersistentModel {
    @Attribute var name = ""
    @Relationship(deleteRule: .deny, inverse: \BatchPlayer.team) var players: [BatchPlayer] = []
    init() {}
    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

final class BatchPlayer: PersistentModel {
    @Attribute var name = ""
    @Relationship var team: BatchTeam? = nil
    init() {}
    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

final class BatchClub: PersistentModel {
    @Attribute var name = ""
    @Relationship(inverse: \BatchFan.club) var fans: [BatchFan] = []
    init() {}
    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

final class BatchFan: PersistentModel {
    @Attribute var name = ""
    @Relationship var club: BatchClub? = nil
    init() {}
    convenience init(name: String) {
        self.init()
        self.name = name
    }
}
