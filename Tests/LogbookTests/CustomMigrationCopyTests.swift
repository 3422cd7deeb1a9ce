import Foundation
import Logbook
import TestSupport
import Testing

/// A custom migration runs on a copy of the store's files beside it (`<store>.migrating`), not
/// in memory, and applies it in one streamed commit: the copy is gone when the migration ends,
/// whether it succeeded or threw, and one a crash left behind does not stop the next.
@Suite(.serialized) struct CustomMigrationCopyTests {
    private func writeSeedStore(_ fixture: LogbookFixture, count: Int, bad: Int? = nil) throws {
        let container = try ModelContainer(
            for: SeedModelV1.models, configuration: ModelConfiguration(url: fixture.url))
        let context = ModelContext(container)
        for i in 0..<count {
            let employee = SeedModelV1.Employee()
            employee.employee_Name = "Employee \(i)"
            employee.employee_Designation = "Engineer"
            employee.employee_Salary = i == bad ? "lots" : String(i)
            context.insert(employee)
        }
        try context.save()
        try container.close()
    }

    private func openV2(_ fixture: LogbookFixture) throws -> ModelContainer {
        try ModelContainer(
            for: SeedModelV2.models, migrationPlan: SeedMigrationPlan.self,
            configurations: ModelConfiguration(url: fixture.url))
    }

    private func copyPath(_ fixture: LogbookFixture) -> String { fixture.url.path + ".migrating" }

    @Test func aMigrationLargerThanOneBatchIsAppliedWholeAndLeavesNoCopy() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        // More changed records than one batch of the streamed commit (8,192 operations).
        let count = 8_300
        try writeSeedStore(fixture, count: count)
        let container = try openV2(fixture)
        defer { try? container.close() }
        let salaries = try ModelContext(container).fetch(FetchDescriptor<SeedModelV2.Employee>())
            .map(\.salary)
        #expect(salaries.sorted() == (0..<count).map { Int64($0) })
        #expect(!FileManager.default.fileExists(atPath: copyPath(fixture)))
    }

    @Test func aThrowingStageLeavesNoCopy() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, count: 20, bad: 7)
        #expect(throws: LogbookError.self) { try openV2(fixture) }
        #expect(!FileManager.default.fileExists(atPath: copyPath(fixture)))
    }

    @Test func aCopyACrashLeftBehindIsReplaced() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, count: 20)
        // What a kill during the copy leaves: a partial copy, with a file the store lacks.
        try FileManager.default.createDirectory(
            atPath: copyPath(fixture), withIntermediateDirectories: false)
        try Data("stale".utf8).write(to: URL(fileURLWithPath: copyPath(fixture) + "/junk.seg"))
        let container = try openV2(fixture)
        defer { try? container.close() }
        #expect(
            try ModelContext(container).fetch(FetchDescriptor<SeedModelV2.Employee>()).map(\.salary)
                .sorted() == (0..<20).map { Int64($0) })
        #expect(!FileManager.default.fileExists(atPath: copyPath(fixture)))
    }

    @Test func aStageThatDeletesAsManyAsItInsertsAndLeavesTheRestIsAppliedExactly() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, count: 20)
        let container = try ModelContainer(
            for: SeedModelV2.models, migrationPlan: ReplacingThreePlan.self,
            configurations: ModelConfiguration(url: fixture.url))
        defer { try? container.close() }
        let employees = try ModelContext(container).fetch(FetchDescriptor<SeedModelV2.Employee>())
        var expected = Dictionary(
            uniqueKeysWithValues: (3..<20).map { ("Employee \($0)", Int64(0)) })
        expected["Employee 5"] = 5_000
        for i in 0..<3 { expected["New \(i)"] = Int64(100 + i) }
        #expect(
            Dictionary(uniqueKeysWithValues: employees.map { ($0.name, $0.salary) }) == expected)
        #expect(!FileManager.default.fileExists(atPath: copyPath(fixture)))
    }
}

/// V1 → V2 whose stage deletes three Employees, inserts three and changes one: the store's
/// count stays, and most records are left as they were.
enum ReplacingThreePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self, SeedModelV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: SeedModelV1.self, toVersion: SeedModelV2.self, willMigrate: nil,
                didMigrate: { context in
                    let all = try context.fetch(FetchDescriptor<SeedModelV2.Employee>())
                    for employee in all {
                        if ["Employee 0", "Employee 1", "Employee 2"].contains(employee.name) {
                            context.delete(employee)
                        } else if employee.name == "Employee 5" {
                            employee.salary = 5_000
                        }
                    }
                    for i in 0..<3 {
                        let employee = SeedModelV2.Employee()
                        employee.name = "New \(i)"
                        employee.salary = Int64(100 + i)
                        context.insert(employee)
                    }
                    try context.save()
                })
        ]
    }
}
