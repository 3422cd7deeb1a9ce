import Foundation
import Logbook
import TestSupport
import Testing

/// Every merge policy against a deletion made by another context (issue 40: `.storeWins`
/// brought a deleted object back), and a deletion against another context's update. The
/// outcomes are the table in the DocC article *Merge policies and concurrent deletes*.
@MainActor @Suite struct ConcurrentDeleteMergeTests {
    /// The salaries of the Employees a fresh context finds.
    private func stored(_ container: ModelContainer) throws -> [Int64] {
        try ModelContext(container).fetch(FetchDescriptor<Employee>()).map(\.salary)
    }

    // MARK: Edited here, deleted there

    /// The scenario: the store's state is "deleted", so the store wins and Ann stays
    /// deleted; B's edit is dropped.
    @Test func storeWinsKeepsAnObjectDeletedElsewhereDeleted() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        b.salary = 300
        first.delete(a)
        try first.save()
        second.mergePolicy = .storeWins
        try second.save()
        #expect(try stored(container) == [])
        #expect(b.isDeleted)
        #expect(b.salary == 100, "the edit is dropped")
        #expect(!second.hasChanges)
        #expect(try second.fetch(FetchDescriptor<Employee>()).isEmpty)
        // The context goes on saving.
        second.insert(Employee(name: "Bo", salary: 5))
        try second.save()
        #expect(try stored(container) == [5])
    }

    @Test func storeWinsWithOtherChangesSavesThemAndDropsTheDeletedObject() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        b.salary = 300
        second.insert(Employee(name: "Bo", salary: 7))
        first.delete(a)
        try first.save()
        second.mergePolicy = .storeWins
        try second.save()
        #expect(try stored(container) == [7])
        #expect(b.isDeleted)
    }

    @Test func errorPolicyThrowsOnAnObjectDeletedElsewhere() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        b.salary = 300
        first.delete(a)
        try first.save()
        #expect(
            throws: LogbookError.conflict(
                entity: "Employee", object: b.persistentModelID.description, expectedVersion: 1,
                foundVersion: 0)
        ) { try second.save() }
        #expect(second.hasChanges)
        #expect(!b.isDeleted)
        #expect(try stored(container) == [])
    }

    /// The context's state wins: Ann is stored again, with B's edit, at a version past the one
    /// every context read, so a third context that read her before the deletion conflicts.
    @Test func contextWinsStoresAnObjectDeletedElsewhereAgain() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        let third = ModelContext(container)
        let c = try #require(try third.fetch(FetchDescriptor<Employee>()).first)
        b.salary = 300
        first.delete(a)
        try first.save()
        second.mergePolicy = .contextWins
        try second.save()
        #expect(try stored(container) == [300])
        #expect(!b.isDeleted)
        c.salary = 400
        #expect(throws: LogbookError.self) { try third.save() }
    }

    // MARK: Deleted here, updated there

    /// The store's state is "Ann, updated": the store wins, so the deletion is dropped and B's
    /// Ann takes the stored values.
    @Test func storeWinsDropsADeletionOfAnObjectUpdatedElsewhere() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        second.delete(b)
        second.mergePolicy = .storeWins
        try second.save()
        #expect(try stored(container) == [200])
        #expect(!b.isDeleted)
        #expect(b.salary == 200)
        #expect(!second.hasChanges)
        #expect(try second.fetch(FetchDescriptor<Employee>()).map(\.salary) == [200])
        // B's Ann is current again: the next save of her does not conflict.
        b.salary = 250
        try second.save()
        #expect(try stored(container) == [250])
    }

    @Test func errorPolicyThrowsOnADeletionOfAnObjectUpdatedElsewhere() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        second.delete(b)
        #expect(
            throws: LogbookError.conflict(
                entity: "Employee", object: b.persistentModelID.description, expectedVersion: 1,
                foundVersion: 2)
        ) { try second.save() }
        #expect(second.hasChanges)
        #expect(try stored(container) == [200])
    }

    @Test func contextWinsDeletesAnObjectUpdatedElsewhere() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        a.salary = 200
        try first.save()
        second.delete(b)
        second.mergePolicy = .contextWins
        try second.save()
        #expect(try stored(container) == [])
        #expect(b.isDeleted)
    }

    // MARK: Deleted here and there

    @Test(arguments: [MergePolicy.error, .storeWins, .contextWins])
    func aDeletionOfAnObjectDeletedElsewhereSucceeds(_ policy: MergePolicy) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, a, first, b, second) = try twoReaders(fixture)
        first.delete(a)
        try first.save()
        second.delete(b)
        second.mergePolicy = policy
        try second.save()
        #expect(try stored(container) == [])
        #expect(b.isDeleted)
        #expect(!second.hasChanges)
    }

    // MARK: Relationships

    /// A cascade reaches an employee updated elsewhere: under `.storeWins` her deletion goes
    /// ahead with her company's, since keeping her would leave her pointing at nothing.
    @Test func storeWinsLetsACascadeDeleteAnObjectUpdatedElsewhere() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Company.self, StaffedEmployee.self])
        let setup = ModelContext(container)
        let acme = Company(name: "Acme")
        setup.insert(acme)
        let ann = StaffedEmployee()
        ann.name = "Ann"
        setup.insert(ann)
        ann.company = acme
        try setup.save()
        let first = ModelContext(container)
        let second = ModelContext(container)
        let firstAnn = try #require(try first.fetch(FetchDescriptor<StaffedEmployee>()).first)
        let secondAcme = try #require(try second.fetch(FetchDescriptor<Company>()).first)
        second.delete(secondAcme)
        firstAnn.salary = 10
        try first.save()
        second.mergePolicy = .storeWins
        try second.save()
        let check = ModelContext(container)
        #expect(try check.fetch(FetchDescriptor<Company>()).isEmpty)
        #expect(try check.fetch(FetchDescriptor<StaffedEmployee>()).isEmpty)
    }
}
