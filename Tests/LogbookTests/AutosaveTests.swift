import Foundation
import Logbook
import TestSupport
import Testing

/// `autosaveEnabled` (issue 14): the main context saves on the main actor after a change, once
/// per turn of the main actor, and at `close()`; other contexts only when asked.
@Suite struct AutosaveTests {
    /// Lets the main actor run what was queued on it before this call.
    @MainActor private func drainMainActor() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
    }

    private func storedNames(_ fixture: LogbookFixture) throws -> [String] {
        let container = try fixture.open()
        defer { try? container.close() }
        return try ModelContext(container).fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])
        ).map(\.name)
    }

    @MainActor @Test func onlyTheMainContextAutosavesByDefault() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        #expect(container.mainContext.autosaveEnabled)
        #expect(!ModelContext(container).autosaveEnabled)
    }

    @MainActor @Test func aChangeIsSavedOnceTheMainActorIsFree() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        let ann = Employee(name: "Ann")
        context.insert(ann)
        #expect(context.hasChanges)
        await drainMainActor()
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 1)
        // The next change schedules the next save.
        ann.salary = 10
        #expect(context.hasChanges)
        await drainMainActor()
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Employee>()).first?.salary == 10)
    }

    @MainActor @Test func changesMadeInOneTurnAreSavedInOneCommit() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let stream = container.changes()
        let context = container.mainContext
        let ann = Employee(name: "Ann")
        context.insert(ann)
        context.insert(Employee(name: "Bob"))
        ann.salary = 5
        await drainMainActor()
        let bob = try #require(
            try context.fetch(FetchDescriptor<Employee>()).first { $0.name == "Bob" })
        context.delete(bob)
        ann.salary = 6
        await drainMainActor()
        try container.close()
        var commits: [SavedChanges] = []
        for await changes in stream { commits.append(changes) }
        #expect(commits.count == 2)
        #expect(commits.first?.inserted.count == 2)
        #expect(commits.last?.deleted.count == 1)
        #expect(commits.last?.updated.count == 1)
    }

    @MainActor @Test func closeSavesWhatIsPending() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        container.mainContext.insert(Employee(name: "Ann"))
        try container.close()
        #expect(try storedNames(fixture) == ["Ann"])
    }

    @MainActor @Test func withAutosaveOffNothingIsSaved() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        context.autosaveEnabled = false
        context.insert(Employee(name: "Ann"))
        await drainMainActor()
        #expect(context.hasChanges)
        context.rollback()
        try container.close()
        #expect(try storedNames(fixture) == [])
    }

    @MainActor @Test func turningAutosaveOnSavesWhatIsPending() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        context.autosaveEnabled = false
        context.insert(Employee(name: "Ann"))
        context.autosaveEnabled = true
        await drainMainActor()
        #expect(!context.hasChanges)
    }

    @MainActor @Test func aFailedAutosaveLeavesTheChangesForTheNextSave() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        context.insert(Employee(name: "Ann"))
        await drainMainActor()
        let other = ModelContext(container)
        let annThere = try #require(try other.fetch(FetchDescriptor<Employee>()).first)
        let ann = try #require(try context.fetch(FetchDescriptor<Employee>()).first)
        annThere.salary = 1
        try other.save()
        ann.salary = 2  // conflicts with the other save
        await drainMainActor()
        #expect(context.hasChanges)
        #expect(throws: LogbookError.self) { try context.save() }
        context.mergePolicy = .contextWins
        ann.salary = 3  // a new change: a new attempt, which now succeeds
        await drainMainActor()
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Employee>()).first?.salary == 3)
    }

    @Test func aContextOnAThreadOfItsOwnSavesOnlyWhenTold() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let pending = try await container.performBackgroundTask { context in
            context.autosaveEnabled = true
            context.insert(Employee(name: "Ann"))
            Thread.sleep(forTimeInterval: 0.05)
            return context.hasChanges
        }
        #expect(pending)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 0)
    }
}
