import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// A club with members whose club is nullified when it goes: batch deletes then rewrite them.
final class Club: PersistentModel {
    @Attribute var name = ""
    @Relationship(deleteRule: .nullify, inverse: \ClubMember.club) var members: [ClubMember] = []
    init() {}
    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

final class ClubMember: PersistentModel {
    @Attribute var name = ""
    @Relationship var club: Club? = nil
    init() {}
    convenience init(name: String, club: Club? = nil) {
        self.init()
        self.name = name
        self.club = club
    }
}

/// Change notifications (issue 14): after every commit of a container, observers get exactly
/// what it inserted, updated (with attribute names) and deleted, and its sequence number.
@Suite struct ChangeNotificationTests {
    private func id(_ model: some PersistentModel) throws -> PersistentIdentifier {
        model.persistentModelID
    }

    @Test func aSaveReportsItsInsertsUpdatesAndDeletesExactly() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        var changes = container.changes().makeAsyncIterator()
        let context = ModelContext(container)
        let ann = Employee(name: "Ann", salary: 100)
        let bob = Employee(name: "Bob", salary: 200)
        context.insert(ann)
        context.insert(bob)
        try context.save()
        let first = try #require(await changes.next())
        #expect(first.inserted == [try id(ann), try id(bob)])
        #expect(first.updated.isEmpty && first.deleted.isEmpty)
        #expect(first.sequence == container.store.lastSequence)

        ann.salary = 300
        ann.name = "Anna"
        ann.designation = ""  // written with the same value: not a change
        context.delete(bob)
        let cy = Employee(name: "Cy")
        context.insert(cy)
        try context.save()
        let second = try #require(await changes.next())
        #expect(second.inserted == [try id(cy)])
        #expect(second.updated == [try id(ann): ["name", "salary"]])
        #expect(second.deleted == [try id(bob)])
        #expect(second.sequence == container.store.lastSequence)
        #expect(second.sequence > first.sequence)
    }

