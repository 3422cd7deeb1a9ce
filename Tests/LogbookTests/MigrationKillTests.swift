import Foundation
import Logbook
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGKILL in the middle of a custom migration (the seed's, over 2,000 employees; 1,000,000 in
/// the long tier, `LOGBOOK_LONG_TESTS=1`): a child process starts it and is killed after a
/// random delay; the store it leaves is exactly the old version or exactly the new one, and
/// the plan then finishes the job.
@Suite(.serialized) struct MigrationKillTests {
    static let long = ProcessInfo.processInfo.environment["LOGBOOK_LONG_TESTS"] == "1"
    static let employees = long ? 1_000_000 : 2_000
    static let rounds = long ? 4 : 8
    /// Kills land in the first `reach` migration times: at 1M, most within the migration.
    static let reach = long ? 1.2 : 3.0

    @Test func aKilledMigrationLeavesTheOldVersionOrTheNew() async throws {
        let directory = TemporaryDirectory("migration-kill")
        defer { directory.remove() }
        let original = directory.child("original.logbook")
        try Self.writeSeedStore(original)
        // How long a whole migration takes here, so kills land across it.
        let timed = directory.child("timed.logbook")
        try Self.copy(original, to: timed)
        let started = Date()
        _ = try Self.openV2(timed)
        let duration = Date().timeIntervalSince(started)
        var rng = SeededGenerator(seed: testSeed("migration kills"))
        var outcomes: [String: Int] = [:]
        for round in 0..<Self.rounds {
            let path = directory.child("round\(round).logbook")
            try Self.copy(original, to: path)
            let delay = UInt32(
                Double.random(in: 0..<(duration * Self.reach), using: &rng) * 1_000_000)
            await #expect(processExitsWith: .signal(SIGKILL)) {
                [path = path as String, delay = delay as UInt32] in
                Thread.detachNewThread {
                    usleep(delay)
                    kill(getpid(), SIGKILL)
                }
                _ = try? MigrationKillTests.openV2(path)
                kill(getpid(), SIGKILL)
            }
            let outcome = try Self.check(path)
            outcomes[outcome, default: 0] += 1
            // Whatever was left, the plan brings it to the new version with every salary.
            let container = try Self.openV2(path)
            let salaries = try ModelContext(container).fetch(
                FetchDescriptor<SeedModelV2.Employee>()
            ).map(\.salary)
            #expect(salaries.sorted() == (0..<Self.employees).map { Int64($0 * 10) })
            try container.close()
        }
        print("migration kills: \(outcomes), migration \(String(format: "%.2f", duration)) s")
    }

    /// SIGKILL in the middle of an open that builds an index the store has no copy of (the
    /// Employee of TestSupport indexes `designation`; the store was written without it), and
    /// of the close that keeps it: the next open has the index, exact, and reports its build
    /// if it must build it again.
    @Test func aKilledIndexBuildIsBuiltAgainAtTheNextOpen() async throws {
        let directory = TemporaryDirectory("index-build-kill")
        defer { directory.remove() }
        let original = directory.child("original.logbook")
        do {
            let container = try ModelContainer(
                for: [UnindexedEmployee.self], at: URL(fileURLWithPath: original))
            let context = ModelContext(container)
            for i in 0..<Self.employees {
                let employee = UnindexedEmployee()
                employee.name = "Employee \(i)"
                employee.designation = "D\(i % 13)"
                employee.salary = Int64(i)
                context.insert(employee)
            }
            try context.save()
            try container.close()
        }
        let timed = directory.child("timed.logbook")
        try Self.copy(original, to: timed)
        let started = Date()
        try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: timed)).close()
        let duration = Date().timeIntervalSince(started)
        var rng = SeededGenerator(seed: testSeed("index build kills"))
        var rebuilt = 0
        for round in 0..<Self.rounds {
            let path = directory.child("index\(round).logbook")
            try Self.copy(original, to: path)
            let delay = UInt32(Double.random(in: 0..<(duration * 1.2), using: &rng) * 1_000_000)
            await #expect(processExitsWith: .signal(SIGKILL)) {
                [path = path as String, delay = delay as UInt32] in
                Thread.detachNewThread {
                    usleep(delay)
                    kill(getpid(), SIGKILL)
                }
                try? ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path)).close()
                kill(getpid(), SIGKILL)
            }
            let reports = ProgressReports()
            var configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
            configuration.indexBuildProgress = reports.handler
            let container = try ModelContainer(for: [Employee.self], configuration: configuration)
            #expect(try container.indexProblems().isEmpty)
            let engineers = try ModelContext(container).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "D5" }))
            #expect(engineers.count == (0..<Self.employees).filter { $0 % 13 == 5 }.count)
            let built = reports.all
            if container.indexesReadFromSidecar {
                #expect(built.isEmpty)
            } else {
                rebuilt += 1
                #expect(built.last?.done == Self.employees)
            }
            try container.close()
        }
        print("index build kills: built again at \(rebuilt) of \(Self.rounds) reopens")
    }

    /// Which version the store at `path` is at, checked whole: "old" (every salary a string),
    /// or "new" (every salary converted).
    static func check(_ path: String) throws -> String {
        var options = LogStoreOptions()
        options.readOnly = true
        let probe = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: path), options: options)
        let attributes = probe.schema.entity(named: "Employee")?.attributes.map(\.name) ?? []
        let objects = try ModelContext(probe).fetch(entity: "Employee")
        try probe.close()
        #expect(objects.count == employees)
        if attributes.contains("employee_Salary") && !attributes.contains("salary") {
            let salaries = try objects.map { try $0.value(forKey: "employee_Salary") as? String }
            #expect(Set(salaries) == Set((0..<employees).map { String($0 * 10) }))
            return "old"
        }
        #expect(attributes.contains("salary"))
        let salaries = try objects.map { try $0.value(forKey: "salary") as? Int64 }
        #expect(Set(salaries) == Set((0..<employees).map { Int64($0 * 10) }))
        return "new"
    }

    static func openV2(_ path: String) throws -> ModelContainer {
        try ModelContainer(
            for: SeedModelV2.models, migrationPlan: SeedMigrationPlan.self,
            configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    static func writeSeedStore(_ path: String) throws {
        let container = try ModelContainer(
            for: SeedModelV1.models,
            configuration: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let context = ModelContext(container)
        for i in 0..<employees {
            let employee = SeedModelV1.Employee()
            employee.employee_Name = "Employee \(i)"
            employee.employee_Designation = "Engineer"
            employee.employee_Salary = String(i * 10)
            context.insert(employee)
        }
        try context.save()
        try container.close()
    }

    static func copy(_ source: String, to target: String) throws {
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }
}
