import Foundation
import Logbook
import TestSupport
import Testing

private struct Refusal: Error {}

/// `transaction { }` (issue 14): the block's changes are saved in one commit, or not at all.
@Suite struct TransactionTests {
    private func salaries(_ container: ModelContainer) throws -> [String: Int64] {
        Dictionary(
            uniqueKeysWithValues: try ModelContext(container).fetch(FetchDescriptor<Employee>())
                .map { ($0.name, $0.salary) })
    }

    /// Ann and Bob with 100 each, saved, and registered in the returned context.
    private func seeded(_ fixture: LogbookFixture) throws -> (
        ModelContainer, ModelContext, Employee, Employee
    ) {
        let container = try fixture.open()
        let context = ModelContext(container)
        let ann = Employee(name: "Ann", salary: 100)
        let bob = Employee(name: "Bob", salary: 100)
        context.insert(ann)
        context.insert(bob)
        try context.save()
        return (container, context, ann, bob)
    }

    @Test func theBlocksChangesAreSavedInOneCommit() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann, bob) = try seeded(fixture)
        let stream = container.changes()
        let moved = try context.transaction {
            ann.salary -= 30
            bob.salary += 30
            context.insert(Employee(name: "Cy", salary: 1))
            return 30
        }
        #expect(moved == 30)
        #expect(!context.hasChanges)
        #expect(try salaries(container) == ["Ann": 70, "Bob": 130, "Cy": 1])
        try container.close()
        var commits: [SavedChanges] = []
        for await changes in stream { commits.append(changes) }
        #expect(commits.count == 1)
        #expect(commits.first?.updated.count == 2)
        #expect(commits.first?.inserted.count == 1)
    }

    @Test func aThrowingBlockLeavesNothingSavedAndNothingPending() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann, bob) = try seeded(fixture)
        let before = container.store.lastSequence
        #expect(throws: Refusal.self) {
            try context.transaction {
                ann.salary -= 30
                bob.salary += 30
                context.delete(bob)
                context.insert(Employee(name: "Cy"))
                throw Refusal()
            }
        }
        #expect(!context.hasChanges)
        #expect(ann.salary == 100 && bob.salary == 100 && !bob.isDeleted)
        #expect(container.store.lastSequence == before)
        #expect(try salaries(container) == ["Ann": 100, "Bob": 100])
    }

    @Test func changesPendingBeforeTheBlockAreSavedFirstOnTheirOwn() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann, bob) = try seeded(fixture)
        let before = container.store.lastSequence
        ann.salary = 1
        #expect(throws: Refusal.self) {
            try context.transaction {
                bob.salary = 2
                throw Refusal()
            }
        }
        // The earlier change was saved before the block ran; the block's was rolled back.
        #expect(container.store.lastSequence == before + 1)
        #expect(try salaries(container) == ["Ann": 1, "Bob": 100])
        #expect(!context.hasChanges)
    }

    @Test func whenThePendingChangesCannotBeSavedTheBlockDoesNotRun() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann, _) = try seeded(fixture)
        let other = ModelContext(container)
        try #require(try other.fetch(FetchDescriptor<Employee>()).first { $0.name == "Ann" })
            .salary = 5
        try other.save()
        ann.salary = 6  // conflicts
        var ran = false
        #expect(throws: LogbookError.self) {
            try context.transaction { ran = true }
        }
        #expect(!ran)
        #expect(context.hasChanges)
    }

    @Test func aSaveThatFailsAtTheEndRollsTheBlockBack() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann, bob) = try seeded(fixture)
        let other = ModelContext(container)
        try #require(try other.fetch(FetchDescriptor<Employee>()).first { $0.name == "Bob" })
            .salary = 5
        try other.save()
        #expect(throws: LogbookError.self) {
            try context.transaction {
                ann.salary = 50
                bob.salary = 150  // conflicts with the other save
            }
        }
        #expect(!context.hasChanges)
        #expect(ann.salary == 100)
        #expect(try salaries(container) == ["Ann": 100, "Bob": 5])
    }

    @Test func saveInsideTheBlockWaitsForItsEnd() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann, _) = try seeded(fixture)
        #expect(throws: Refusal.self) {
            try context.transaction {
                ann.salary = 1
                try context.save()
                #expect(context.hasChanges)
                throw Refusal()
            }
        }
        #expect(try salaries(container)["Ann"] == 100)
    }

    @Test func aNestedTransactionJoinsTheOuterOne() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann, bob) = try seeded(fixture)
        let before = container.store.lastSequence
        try context.transaction {
            ann.salary = 1
            try context.transaction { bob.salary = 2 }
            #expect(context.hasChanges)
        }
        #expect(container.store.lastSequence == before + 1)
        #expect(try salaries(container) == ["Ann": 1, "Bob": 2])
    }
}
