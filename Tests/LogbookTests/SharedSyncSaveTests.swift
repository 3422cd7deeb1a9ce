import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Durable saves from several contexts share `fdatasync`s (issue 14): a save is ordered and
/// made visible under the container's save lock, and its sync is awaited outside it. What other
/// contexts see before the sync is defined here: the save, at once; a failed sync fails the
/// waiting save and refuses every later write.
@Suite struct SharedSyncSaveTests {
    /// A container whose `fdatasync`s go through `faults`.
    private func open(
        _ fixture: LogbookFixture, _ faults: FaultInjectingFileSystem,
        _ types: [any PersistentModel.Type] = [Employee.self]
    ) throws -> ModelContainer {
        var options = LogStoreOptions()
        options.fileSystem = faults
        return try ModelContainer(for: types, at: fixture.url, options: options)
    }

    private func syncs(_ faults: FaultInjectingFileSystem) -> Int {
        faults.calls.filter { $0.operation == "fdatasync" && $0.path.hasSuffix(".seg") }.count
    }

    @Test func eightContextsSavingDurablyShareFdatasyncs() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let faults = FaultInjectingFileSystem()
        let container = try open(fixture, faults)
        // A disk that takes 2 ms a sync, so the saves of the other threads queue up behind one.
        faults.inject(.delay(2_000), on: "fdatasync", pathSuffix: ".seg", times: Int.max)
        let before = syncs(faults)
        let (threads, perThread) = (8, 25)
        try onOwnThreads(threads) { t in
            let context = ModelContext(container)
            for i in 0..<perThread {
                context.insert(Employee(name: "t\(t)-\(i)", salary: Int64(i)))
                try context.save()
            }
        }
        let shared = syncs(faults) - before
        let names = try ModelContext(container).fetch(FetchDescriptor<Employee>()).map(\.name)
        #expect(Set(names).count == threads * perThread && names.count == threads * perThread)
        #expect(shared < threads * perThread * 3 / 4, "\(shared) syncs for \(threads * perThread) saves")
        try container.close()
    }

    @Test func aSaveIsVisibleToOtherContextsOnceOrderedBeforeItIsDurable() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let faults = FaultInjectingFileSystem()
        let container = try open(fixture, faults)
        faults.inject(.delay(400_000), on: "fdatasync", pathSuffix: ".seg", times: 1)
        let saving = OwnThread {
            let context = ModelContext(container)
            context.insert(Employee(name: "Ann"))
            try context.save()
        }
        let reader = ModelContext(container)
        var seenWhileSyncing = false
        let deadline = Date().addingTimeInterval(10)
        while !saving.isFinished && Date() < deadline {
            if try reader.fetchCount(FetchDescriptor<Employee>()) == 1 {
                seenWhileSyncing = !saving.isFinished
                break
            }
            usleep(1_000)
        }
        try saving.wait()
        #expect(seenWhileSyncing, "the save was not visible while its sync ran")
        #expect(try reader.fetch(FetchDescriptor<Employee>()).map(\.name) == ["Ann"])
        try container.close()
    }

    @Test func aFailedSharedSyncFailsTheSaveAndRefusesLaterWrites() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let faults = FaultInjectingFileSystem()
        do {
            let container = try open(fixture, faults)
            let first = ModelContext(container)
            first.insert(Employee(name: "Ann"))
            try first.save()
            faults.inject(.error(EIO), on: "fdatasync", pathSuffix: ".seg", times: 1)
            first.insert(Employee(name: "Bob"))
            #expect(throws: LogbookError.self) { try first.save() }
            // The store is poisoned: another context's save is refused, even with the disk back.
            let second = ModelContext(container)
            second.insert(Employee(name: "Cy"))
            do {
                try second.save()
                Issue.record("a save after a failed sync was accepted")
            } catch LogbookError.store(.writesDisabled) {
            } catch {
                Issue.record("unexpected \(error)")
            }
            _ = try? container.close()
        }
        // After a reopen, what survived is a prefix: Ann, perhaps Bob, never Cy.
        let reopened = try fixture.open()
        let names = try ModelContext(reopened).fetch(FetchDescriptor<Employee>()).map(\.name)
        #expect(names == ["Ann"] || names == ["Ann", "Bob"], "\(names)")
        try reopened.close()
    }

    @Test func uniquenessStaysExactWhenSavesShareSyncs() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let faults = FaultInjectingFileSystem()
        let container = try open(fixture, faults, [Staff.self, Team.self])
        faults.inject(.delay(2_000), on: "fdatasync", pathSuffix: ".seg", times: Int.max)
        let accepted = Locked(0)
        let (threads, rounds) = (8, 10)
        try onOwnThreads(threads) { t in
            let context = ModelContext(container)
            for round in 0..<rounds {
                // Every thread tries the same email each round: exactly one may have it.
                context.insert(Staff("t\(t)", salary: Int64(round), email: "r\(round)@x"))
                do {
                    try context.save()
                    accepted.withLock { $0 += 1 }
                } catch LogbookError.uniqueConstraint {
                    context.rollback()
                }
            }
        }
        let staff = try ModelContext(container).fetch(FetchDescriptor<Staff>())
        #expect(accepted.withLock { $0 } == rounds)
        #expect(Set(staff.map(\.email)).count == rounds && staff.count == rounds)
        try container.close()
    }
}
