import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// An open that builds an index from the records writes it to the sidecar at once (its sorted
/// runs spilled and merged into the file) and uses it from there: the index is exact before
/// and after changes, the next open reads it, and a read-only open builds it in memory and
/// writes nothing.
@Suite struct IndexBuildIntoSidecarTests {
    /// More than one run of entries, so the open merges: runs of ``runEntries`` here (65,536
    /// in a store's own opens, which the long tier uses, with ten times the employees).
    static let employees = TestTier.pick(quick: 7_000, long: 70_000)
    static let runEntries: Int? = TestTier.pick(quick: 2_048, long: nil)

    /// Runs `body` with the index build's runs of ``runEntries``.
    static func withRuns<T>(_ body: () throws -> T) rethrows -> T {
        try SortedRuns.$runEntriesOverride.withValue(runEntries, operation: body)
    }

    static func sidecar(_ fixture: LogbookFixture) -> String {
        fixture.url.path + "/logbook-indexes.sidecar"
    }

    static func count(_ container: ModelContainer, _ designation: String) throws -> Int {
        try ModelContext(container).fetchCount(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == designation }))
    }

    static func expected(_ k: Int) -> Int { (0..<employees).filter { $0 % 13 == k }.count }

    @Test func anOpenThatBuildsAnIndexWritesTheSidecarBeforeItCloses() throws {
        try Self.withRuns {
            let fixture = LogbookFixture()
            defer { fixture.remove() }
            try IndexBuildProgressTests.writeUnindexed(fixture, count: Self.employees)
            #expect(!FileManager.default.fileExists(atPath: Self.sidecar(fixture)))
            var container = try fixture.open([Employee.self])
            #expect(!container.indexesReadFromSidecar)
            #expect(FileManager.default.fileExists(atPath: Self.sidecar(fixture)))
            #expect(try Self.count(container, "D5") == Self.expected(5))
            // A change moves entries in the chunks used from the file.
            let context = ModelContext(container)
            let moved = try context.fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "D7" }))
            for employee in moved.prefix(100) { employee.designation = "D5" }
            try context.save()
            #expect(try Self.count(container, "D5") == Self.expected(5) + 100)
            #expect(try Self.count(container, "D7") == Self.expected(7) - 100)
            try container.close()
            container = try fixture.open([Employee.self])
            defer { try? container.close() }
            #expect(container.indexesReadFromSidecar)
            #expect(try container.indexProblems().isEmpty)
            #expect(try Self.count(container, "D5") == Self.expected(5) + 100)
            #expect(try Self.count(container, "D7") == Self.expected(7) - 100)
        }
    }

    @Test func aReadOnlyOpenBuildsTheIndexInMemoryAndWritesNothing() throws {
        try Self.withRuns {
            let fixture = LogbookFixture()
            defer { fixture.remove() }
            try IndexBuildProgressTests.writeUnindexed(fixture, count: Self.employees)
            // The schema with the index is written by a writable open (a read-only one cannot);
            // then the store has no sidecar.
            try fixture.open([Employee.self]).close()
            try FileManager.default.removeItem(atPath: Self.sidecar(fixture))
            let container = try ModelContainer(
                for: [Employee.self],
                configuration: ModelConfiguration(url: fixture.url, allowsSave: false))
            #expect(!container.indexesReadFromSidecar)
            #expect(try Self.count(container, "D5") == Self.expected(5))
            #expect(try Self.count(container, "D12") == Self.expected(12))
            try container.close()
            #expect(!FileManager.default.fileExists(atPath: Self.sidecar(fixture)))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: fixture.url.path)
                    .allSatisfy { !$0.hasSuffix(".tmp") })
        }
    }

    /// A full disk while the open writes the sidecar (or spills its runs): the open builds the
    /// index in memory instead, exact, and the close writes the sidecar.
    @Test(arguments: ["logbook-indexes.sidecar.tmp", "scratch.tmp"])
    func aFullDiskAtTheOpenLeavesTheBuildInMemory(failing file: String) throws {
        try Self.withRuns {
            let fixture = LogbookFixture()
            defer { fixture.remove() }
            try IndexBuildProgressTests.writeUnindexed(fixture, count: Self.employees)
            let disk = FaultInjectingFileSystem()
            disk.inject(.error(ENOSPC), on: "write", pathSuffix: file, skip: 1)
            var options = LogStoreOptions()
            options.fileSystem = disk
            let container = try ModelContainer(
                for: [Employee.self],
                configuration: ModelConfiguration(url: fixture.url, options: options))
            #expect(disk.calls.contains { $0.operation == "write" && $0.path.hasSuffix(file) })
            #expect(!FileManager.default.fileExists(atPath: Self.sidecar(fixture)))
            #expect(try Self.count(container, "D5") == Self.expected(5))
            try container.close()
            #expect(FileManager.default.fileExists(atPath: Self.sidecar(fixture)))
            let reopened = try fixture.open([Employee.self])
            defer { try? reopened.close() }
            #expect(reopened.indexesReadFromSidecar)
            #expect(try Self.count(reopened, "D5") == Self.expected(5))
        }
    }
}
