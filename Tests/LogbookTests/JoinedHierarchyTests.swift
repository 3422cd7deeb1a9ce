import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// A store written before inheritance, holding `Animal` and `Dog` as two unrelated entities
/// (`Tests/Fixtures/PreInheritance.logbook`), opens under today's model where `Dog: Animal`:
/// the dogs join Animal's hierarchy with new keys, every reference to them follows, and
/// nothing else changes.
@MainActor @Suite struct JoinedHierarchyTests {
    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/PreInheritance.logbook").standardized.path

    /// A copy of the fixture to open (opening writes: never open it in place).
    private func copy() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("logbook-pre-inheritance")
        try directory.copyFiles(of: Self.fixturePath)
        return directory
    }

    private func open(_ directory: TemporaryDirectory) throws -> ModelContainer {
        try ModelContainer(
            for: [Animal.self, Dog.self, Cat.self, Kennel.self],
            at: URL(fileURLWithPath: directory.path))
    }

    @Test func theFixtureHoldsTwoUnrelatedEntitiesInSchemaFormat1() throws {
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: Self.fixturePath, options: options)
        defer { try? store.close() }
        var formats: [UInt8] = []
        try store.forEach(in: "logbook.schema") { _, value in formats.append(value[0]) }
        #expect(formats == [1])
        let decoder = try RecordDecoder(store: store)
        #expect(decoder.schema.entities.allSatisfy { $0.superentity == nil })
        #expect(try decoder.records(of: "Dog", in: store).map(\.id.primaryKey) == [2, 3])
        #expect(try decoder.records(of: "Animal", in: store).map(\.id.primaryKey) == [1, 2])
    }

    @Test func theDogsJoinTheAnimalsWithTheirValuesAndReferences() throws {
        let directory = try copy()
        defer { directory.remove() }
        let container = try open(directory)
        #expect(container.schema.version == 2)
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["Ant", "Bee", "Rex", "Tripod"])
        #expect(all.map { String(describing: type(of: $0)) } == ["Animal", "Animal", "Dog", "Dog"])
        #expect(all.compactMap { ($0 as? Dog)?.breed } == ["collie", "pug"])
        // The keys are one sequence now: the dogs took the next ones, in their old order.
        #expect(all.map(\.persistentModelID.primaryKey) == [1, 2, 4, 5])
        #expect(
            try context.fetch(FetchDescriptor<Animal>(predicate: #Predicate { $0.legs == 6 }))
                .map(\.name).sorted() == ["Ant", "Bee"])
        #expect(
            try context.fetch(FetchDescriptor<Dog>(predicate: #Predicate { $0.legs < 4 }))
                .map(\.name) == ["Tripod"])
        let kennels = try context.fetch(FetchDescriptor<Kennel>(sortBy: [SortDescriptor(\.name)]))
        #expect(kennels.map(\.name) == ["East", "North", "South"])
        #expect(kennels.map { $0.resident?.name } == [nil, "Tripod", "Rex"])
        #expect(kennels.map { $0.mascot?.name } == [nil, "Bee", "Ant"])
        // The history of the old keys is gone; what follows is recorded.
        #expect(try container.history().isEmpty)
        // New objects take keys after every old one.
        let cat = Cat()
        cat.name = "Tom"
        context.insert(cat)
        let puppy = Dog()
        puppy.name = "Bo"
        context.insert(puppy)
        try context.save()
        #expect([cat, puppy].map(\.persistentModelID.primaryKey).sorted() == [6, 7])
        #expect(try container.history().count == 1)
        try container.close()
        let report = try StoreCheck.run(storeAt: directory.path)
        #expect(!report.isDamaged, "\(report)")
        // A second open migrates nothing more.
        let again = try open(directory)
        #expect(again.schema.version == 2)
        #expect(try again.mainContext.fetchCount(FetchDescriptor<Animal>()) == 6)
        #expect(
            try again.mainContext.fetch(
                FetchDescriptor<Kennel>(predicate: #Predicate { $0.name == "North" })
            )
            .first?.resident?.name == "Tripod")
    }

    @Test func aRelationshipToASubclassReachesTheSubclass() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Animal.self, Dog.self, Kennel.self])
        let kennel = try #require(container.schema.entity(named: "Kennel"))
        #expect(kennel.relationship(named: "resident")?.destination == "Dog")
        #expect(kennel.relationship(named: "mascot")?.destination == "Animal")
    }

    @Test func aReadOnlyOpenOfThePreInheritanceStoreIsRefused() throws {
        var options = LogStoreOptions()
        options.readOnly = true
        #expect(throws: LogbookError.self) {
            _ = try ModelContainer(
                for: [Animal.self, Dog.self, Kennel.self],
                at: URL(fileURLWithPath: Self.fixturePath), options: options)
        }
    }

    @Test func anEntityThatLosesItsSuperentityIsStillRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([Animal.self, Dog.self])
            let rex = Dog()
            rex.name = "Rex"
            container.mainContext.insert(rex)
            try container.mainContext.save()
        }
        #expect(throws: LogbookError.self) { _ = try fixture.open([Dog.self]) }
        let container = try fixture.open([Animal.self, Dog.self])
        #expect(try container.mainContext.fetch(FetchDescriptor<Animal>()).map(\.name) == ["Rex"])
    }

    /// Writes the fixture (run once, by hand, with the classes of the format before
    /// inheritance): `LOGBOOK_WRITE_PRE_INHERITANCE=/tmp/PreInheritance.logbook swift test
    /// --filter JoinedHierarchyTests`, then move the directory into `Tests/Fixtures/`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LOGBOOK_WRITE_PRE_INHERITANCE"] != nil))
    func writeTheFixture() throws {
        let path = try #require(
            ProcessInfo.processInfo.environment["LOGBOOK_WRITE_PRE_INHERITANCE"])
        #expect(!FileManager.default.fileExists(atPath: path), "\(path) exists already")
        try PreInheritanceZoo.write(to: URL(fileURLWithPath: path))
    }
}
