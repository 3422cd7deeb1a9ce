import Foundation
import Logbook
import Synchronization
import TestSupport
import Testing

/// The seed's model (CoreDataManager's `employee_Name`, `employee_Designation` and
/// `employee_Salary`, the salary a string) and today's (`name`, `designation`, `salary: Int64`),
/// with the plan that moves a store from one to the other.
enum SeedModelV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Employee.self] }

    final class Employee: PersistentModel {
        @Attribute var employee_Name = ""
        @Attribute var employee_Designation = ""
        @Attribute var employee_Salary = ""
        init() {}
    }
}

enum SeedModelV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Employee.self] }

    final class Employee: PersistentModel {
        @Attribute(originalName: "employee_Name") var name = ""
        @Attribute(.indexed, originalName: "employee_Designation") var designation = ""
        @Attribute var salary: Int64 = 0
        init() {}
    }
}

/// A salary string that is not a whole number.
struct UnparsableSalary: Error, CustomStringConvertible {
    var object: String
    var text: String
    var description: String { "the salary \"\(text)\" of \(object) is not a whole number" }
}

enum SeedMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self, SeedModelV2.self] }
    static var stages: [MigrationStage] { [convertSalaries] }

    /// Salaries parsed in `willMigrate`, set in `didMigrate` (SwiftData's pattern: the old
    /// values are read on the old schema, written on the new one).
    static let parsed = Mutex<[PersistentIdentifier: Int64]>([:])

    static let convertSalaries = MigrationStage.custom(
        fromVersion: SeedModelV1.self, toVersion: SeedModelV2.self,
        willMigrate: { context in
            var salaries: [PersistentIdentifier: Int64] = [:]
            for employee in try context.fetch(FetchDescriptor<SeedModelV1.Employee>()) {
                let text = employee.employee_Salary.trimmingCharacters(in: .whitespaces)
                guard let value = Int64(text.isEmpty ? "0" : text) else {
                    throw UnparsableSalary(
                        object: employee.persistentModelID.description, text: text)
                }
                salaries[employee.persistentModelID] = value
            }
            parsed.withLock { $0 = salaries }
        },
        didMigrate: { context in
            let salaries = parsed.withLock { $0 }
            for employee in try context.fetch(FetchDescriptor<SeedModelV2.Employee>()) {
                employee.salary = salaries[employee.persistentModelID] ?? 0
            }
            try context.save()
        })
}

/// Versioned schemas, migration plans and stages: SwiftData's spellings, on the seed's model.
@MainActor @Suite(.serialized) struct VersionedMigrationTests {
    private func writeSeedStore(_ fixture: LogbookFixture, salaries: [String]) throws {
        let container = try ModelContainer(
            for: SeedModelV1.models, configuration: ModelConfiguration(url: fixture.url))
        let context = container.mainContext
        for (i, salary) in salaries.enumerated() {
            let employee = SeedModelV1.Employee()
            employee.employee_Name = "Employee \(i)"
            employee.employee_Designation = i % 2 == 0 ? "Engineer" : "Manager"
            employee.employee_Salary = salary
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

    @Test func theSeedModelMigratesToTodaysThroughACustomStage() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["1200", " 950 ", "70000"])
        let container = try openV2(fixture)
        let employees = try container.mainContext.fetch(
            FetchDescriptor<SeedModelV2.Employee>(sortBy: [SortDescriptor(\.name)]))
        #expect(employees.map(\.name) == ["Employee 0", "Employee 1", "Employee 2"])
        #expect(employees.map(\.designation) == ["Engineer", "Manager", "Engineer"])
        #expect(employees.map(\.salary) == [1200, 950, 70000])
        let stored = try #require(try Schema.stored(in: container.store))
        #expect(
            stored.entity(named: "Employee")?.attributes.map(\.name) == [
                "name", "designation", "salary",
            ])
        let managers = try container.mainContext.fetch(
            FetchDescriptor<SeedModelV2.Employee>(
                predicate: #Predicate { $0.designation == "Manager" }))
        #expect(managers.map(\.salary) == [950])
        try container.close()
        // Opened again: nothing more to migrate, the values stay.
        let again = try openV2(fixture)
        #expect(
            try again.mainContext.fetch(FetchDescriptor<SeedModelV2.Employee>()).map(\.salary)
                .sorted() == [950, 1200, 70000])
        #expect(try Schema.stored(in: again.store)?.version == stored.version)
    }

