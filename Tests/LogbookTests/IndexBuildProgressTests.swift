import Foundation
import Logbook
import Synchronization
import TestSupport
import Testing

/// The Employee of TestSupport without its index: a store written with it has none to read.
final class UnindexedEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute var name = ""
    @Attribute var designation = ""
    @Attribute var salary: Int64 = 0
    init() {}
}

/// The reports a progress handler received (a class, so the `@Sendable` handler can hold it).
final class ProgressReports: Sendable {
    private let reports = Mutex<[IndexBuildProgress]>([])
    /// A handler that keeps every report.
    var handler: IndexBuildProgressHandler {
        { report in self.reports.withLock { $0.append(report) } }
    }
    var all: [IndexBuildProgress] { reports.withLock { $0 } }
}

/// ``ModelConfiguration/indexBuildProgress``: an open that builds an index from the records
/// reports it to the app, from none read to all, and an open that reads the indexes the last
/// one kept reports nothing.
@Suite struct IndexBuildProgressTests {
    static let employees = 50_000

    static func writeUnindexed(_ fixture: LogbookFixture, count: Int) throws {
        let container = try ModelContainer(
            for: [UnindexedEmployee.self], configuration: ModelConfiguration(url: fixture.url))
        let context = ModelContext(container)
        for i in 0..<count {
            let employee = UnindexedEmployee()
            employee.name = "Employee \(i)"
            employee.designation = "D\(i % 13)"
            employee.salary = Int64(i)
            context.insert(employee)
        }
        try context.save()
        try container.close()
    }

    /// Opens `fixture` with the indexed Employee, collecting the reports.
    static func openIndexed(_ fixture: LogbookFixture) throws -> (
        ModelContainer, [IndexBuildProgress]
    ) {
        let reports = ProgressReports()
        var configuration = ModelConfiguration(url: fixture.url)
        configuration.indexBuildProgress = reports.handler
        let container = try ModelContainer(for: [Employee.self], configuration: configuration)
        return (container, reports.all)
    }

    @Test func anOpenThatBuildsAnIndexReportsItsProgressFromNoneToAll() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try Self.writeUnindexed(fixture, count: Self.employees)
        let (container, reports) = try Self.openIndexed(fixture)
        defer { try? container.close() }
        try #require(reports.count >= 3, "\(reports)")
        #expect(reports.allSatisfy { $0.entity == "Employee" && $0.indexes == [["designation"]] })
        #expect(reports.first?.done == 0)
        #expect(reports.last?.done == Self.employees)
        #expect(reports.allSatisfy { $0.total == Self.employees })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.done < $1.done })
        #expect(reports.last?.fraction == 1)
        // The index it built is the one fetches use.
        let found = try ModelContext(container).fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "D5" }))
        #expect(found.count == (0..<Self.employees).filter { $0 % 13 == 5 }.count)
    }

    @Test func anOpenThatReadsTheKeptIndexesReportsNothing() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try Self.writeUnindexed(fixture, count: 1_000)
        let (first, built) = try Self.openIndexed(fixture)
        try first.close()
        #expect(built.last?.done == 1_000)
        let (second, reports) = try Self.openIndexed(fixture)
        try second.close()
        #expect(reports.isEmpty, "\(reports)")
    }

    @Test func aNewStoreReportsNothing() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, reports) = try Self.openIndexed(fixture)
        try container.close()
        // Its indexes are made from no records: nothing to wait for.
        #expect(reports.isEmpty, "\(reports)")
    }
}
