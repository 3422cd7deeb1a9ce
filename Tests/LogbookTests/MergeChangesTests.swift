import Foundation
import Logbook
import TestSupport
import Testing

/// Merging another commit's changes into a context (issue 14): registered objects take the
/// stored values without a refetch, unsaved edits and the merge policy respected.
@Suite struct MergeChangesTests {
    /// Ann (salary 100, Engineer) and Bob (salary 200) saved; `here` has both registered.
    private struct Setup {
        let container: ModelContainer
        let here: ModelContext
        let ann: Employee
        let bob: Employee
        let there: ModelContext
        let annThere: Employee
        let bobThere: Employee
    }

    private func setUp(_ fixture: LogbookFixture) throws -> Setup {
        let container = try fixture.open()
        let seed = ModelContext(container)
        seed.insert(Employee(name: "Ann", designation: "Engineer", salary: 100))
        seed.insert(Employee(name: "Bob", salary: 200))
        try seed.save()
        let byName = FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])
        let here = ModelContext(container)
        let there = ModelContext(container)
        let mine = try here.fetch(byName)
        let theirs = try there.fetch(byName)
        return Setup(
            container: container, here: here, ann: mine[0], bob: mine[1], there: there,
            annThere: theirs[0], bobThere: theirs[1])
    }

    /// Saves `there` and returns what the commit changed.
    private func saveThere(_ s: Setup) async throws -> SavedChanges {
        var changes = s.container.changes().makeAsyncIterator()
        try s.there.save()
        return try #require(await changes.next())
    }

    private func storedSalaries(_ s: Setup) throws -> [String: Int64] {
        Dictionary(
            uniqueKeysWithValues: try ModelContext(s.container).fetch(FetchDescriptor<Employee>())
                .map { ($0.name, $0.salary) })
    }

    @Test func anUnchangedObjectTakesTheStoredValues() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.annThere.salary = 150
        s.annThere.designation = "Manager"
        let changes = try await saveThere(s)
        #expect(s.ann.salary == 100)
        s.here.merge(changes)
        #expect(s.ann.salary == 150)
        #expect(s.ann.designation == "Manager")
        #expect(!s.here.hasChanges)
        // Its version moved on too: editing and saving it now is no conflict.
        s.ann.salary = 175
        try s.here.save()
        #expect(try storedSalaries(s)["Ann"] == 175)
    }

    @Test func anObjectDeletedThereBecomesDeletedHere() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.there.delete(s.bobThere)
        s.here.merge(try await saveThere(s))
        #expect(s.bob.isDeleted)
        #expect(!s.here.hasChanges)
        #expect(try s.here.fetch(FetchDescriptor<Employee>()).map(\.name) == ["Ann"])
        let bobID = s.bob.persistentModelID
        #expect(try s.here.model(for: bobID, as: Employee.self) == nil)
    }

    @Test func aPendingDeletionOfAnObjectDeletedThereIsDone() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.here.delete(s.bob)
        s.there.delete(s.bobThere)
        s.here.merge(try await saveThere(s))
        #expect(s.bob.isDeleted)
        #expect(!s.here.hasChanges)
    }

    @Test func anEditedAttributeKeepsItsEditAndTheOthersAreMerged() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.ann.salary = 999
        s.annThere.designation = "Manager"
        s.here.merge(try await saveThere(s))
        #expect(s.ann.salary == 999)
        #expect(s.ann.designation == "Manager")
        #expect(s.here.hasChanges)
        // No attribute changed on both sides: the save is no conflict and keeps both changes.
        try s.here.save()
        let stored = try #require(
            try ModelContext(s.container).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Ann" })
            ).first)
        #expect(stored.salary == 999)
        #expect(stored.designation == "Manager")
    }

    @Test func rollbackAfterAMergeRestoresTheMergedValue() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.ann.designation = "Intern"
        s.annThere.designation = "Manager"
        s.here.mergePolicy = .contextWins
        s.here.merge(try await saveThere(s))
        #expect(s.ann.designation == "Intern")
        s.here.rollback()
        #expect(s.ann.designation == "Manager")
    }

    @Test func aConflictingEditUnderStoreWinsTakesTheStoredValue() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.here.mergePolicy = .storeWins
        s.ann.salary = 999
        s.ann.name = "Anna"
        s.annThere.salary = 150
        s.here.merge(try await saveThere(s))
        #expect(s.ann.salary == 150)
        #expect(s.ann.name == "Anna")
        #expect(s.here.hasChanges)
        try s.here.save()
        #expect(try storedSalaries(s)["Anna"] == 150)
    }

    @Test func aConflictingEditUnderStoreWinsAloneLeavesTheObjectClean() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.here.mergePolicy = .storeWins
        s.ann.salary = 999
        s.annThere.salary = 150
        s.here.merge(try await saveThere(s))
        #expect(s.ann.salary == 150)
        #expect(!s.here.hasChanges)
    }

    @Test func aConflictingEditUnderContextWinsIsKeptAndOverwrites() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.here.mergePolicy = .contextWins
        s.ann.salary = 999
        s.annThere.salary = 150
        s.annThere.designation = "Manager"
        s.here.merge(try await saveThere(s))
        #expect(s.ann.salary == 999)
        #expect(s.ann.designation == "Manager")
        try s.here.save()
        #expect(try storedSalaries(s)["Ann"] == 999)
    }

    @Test func aConflictingEditUnderErrorLeavesTheObjectForTheSaveToReport() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.ann.salary = 999
        s.annThere.salary = 150
        s.annThere.designation = "Manager"
        s.bobThere.salary = 250
        s.here.merge(try await saveThere(s))
        #expect(s.ann.salary == 999)
        #expect(s.ann.designation == "Engineer")
        #expect(s.bob.salary == 250)
        let id = s.ann.persistentModelID.description
        #expect(
            throws: LogbookError.conflict(
                entity: "Employee", object: id, expectedVersion: 1, foundVersion: 2)
        ) { try s.here.save() }
    }

    @Test func anEditedObjectDeletedThereFollowsThePolicy() async throws {
        for policy in [MergePolicy.storeWins, .contextWins, .error] {
            let fixture = LogbookFixture()
            defer { fixture.remove() }
            let s = try setUp(fixture)
            s.here.mergePolicy = policy
            s.bob.salary = 999
            s.there.delete(s.bobThere)
            s.here.merge(try await saveThere(s))
            switch policy {
            case .storeWins:
                #expect(s.bob.isDeleted)
                #expect(!s.here.hasChanges)
            case .contextWins:
                #expect(!s.bob.isDeleted)
                try s.here.save()
                #expect(try storedSalaries(s)["Bob"] == 999)
            case .error:
                #expect(!s.bob.isDeleted)
                #expect(throws: LogbookError.self) { try s.here.save() }
            }
        }
    }

    @Test func aPendingDeletionOfAnObjectUpdatedThereStaysPending() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        s.here.delete(s.bob)
        s.bobThere.salary = 250
        s.here.merge(try await saveThere(s))
        #expect(s.bob.isDeleted)
        #expect(s.here.deletedModels.count == 1)
        #expect(throws: LogbookError.self) { try s.here.save() }
    }

    @Test func mergingOwnOrRepeatedChangesChangesNothing() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        var changes = s.container.changes().makeAsyncIterator()
        s.ann.salary = 120
        try s.here.save()
        let own = try #require(await changes.next())
        s.ann.salary = 130
        s.here.merge(own)
        #expect(s.ann.salary == 130)
        s.there.merge(own)
        #expect(s.annThere.salary == 120)
        s.annThere.salary = 125
        s.there.merge(own)
        #expect(s.annThere.salary == 125)
        // The merge moved the object's version on: saving it is no conflict.
        try s.there.save()
        #expect(try storedSalaries(s)["Ann"] == 125)
    }

    @Test func objectsNotRegisteredAreNotRead() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        let empty = ModelContext(s.container)
        s.annThere.salary = 1
        empty.merge(try await saveThere(s))
        #expect(empty.description.contains("registered: 0"))
    }

    @Test func aBatchUpdateMergesLikeASave() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let s = try setUp(fixture)
        var changes = s.container.changes().makeAsyncIterator()
        try s.there.update(model: Employee.self) { $0.salary *= 2 }
        s.here.merge(try #require(await changes.next()))
        #expect([s.ann.salary, s.bob.salary] == [200, 400])
    }
}