    @Test func savesOfEveryContextAndBatchOperationsArePublishedOncePerCommit() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Club.self, ClubMember.self])
        let stream = container.changes()
        let a = ModelContext(container)
        let b = ModelContext(container)
        let club = Club(name: "Chess")
        let members = (1...3).map { ClubMember(name: "m\($0)", club: club) }
        a.insert(club)
        for member in members { a.insert(member) }
        try a.save()
        let memberIDs = Set(try members.map(id))
        let bee = ClubMember(name: "bee")
        b.insert(bee)
        try b.save()
        #expect(
            try b.update(model: ClubMember.self, where: #Predicate { $0.name == "bee" }) {
                $0.name = "Bee"
            } == 1)
        #expect(try b.delete(model: Club.self) == 1)
        try container.close()

        var all: [SavedChanges] = []
        for await changes in stream { all.append(changes) }
        #expect(all.count == 4)
        #expect(all.map(\.sequence) == all.map(\.sequence).sorted())
        #expect(all[0].inserted == memberIDs.union([try id(club)]))
        #expect(all[1].inserted == [try id(bee)])
        #expect(all[2].updated == [try id(bee): ["name"]])
        // The batch delete nullifies the members' club: they are rewritten, not deleted.
        #expect(all[3].deleted == [try id(club)])
        #expect(
            all[3].updated == Dictionary(uniqueKeysWithValues: memberIDs.map { ($0, ["club"]) }))
        #expect(all[3].inserted.isEmpty)
    }

    @Test func stagedInsertsAreReportedLikeTheOthers() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        var changes = container.changes().makeAsyncIterator()
        let context = ModelContext(container)
        // Enough dropped inserts for the context to stage most of them as encoded records.
        for i in 0..<10_000 { context.insert(Employee(name: "e\(i)")) }
        try context.save()
        let saved = try #require(await changes.next())
        let stored = try ModelContext(container).fetchIdentifiers(FetchDescriptor<Employee>())
        #expect(saved.inserted == Set(stored))
        #expect(saved.inserted.count == 10_000)
    }

    @Test func aFailedSaveOrAnEmptyOneIsNotPublished() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let stream = container.changes()
        let context = ModelContext(container)
        context.insert(Employee(name: "Ann"))
        try context.save()
        let other = ModelContext(container)
        let ann = try #require(try other.fetch(FetchDescriptor<Employee>()).first)
        let mine = try #require(try context.fetch(FetchDescriptor<Employee>()).first)
        mine.salary = 1
        try context.save()
        ann.salary = 2
        #expect(throws: LogbookError.self) { try other.save() }
        other.rollback()
        try other.save()
        let bob = Employee(name: "Bob")
        context.insert(bob)
        context.delete(bob)
        try context.save()
        try container.close()
        var sequences: [UInt64] = []
        for await changes in stream { sequences.append(changes.sequence) }
        #expect(sequences.count == 2)
    }

    @Test func handlersGetEveryCommitInOrderUntilCancelled() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let received = Locked<[UInt64]>([])
        let done = DispatchSemaphore(value: 0)
        let observation = container.observeChanges { changes in
            received.withLock { $0.append(changes.sequence) }
            done.signal()
        }
        let context = ModelContext(container)
        for i in 0..<5 {
            context.insert(Employee(name: "e\(i)"))
            try context.save()
        }
        for _ in 0..<5 { #expect(done.wait(timeout: .now() + 10) == .success) }
        observation.cancel()
        context.insert(Employee(name: "late"))
        try context.save()
        let sequences = received.withLock { $0 }
        #expect(sequences.count == 5)
        #expect(sequences == sequences.sorted())
        #expect(sequences.last! < container.store.lastSequence)
    }

    @Test func aHandlerMaySaveAnotherContext() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let done = DispatchSemaphore(value: 0)
        let observation = container.observeChanges { changes in
            guard !changes.inserted.isEmpty else { return }
            let audit = ModelContext(container)
            for id in changes.inserted.sorted() {
                if let employee = try? audit.model(for: id, as: Employee.self) {
                    employee.salary = 1
                }
            }
            try? audit.save()
            done.signal()
        }
        let context = ModelContext(container)
        context.insert(Employee(name: "Ann"))
        try context.save()
        #expect(done.wait(timeout: .now() + 10) == .success)
        observation.cancel()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Employee>()).first?.salary == 1)
    }

    /// A handler may cancel its own observation: the cancel, run on the handlers' queue, does
    /// not wait for that queue (which would never return).
    @Test func aHandlerMayCancelItsOwnObservation() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let observation = Locked<ChangeObservation?>(nil)
        let calls = Locked(0)
        let done = DispatchSemaphore(value: 0)
        observation.withLock { slot in
            slot = container.observeChanges { _ in
                calls.withLock { $0 += 1 }
                observation.withLock { $0 }?.cancel()
                done.signal()
            }
        }
        let context = ModelContext(container)
        context.insert(Employee(name: "Ann"))
        try context.save()
        #expect(done.wait(timeout: .now() + 10) == .success)
        context.insert(Employee(name: "Bob"))
        try context.save()
        // A handler still registered would be queued behind this one.
        let probe = container.observeChanges { _ in }
        context.insert(Employee(name: "Cy"))
        try context.save()
        probe.cancel()
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func releasingTheObservationUnregisters() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let count = Locked(0)
        do {
            let observation = container.observeChanges { _ in count.withLock { $0 += 1 } }
            _ = observation
        }
        let context = ModelContext(container)
        context.insert(Employee(name: "Ann"))
        try context.save()
        // A handler still registered would be queued behind this one.
        let probe = container.observeChanges { _ in }
        context.insert(Employee(name: "Bob"))
        try context.save()
        probe.cancel()
        #expect(count.withLock { $0 } == 0)
    }

    @Test func streamsEndWhenTheContainerCloses() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let stream = container.changes()
        try container.close()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 0)
        var late = container.changes().makeAsyncIterator()
        #expect(await late.next() == nil)
    }
}