    @Test func anUnparsableSalaryRefusesTheMigrationNamesTheObjectAndChangesNoByte() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["1200", "about 900"])
        let before = storeBytes(fixture)
        do {
            _ = try openV2(fixture)
            Issue.record("the migration should have been refused")
        } catch let error as LogbookError {
            guard case .migrationStageFailed(let stage, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(stage == "custom 1.0.0 → 2.0.0, willMigrate")
            #expect(reason.contains("Employee/2"))
            #expect(reason.contains("about 900"))
        }
        #expect(storeBytes(fixture) == before)
        // The old app still reads its data.
        let old = try ModelContainer(
            for: SeedModelV1.models, configuration: ModelConfiguration(url: fixture.url))
        #expect(
            try old.mainContext.fetch(FetchDescriptor<SeedModelV1.Employee>()).map(
                \.employee_Salary
            ).sorted() == ["1200", "about 900"])
    }

    @Test func aStoreOfANewerVersionIsRefusedForWriting() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["1"])
        try openV2(fixture).close()
        let before = storeBytes(fixture)
        #expect(
            throws: LogbookError.storeNewerThanModel(stored: "2.0.0", newest: "1.0.0")
        ) {
            try ModelContainer(
                for: SeedModelV1.models, migrationPlan: OnlyV1Plan.self,
                configurations: ModelConfiguration(url: fixture.url))
        }
        #expect(storeBytes(fixture) == before)
        // Read-only, it opens under the store's own schema, by entity name.
        let reader = try ModelContainer(
            for: SeedModelV1.models, migrationPlan: OnlyV1Plan.self,
            configurations: ModelConfiguration(url: fixture.url, allowsSave: false))
        #expect(reader.schema.entity(named: "Employee")?.attributeIndex("salary") != nil)
        #expect(try ModelContext(reader).fetch(entity: "Employee").count == 1)
        try reader.close()
        #expect(storeBytes(fixture) == before)
    }

    @Test func aPlanThatSkipsAVersionIsRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["1"])
        #expect(
            throws: LogbookError.invalidMigrationPlan(
                "no stage migrates 1.0.0 to 2.0.0: every version of `schemas` needs a stage to the next"
            )
        ) {
            try ModelContainer(
                for: SeedModelV2.models, migrationPlan: PlanWithoutStages.self,
                configurations: ModelConfiguration(url: fixture.url))
        }
        #expect(
            throws: LogbookError.invalidMigrationPlan(
                "the stage 1.0.0 → 3.0.0 skips 2.0.0: a stage goes from one version of `schemas` to the next"
            )
        ) {
            try ModelContainer(
                for: ThirdModel.models, migrationPlan: SkippingPlan.self,
                configurations: ModelConfiguration(url: fixture.url))
        }
    }

    @Test func aLightweightStageRenamesWithoutRewritingRecords() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["5"])
        let recordsBefore = try countLoggedBytes(fixture)
        let container = try ModelContainer(
            for: RenamedOnly.models, migrationPlan: LightweightPlan.self,
            configurations: ModelConfiguration(url: fixture.url))
        let all = try container.mainContext.fetch(FetchDescriptor<RenamedOnly.Employee>())
        #expect(all.map(\.name) == ["Employee 0"])
        #expect(all.map(\.employee_Salary) == ["5"])
        // Only the schema, its renames and the version marker were written.
        #expect(try countLoggedBytes(fixture) - recordsBefore < 1024)
    }

    @Test func theModelMustBeThePlansNewestVersion() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        #expect(throws: LogbookError.self) {
            try ModelContainer(
                for: SeedModelV1.models, migrationPlan: SeedMigrationPlan.self,
                configurations: ModelConfiguration(url: fixture.url))
        }
    }

    @Test func aNewStoreStartsAtTheNewestVersion() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try openV2(fixture)
        container.mainContext.insert(SeedModelV2.Employee())
        try container.mainContext.save()
        try container.close()
        // Opened again, the plan finds the store at 2.0.0 and runs no stage.
        let again = try openV2(fixture)
        #expect(try again.mainContext.fetchCount(FetchDescriptor<SeedModelV2.Employee>()) == 1)
    }

    @Test func aThrowingDidMigrateLeavesTheStoreAsItWas() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["10", "20"])
        let before = storeBytes(fixture)
        #expect(
            throws: LogbookError.migrationStageFailed(
                stage: "custom 1.0.0 → 2.0.0, didMigrate",
                reason: "the new objects were half converted")
        ) {
            try ModelContainer(
                for: SeedModelV2.models, migrationPlan: FailingAfterWritesPlan.self,
                configurations: ModelConfiguration(url: fixture.url))
        }
        #expect(storeBytes(fixture) == before)
        let old = try ModelContainer(
            for: SeedModelV1.models, configuration: ModelConfiguration(url: fixture.url))
        let names = try old.mainContext.fetch(FetchDescriptor<SeedModelV1.Employee>()).map(
            \.employee_Name)
        #expect(names.sorted() == ["Employee 0", "Employee 1"])
    }

    @Test func historyFromBeforeACustomMigrationIsRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["10"])
        let old = try ModelContainer(
            for: SeedModelV1.models, configuration: ModelConfiguration(url: fixture.url))
        let token = try #require(try HistoryToken.current(of: old.store))
        try old.close()
        let container = try openV2(fixture)
        #expect {
            try container.history(after: token)
        } throws: { error in
            guard case LogbookError.historyUnavailable(let requested, _) = error else {
                return false
            }
            return requested == token
        }
        // History after the migration is recorded as usual.
        let after = try #require(try HistoryToken.current(of: container.store))
        container.mainContext.insert(SeedModelV2.Employee())
        try container.mainContext.save()
        #expect(try container.history(after: after).count == 1)
    }

    @Test func aDryRunReportsTheStagesAndTheirObjectsWithoutChangingAByte() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try writeSeedStore(fixture, salaries: ["1", "2", "3"])
        let before = try fixture.directory.allFileBytes()
        let report = try ModelContainer.migrationReport(
            for: SeedModelV2.models, migrationPlan: SeedMigrationPlan.self,
            configurations: ModelConfiguration(url: fixture.url))
        #expect(report.storedVersion == Schema.Version(1, 0, 0))
        #expect(report.newestVersion == Schema.Version(2, 0, 0))
        #expect(
            report.stages == [
                MigrationReport.Stage(
                    name: "custom 1.0.0 → 2.0.0", inserted: [:], updated: ["Employee": 3],
                    deleted: [:])
            ])
        #expect(report.refusal == nil)
        #expect(try fixture.directory.allFileBytes() == before)
        // A refusal is reported, not thrown.
        let bad = LogbookFixture()
        defer { bad.remove() }
        try writeSeedStore(bad, salaries: ["x"])
        let refused = try ModelContainer.migrationReport(
            for: SeedModelV2.models, migrationPlan: SeedMigrationPlan.self,
            configurations: ModelConfiguration(url: bad.url))
        guard case .migrationStageFailed(let stage, _) = refused.refusal else {
            Issue.record("expected a refused stage, got \(String(describing: refused.refusal))")
            return
        }
        #expect(stage == "custom 1.0.0 → 2.0.0, willMigrate")
    }

    private func storeBytes(_ fixture: LogbookFixture) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for file in segmentFiles(fixture.url.path) { files[file] = readFile(file) }
        return files
    }

    private func countLoggedBytes(_ fixture: LogbookFixture) throws -> Int {
        segmentFiles(fixture.url.path).map { readFile($0).count }.reduce(0, +)
    }
}

