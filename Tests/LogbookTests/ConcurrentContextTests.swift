import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// An actor importing employees a batch per save, each batch under its own designation.
actor BatchImporter: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: any ModelExecutor

    init(modelContainer: ModelContainer) {
        self.modelContainer = modelContainer
        modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
    }

    /// Saves `batches` batches of `size`, calling `between` after each save but the last.
    func importBatches(
        _ batches: Int, of size: Int, between: @Sendable () async -> Void = {}
    ) async throws {
        for b in 0..<batches {
            for i in 0..<size {
                modelContext.insert(Employee(name: "\(b)-\(i)", designation: "batch \(b)"))
            }
            try modelContext.save()
            if b < batches - 1 { await between() }
        }
    }
}

/// Contexts used at once from several threads and actors (issue 14).
@Suite struct ConcurrentContextTests {
    @MainActor @Test func fetchesDuringABackgroundImportSeeWholeBatches() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let (batches, size) = (10, TestTier.pick(quick: 2_000, long: 10_000))
        let importer = BatchImporter(modelContainer: container)
        let finished = Locked(false)
        // Fetches begun: after each save the importer waits (up to 10 s) for one to begin, so
        // on a loaded machine the import cannot run whole between two fetches.
        let begun = Locked(0)
        let importing = Task {
            defer { finished.withLock { $0 = true } }
            try await importer.importBatches(batches, of: size) {
                let before = begun.withLock { $0 }
                let deadline = Date().addingTimeInterval(10)
                while begun.withLock({ $0 }) == before && Date() < deadline {
                    try? await Task.sleep(nanoseconds: 1_000_000)
                }
            }
        }
        let context = container.mainContext
        var between = 0
        var fetches = 0
        while true {
            let done = finished.withLock { $0 }
            begun.withLock { $0 += 1 }
            let employees = try context.fetch(FetchDescriptor<Employee>())
            fetches += 1
            let perBatch = Dictionary(grouping: employees, by: \.designation).mapValues(\.count)
            #expect(
                perBatch.values.allSatisfy { $0 == size },
                "a fetch saw part of a batch: \(perBatch)")
            if employees.count > 0 && employees.count < batches * size { between += 1 }
            if done { break }
            // Lets the importer's task start even when parallel tests fill the pool.
            await Task.yield()
        }
        try await importing.value
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == batches * size)
        #expect(between > 0, "no fetch overlapped the import (\(fetches) fetches)")
    }

    /// Eight contexts, each on its own thread, insert, change and delete their own employees
    /// (designation "t<i>") and check their fetches against what they saved, for a bounded
    /// time (1 s, at least 5 rounds each; 3 s in the long tier: its eight threads take every
    /// core they can get for as long, a whole `swift test`'s too); then a fresh context must
    /// find exactly the union.
    @Test func eightContextsOnEightThreadsAgreeWithAModel() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let models = Locked<[[String: Int64]]>(Array(repeating: [:], count: 8))
        let rounded = Locked(0)
        let deadline = Date().addingTimeInterval(TestTier.pick(quick: 1, long: 3))
        try onOwnThreads(8) { t in
            let context = ModelContext(container)
            let tag = "t\(t)"
            var model: [String: Int64] = [:]
            var generator = SystemRandomNumberGenerator()
            var next = 0
            var rounds = 0
            while Date() < deadline || rounds < 5 {
                rounds += 1
                let mine = try context.fetch(
                    FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == tag }))
                for employee in mine {
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0:
                        context.delete(employee)
                        model[employee.name] = nil
                    case 1:
                        employee.salary += 1
                        model[employee.name] = employee.salary
                    default: break
                    }
                }
                for _ in 0..<Int.random(in: 1...5, using: &generator) {
                    let name = "\(tag)-\(next)"
                    next += 1
                    let salary = Int64.random(in: 0..<1000, using: &generator)
                    context.insert(Employee(name: name, designation: tag, salary: salary))
                    model[name] = salary
                }
                try context.save()
                let saved = try ModelContext(container).fetch(
                    FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == tag }))
                let seen = Dictionary(uniqueKeysWithValues: saved.map { ($0.name, $0.salary) })
                #expect(seen == model, "context \(t) after round \(rounds)")
                // A read of everything, racing the other threads' saves.
                _ = try context.fetchCount(FetchDescriptor<Employee>())
            }
            models.withLock { $0[t] = model }
            rounded.withLock { $0 += rounds }
        }
        let expected = models.withLock { $0 }.reduce(into: [String: Int64]()) {
            $0.merge($1) { a, _ in a }
        }
        let final = try ModelContext(container).fetch(FetchDescriptor<Employee>())
        #expect(final.count == expected.count)
        #expect(Dictionary(uniqueKeysWithValues: final.map { ($0.name, $0.salary) }) == expected)
        #expect(expected.count > 8 * 5)
        print("eight contexts: \(rounded.withLock { $0 }) rounds, \(expected.count) employees")
    }
}
