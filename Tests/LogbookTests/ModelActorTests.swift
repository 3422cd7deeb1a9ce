import Foundation
import Logbook
import TestSupport
import Testing

/// The lines a user writes for a model actor (no macro).
actor EmployeeImporter: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: any ModelExecutor

    init(modelContainer: ModelContainer) {
        self.modelContainer = modelContainer
        modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
    }

    /// Inserts one employee per name, saves, and returns their identifiers.
    func importNames(_ names: [String]) throws -> [PersistentIdentifier] {
        let employees = names.map { Employee(name: $0) }
        for employee in employees { modelContext.insert(employee) }
        try modelContext.save()
        return employees.map(\.persistentModelID)
    }

    func raise(_ id: PersistentIdentifier, by amount: Int64) throws {
        guard let employee = try modelContext.model(for: id, as: Employee.self) else { return }
        employee.salary += amount
        try modelContext.save()
    }

    /// Whether the actor's code runs on the executor's queue (traps otherwise).
    func checkIsolation() {
        modelExecutor.checkIsolated()
    }

    func setAutosave(_ on: Bool) { modelContext.autosaveEnabled = on }

    func insertWithoutSaving(_ name: String) { modelContext.insert(Employee(name: name)) }

    var hasChanges: Bool { modelContext.hasChanges }
}

/// `ModelActor` and `ModelContainer.performBackgroundTask` (issue 14).
@Suite struct ModelActorTests {
    @Test func anActorSavesAndTheMainContextSeesIt() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let importer = EmployeeImporter(modelContainer: container)
        let ids = try await importer.importNames(["Ann", "Bob"])
        #expect(ids.count == 2)
        let context = ModelContext(container)
        #expect(
            try ids.map { try context.model(for: $0, as: Employee.self)?.name } == ["Ann", "Bob"])
        try await importer.raise(ids[0], by: 10)
        #expect(try ModelContext(container).model(for: ids[0], as: Employee.self)?.salary == 10)
    }

    @Test func itsJobsRunOnTheExecutorOneAtATime() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let importer = EmployeeImporter(modelContainer: container)
        await importer.checkIsolation()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<20 {
                group.addTask { _ = try await importer.importNames(["e\(i)"]) }
            }
            try await group.waitForAll()
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 20)
    }

    @Test func aModelActorsContextDoesNotAutosaveByDefault() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let importer = EmployeeImporter(modelContainer: container)
        await importer.insertWithoutSaving("Ann")
        await Task.yield()
        #expect(await importer.hasChanges)
    }

    @Test func aModelActorsContextAutosavesOnItsExecutorWhenAsked() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let importer = EmployeeImporter(modelContainer: container)
        await importer.setAutosave(true)
        await importer.insertWithoutSaving("Ann")
        await importer.insertWithoutSaving("Bob")
        // The save was scheduled on the executor when the change was made. It runs once the
        // executor is free: after the task suspends (calls in a row from one task may run in
        // one turn of the executor), so a call after that finds it done.
        await Task.yield()
        #expect(await !importer.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 2)
    }

    @Test func performBackgroundTaskReturnsWhatItsBodyReturns() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let count = try await container.performBackgroundTask { context in
            #expect(!Thread.isMainThread)
            for name in ["Ann", "Bob", "Cy"] { context.insert(Employee(name: name)) }
            try context.save()
            return try context.fetchCount(FetchDescriptor<Employee>())
        }
        #expect(count == 3)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 3)
    }

    @Test func performBackgroundTaskRethrowsAndDiscardsWhatWasNotSaved() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        await #expect(throws: LogbookError.unknownEntity("Nobody")) {
            try await container.performBackgroundTask { context in
                context.insert(Employee(name: "Ann"))
                _ = try context.fetch(entity: "Nobody")
            }
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 0)
    }
}
