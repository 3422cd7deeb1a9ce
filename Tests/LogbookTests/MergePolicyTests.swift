import Foundation
import Logbook
import TestSupport
import Testing

/// Two contexts saving the same object: detection by per-object version, and the merge policies.
@MainActor @Suite struct MergePolicyTests {
    @Test func conflictingSaveThrowsByDefault() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        b.salary = 300
        let id = b.persistentModelID.description
        #expect(
            throws: LogbookError.conflict(
                entity: "Employee", object: id, expectedVersion: 1, foundVersion: 2)
        ) {
            try second.save()
        }
        #expect(second.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Employee>()).first?.salary == 200)
    }

    @Test func storeWinsDropsThisContextsChanges() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        b.salary = 300
        second.mergePolicy = .storeWins
        try second.save()
        #expect(b.salary == 200)
        #expect(!second.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Employee>()).first?.salary == 200)
        b.salary = 400
        try second.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Employee>()).first?.salary == 400)
    }

    @Test func contextWinsOverwrites() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        b.salary = 300
        second.mergePolicy = .contextWins
        try second.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Employee>()).first?.salary == 300)
        a.salary = 500
        #expect(throws: LogbookError.self) { try first.save() }
    }

    @Test func deleteOfAnObjectChangedElsewhereConflicts() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (_, a, first, b, second) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        second.delete(b)
        #expect(throws: LogbookError.self) { try second.save() }
    }

    @Test func savesInTurnWithoutOverlapDoNotConflict() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (_, a, first, _, _) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        a.salary = 300
        try first.save()
        a.salary = 400
        try first.save()
        #expect(a.salary == 400)
    }

    @Test func contextsOnSeveralThreadsSaveIntoOneContainer() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let context = ModelContext(container)
            for round in 0..<25 {
                context.insert(Employee(name: "w\(worker)-\(round)"))
                do { try context.save() } catch { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let ids = try ModelContext(container).fetchIdentifiers(FetchDescriptor<Employee>())
        #expect(ids.count == 100)
        #expect(Set(ids).count == 100)
    }
}
