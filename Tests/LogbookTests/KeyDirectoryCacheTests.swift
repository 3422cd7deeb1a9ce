import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `keys.dir` is a disposable cache (FORMAT.md, "Key directory file"): a container of small
/// objects writes it at a clean close even when its tables are more than half the log, and the
/// next open maps it instead of rebuilding the index.
@Suite struct KeyDirectoryCacheTests {
    /// The store's options: the file from 10,000 keys, not the default 100,000 (whose count
    /// KeyDirectoryFileTests checks), so that 12,000 objects make a large container here (120,000
    /// saves were a second of CPU in a debug build).
    static var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.keyDirectoryFileMinimumKeys = 10_000
        return options
    }

    @Test func aLargeContainerOfSmallObjectsWritesKeysDirAndReopensFromIt() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let count = 12_000
        func open() throws -> ModelContainer {
            try ModelContainer(for: [Employee.self], at: fixture.url, options: Self.options)
        }
        do {
            let container = try open()
            let context = ModelContext(container)
            for i in 0..<count {
                context.insert(Employee(name: "E\(i)", salary: Int64(i)))
            }
            try context.save()
            try container.close()
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.url.path)
        func size(_ name: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: fixture.url.path + "/" + name)[.size]
                as? Int ?? 0
        }
        #expect(files.contains("keys.dir"))
        let segmentBytes = try files.filter { $0.hasSuffix(".seg") }.reduce(0) {
            $0 + (try size($1))
        }
        // The case the old share rule (tables ≤ 0.5 × segments) refused.
        #expect(try size("keys.dir") > segmentBytes / 2)

        let reopened = try open()
        #expect(reopened.recovery.usedKeyDirectory)
        #expect(reopened.recovery.ignoredKeyDirectory == nil)
        let context = ModelContext(reopened)
        let fetched = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "E7777" }))
        #expect(fetched.map(\.salary) == [7_777])
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == count)
        try reopened.close()
    }
}