struct HalfConverted: Error, CustomStringConvertible {
    var description: String { "the new objects were half converted" }
}

enum FailingAfterWritesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self, SeedModelV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: SeedModelV1.self, toVersion: SeedModelV2.self,
                willMigrate: { context in
                    for employee in try context.fetch(FetchDescriptor<SeedModelV1.Employee>()) {
                        context.delete(employee)
                    }
                    try context.save()
                },
                didMigrate: { context in
                    context.insert(SeedModelV2.Employee())
                    try context.save()
                    throw HalfConverted()
                })
        ]
    }
}

enum OnlyV1Plan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self] }
    static var stages: [MigrationStage] { [] }
}

enum PlanWithoutStages: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self, SeedModelV2.self] }
    static var stages: [MigrationStage] { [] }
}

enum ThirdModel: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Employee.self] }

    final class Employee: PersistentModel {
        @Attribute var name = ""
        init() {}
    }
}

enum SkippingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SeedModelV1.self, SeedModelV2.self, ThirdModel.self]
    }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: SeedModelV1.self, toVersion: ThirdModel.self)]
    }
}

enum RenamedOnly: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 1, 0)
    static var models: [any PersistentModel.Type] { [Employee.self] }

    final class Employee: PersistentModel {
        @Attribute(originalName: "employee_Name") var name = ""
        @Attribute var employee_Designation = ""
        @Attribute var employee_Salary = ""
        init() {}
    }
}

enum LightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SeedModelV1.self, RenamedOnly.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: SeedModelV1.self, toVersion: RenamedOnly.self)]
    }
}
