import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// The committed store `Tests/Fixtures/SchemaFormats1and2.logbook`, written before the
/// attribute types of schema format 3 existed, opens and reads unchanged: the same objects, the
/// same schema versions (no migration written), a clean check, its history.
@MainActor @Suite struct FormatFixtureTests {
    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/SchemaFormats1and2.logbook").standardized.path

    static var readOnly: LogStoreOptions {
        var options = LogStoreOptions()
        options.readOnly = true
        return options
    }

    /// A copy of the fixture to open (opening writes: never open it in place).
    private func copy() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("logbook-fixture")
        try directory.copyFiles(of: Self.fixturePath)
        return directory
    }

    private func values(_ w: FixtureWorker) -> FixtureValues.Worker {
        FixtureValues.Worker(
            name: w.name, role: w.role, salary: w.salary, level: w.level, rating: w.rating,
            active: w.active, hired: w.hired, photo: w.photo, badge: w.badge, nickname: w.nickname,
            age: w.age, bonus: w.bonus, remote: w.remote, left: w.left, signature: w.signature,
            token: w.token, office: w.office?.name, note: w.note)
    }

    /// Equal, with NaN equal to NaN and -0 told from +0.
    private func same(_ a: FixtureValues.Worker, _ b: FixtureValues.Worker) -> Bool {
        var x = a
        var y = b
        guard x.rating.bitPattern == y.rating.bitPattern,
            x.bonus?.bitPattern == y.bonus?.bitPattern
        else { return false }
        x.rating = 0
        y.rating = 0
        x.bonus = nil
        y.bonus = nil
        return x == y
    }

    @Test func theFixtureOpensWithItsClassesAndReadsEveryValue() throws {
        let directory = try copy()
        defer { directory.remove() }
        let container = try ModelContainer(
            for: [FixtureOffice.self, FixtureWorker.self], at: URL(fileURLWithPath: directory.path))
        #expect(container.schema.version == 2)
        let context = ModelContext(container)
        let workers = try context.fetch(
            FetchDescriptor<FixtureWorker>(sortBy: [SortDescriptor(\.name)]))
        #expect(workers.count == FixtureValues.workers.count)
        for (found, expected) in zip(workers.map(values), FixtureValues.workers) {
            #expect(same(found, expected), "\(found) is not \(expected)")
        }
        // Indexes and unique constraints of the stored schema work.
        let engineers = try context.fetch(
            FetchDescriptor<FixtureWorker>(
                predicate: #Predicate { $0.role == "Engineer" && $0.salary > 0 }))
        #expect(engineers.map(\.name) == ["Ann Lee"])
        let oslo = try #require(
            try context.fetch(
                FetchDescriptor<FixtureOffice>(predicate: #Predicate { $0.name == "Oslo" })
            )
            .first)
        #expect(Set(oslo.workers.map(\.name)) == ["Kim", "李小龙"])
        let clash = FixtureWorker()
        clash.token = FixtureValues.uuid(2)
        context.insert(clash)
        #expect(throws: LogbookError.self) { try context.save() }
        context.rollback()
        try container.close()
        // Opening with the same classes wrote no schema.
        let store = try LogStore(
            path: directory.path, options: Self.readOnly)
        defer { try? store.close() }
        var versions: [[UInt8]] = []
        try store.forEach(in: "logbook.schema") { key, _ in versions.append(Array(key)) }
        #expect(
            versions.sorted { $0.lexicographicallyPrecedes($1) } == [[0, 0, 0, 1], [0, 0, 0, 2]])
    }

    @Test func theFixtureDecodesChecksCleanAndHasItsHistory() throws {
        let report = try StoreCheck.run(storeAt: Self.fixturePath)
        #expect(!report.isDamaged, "\(report)")
        #expect(report.objectsChecked == 9)  // every object record in the log, live or not
        let store = try LogStore(path: Self.fixturePath, options: Self.readOnly)
        defer { try? store.close() }
        let decoder = try RecordDecoder(store: store)
        #expect(decoder.schema.version == 2)
        let records = try decoder.records(of: "FixtureWorker", in: store)
        #expect(records.map(\.id.primaryKey) == [1, 2, 4, 5])
        let kim = try #require(records.first { $0.values["name"] == .string("Kim") })
        #expect(kim.values["note"] == .string("joined after version 2"))
        #expect(kim.values["office"] == .integer(2))
        let ann = try #require(records.first { $0.values["name"] == .string("Ann Lee") })
        #expect(ann.version == 2)
        #expect(ann.values["note"] == .string("none"))  // a version-1 record, shown in version 2
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: Self.fixturePath),
            options: Self.readOnly)
        let saves = try container.history()
        #expect(saves.count == 4)
        #expect(saves.last?.author == "fixture")
        #expect(try container.historyRetention == .saves(100))
    }

    /// Writes the fixture (run once, by hand, before a format change):
    /// `LOGBOOK_WRITE_FIXTURE=/tmp/SchemaFormats1and2.logbook swift test --filter FormatFixtureTests`,
    /// then move the directory into `Tests/Fixtures/`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LOGBOOK_WRITE_FIXTURE"] != nil))
    func writeTheFixture() throws {
        let path = try #require(ProcessInfo.processInfo.environment["LOGBOOK_WRITE_FIXTURE"])
        #expect(!FileManager.default.fileExists(atPath: path), "\(path) exists already")
        try FixtureValues.write(to: URL(fileURLWithPath: path))
    }
}
