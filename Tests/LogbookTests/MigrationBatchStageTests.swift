import Foundation
import Logbook
import TestSupport
import Testing

/// A custom stage that changes objects with a batch update (`update(model:where:set:)`, SQL's
/// `UPDATE`) rather than through fetched objects: its changes are the migration's, on disk
/// only if every stage succeeds.
@Suite struct MigrationBatchStageTests {
    /// V1 → V2, its `didMigrate` giving the Engineers a salary of 1,000 with one batch update,
    /// then throwing if `failing`.
    enum RaisePlan: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self, SeedModelV2.self] }
        static var stages: [MigrationStage] { [stage(failing: false)] }

        static func stage(failing: Bool) -> MigrationStage {
            .custom(
                fromVersion: SeedModelV1.self, toVersion: SeedModelV2.self, willMigrate: nil,
                didMigrate: { context in
                    let raised = try context.update(
                        model: SeedModelV2.Employee.self,
                        where: #Predicate { $0.designation == "Engineer" }
                    ) { $0.salary = 1_000 }
                    guard raised == 2 else { throw StageFailed(raised: raised) }
                    if failing { throw StageFailed(raised: raised) }
                })
        }
    }

    enum FailingRaisePlan: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self, SeedModelV2.self] }
        static var stages: [MigrationStage] { [RaisePlan.stage(failing: true)] }
    }

    struct StageFailed: Error { var raised: Int }

    private func writeSeedStore(_ fixture: LogbookFixture) throws {
        let container = try ModelContainer(
            for: SeedModelV1.models, configuration: ModelConfiguration(url: fixture.url))
        let context = ModelContext(container)
        for i in 0..<3 {
            let employee = SeedModelV1.Employee()
            employee.employee_Name = "Employee \(i)"
            employee.employee_Designation = i % 2 == 0 ? "Engineer" : "Manager"
            employee.employee_Salary = "5"
            context.insert(employee)
        }
        try context.save()
        try container.close()
    }

    private func storeBytes(_ fixture: LogbookFixture) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for file in segmentFiles(fixture.url.path) { files[file] = readFile(file) }
        return files
    }

    private func salaries(_ container: ModelContainer) throws -> [String: Int64] {
        Dictionary(
            uniqueKeysWithValues: try ModelContext(container).fetch(
                FetchDescriptor<SeedModelV2.Employee>()
            ).map { ($0.name, $0.salary) })
    }

    @Test func aBatchUpdateInAStageIsPartOfTheMigration() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture)
        let container = try ModelContainer(
            for: SeedModelV2.models, migrationPlan: RaisePlan.self,
            configurations: ModelConfiguration(url: fixture.url))
        #expect(
            try salaries(container) == ["Employee 0": 1_000, "Employee 1": 0, "Employee 2": 1_000])
        try container.close()
    }

    @Test func aStageThatThrowsAfterItsBatchUpdateLeavesTheStoreAsItWas() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture)
        let before = storeBytes(fixture)
        #expect(throws: LogbookError.self) {
            try ModelContainer(
                for: SeedModelV2.models, migrationPlan: FailingRaisePlan.self,
                configurations: ModelConfiguration(url: fixture.url))
        }
        #expect(storeBytes(fixture) == before)
        let container = try ModelContainer(
            for: SeedModelV1.models, configuration: ModelConfiguration(url: fixture.url))
        #expect(
            try ModelContext(container).fetchCount(FetchDescriptor<SeedModelV1.Employee>()) == 3)
        try container.close()
    }
}
