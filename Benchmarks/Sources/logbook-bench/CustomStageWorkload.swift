import Foundation
import Logbook

/// `PlainEmployee`'s model as the first version of a plan.
enum PayrollV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [PlainEmployee.self] }
}

/// The second version: a `grade` each Employee gets from its salary in the custom stage.
enum PayrollV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [GradedEmployee.self] }

    final class GradedEmployee: PersistentModel {
        static var entityName: String { "Employee" }
        @Attribute var name = ""
        @Attribute var email = ""
        @Attribute var designation = ""
        @Attribute var salary: Int64 = 0
        @Attribute var grade: Int64 = 0

        init() {}
    }
}

/// V1 → V2 with a custom stage whose `didMigrate` sets every Employee's grade: what SQLite does
/// with `ALTER TABLE … ADD COLUMN` and one `UPDATE` (``SQLiteEmployees/addGrades()``).
enum PayrollPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PayrollV1.self, PayrollV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: PayrollV1.self, toVersion: PayrollV2.self, willMigrate: nil,
                didMigrate: { context in
                    for employee in try context.fetch(
                        FetchDescriptor<PayrollV2.GradedEmployee>())
                    {
                        employee.grade = employee.salary / 10_000
                    }
                    try context.save()
                })
        ]
    }
}

/// ``PayrollPlan`` with a stage that sets the grades with one batch update, as SQLite's `UPDATE`
/// does: no object is built (``ModelContext/update(model:where:set:)``).
enum PayrollBatchPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PayrollV1.self, PayrollV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: PayrollV1.self, toVersion: PayrollV2.self, willMigrate: nil,
                didMigrate: { context in
                    try context.update(model: PayrollV2.GradedEmployee.self) {
                        $0.grade = $0.salary / 10_000
                    }
                })
        ]
    }
}

extension MigrationWorkloads {
    /// The custom-stage rows: seconds (best of `rounds`) for Logbook to open a fresh copy of the
    /// store at `base` through `plan` (the stage transforms every Employee), and for
    /// SQLite to make the same change to the same rows. Checks one migrated grade.
    static func customStage(
        _ rows: [EmployeeRow], base: String, directory: String, probe: PersistentIdentifier,
        plan: any SchemaMigrationPlan.Type = PayrollPlan.self
    ) throws -> (logbook: Double, sqlite: Double) {
        var logbook = Double.infinity
        var sqlite = Double.infinity
        let expected = rows[Int(probe.primaryKey) - 1].salary / 10_000
        for round in 0..<rounds {
            let path = directory + "/custom\(round).logbook"
            try FileManager.default.copyItem(atPath: base, toPath: path)
            var grade: Int64?
            logbook = min(
                logbook,
                try measure {
                    let container = try ModelContainer(
                        for: PayrollV2.models, migrationPlan: plan,
                        configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
                    grade = try ModelContext(container).model(
                        for: probe, as: PayrollV2.GradedEmployee.self)?.grade
                    try container.close()
                })
            try FileManager.default.removeItem(atPath: path)
            guard grade == expected else {
                throw BenchError.setup("the custom stage left grade \(String(describing: grade))")
            }
            let sqlitePath = directory + "/sqlite-custom\(round)"
            try FileManager.default.createDirectory(
                atPath: sqlitePath, withIntermediateDirectories: false)
            let store = try SQLiteEmployees(directory: sqlitePath)
            try store.insertAll(rows)
            sqlite = min(sqlite, try measure { try store.addGrades() })
            try store.close()
            try FileManager.default.removeItem(atPath: sqlitePath)
        }
        return (logbook, sqlite)
    }
}

extension MigrationWorkloads {
    /// The floor of the custom-stage rows: seconds (best of `rounds`) for the batch stage's own
    /// update of every Employee, with its save and the close after it, on a fresh copy of the
    /// store at `base` opened at version 2 already (an untimed lightweight open adds `grade`).
    /// That is the change without what makes it a migration: the copy of the store the stages
    /// run on, and the one commit that applies the copy. Checks one migrated grade.
    static func customStageFloor(
        _ rows: [EmployeeRow], base: String, directory: String, probe: PersistentIdentifier
    ) throws -> Double {
        var best = Double.infinity
        let expected = rows[Int(probe.primaryKey) - 1].salary / 10_000
        for round in 0..<rounds {
            let path = directory + "/floor\(round).logbook"
            try FileManager.default.copyItem(atPath: base, toPath: path)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let url = URL(fileURLWithPath: path)
            let container = try ModelContainer(for: PayrollV2.models, at: url)
            let context = ModelContext(container)
            best = min(
                best,
                try measure {
                    try context.update(model: PayrollV2.GradedEmployee.self) {
                        $0.grade = $0.salary / 10_000
                    }
                    try container.close()
                })
            let reopened = try ModelContainer(for: PayrollV2.models, at: url)
            let grade = try ModelContext(reopened).model(
                for: probe, as: PayrollV2.GradedEmployee.self)?.grade
            try reopened.close()
            guard grade == expected else {
                throw BenchError.setup("the floor's update left grade \(String(describing: grade))")
            }
        }
        return best
    }

    /// `__child open-index <store> <probe>`: opens the store with `DesignationIndexedEmployee`
    /// (building the index if the store has none), fetches Employee `probe`, closes, and reports
    /// the peak RSS and the anonymous RSS at the end, in bytes. `nil` for another task.
    static func runChild(_ arguments: [String]) -> Int32? {
        if arguments.first == "make-plain-store" { return makePlainStore(arguments) }
        guard arguments.first == "open-index" else { return nil }
        do {
            guard arguments.count == 3, let probe = UInt64(arguments[2]) else {
                throw BenchError.usage("__child open-index <store> <probe>")
            }
            let container = try ModelContainer(
                for: [DesignationIndexedEmployee.self], at: URL(fileURLWithPath: arguments[1]))
            guard
                try ModelContext(container).model(
                    for: PersistentIdentifier(entityName: "Employee", primaryKey: probe),
                    as: DesignationIndexedEmployee.self) != nil
            else { throw BenchError.setup("the indexed open lost an Employee") }
            try container.close()
            let status = ChildProcess.memoryStatus()
            print("RESULT peak=\(status["VmHWM"] ?? 0) rssAnon=\(status["RssAnon"] ?? 0)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("child failed: \(error)\n".utf8))
            return 1
        }
    }

    /// `__child make-plain-store <store> <employees>`: writes the store the migration rows start
    /// from (`PlainEmployee`, one save), so that `open-index` can be run by hand on copies of it
    /// (to profile one open, or to compare two builds on the same store).
    static func makePlainStore(_ arguments: [String]) -> Int32 {
        do {
            guard arguments.count == 3, let n = Int(arguments[2]), n > 0 else {
                throw BenchError.usage("__child make-plain-store <store> <employees>")
            }
            let container = try ModelContainer(
                for: [PlainEmployee.self], at: URL(fileURLWithPath: arguments[1]))
            let load = ModelContext(container)
            for row in EmployeeData.generate(count: n) { load.insert(PlainEmployee(row)) }
            try load.save()
            try container.close()
            print("RESULT employees=\(n)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("child failed: \(error)\n".utf8))
            return 1
        }
    }

    /// The peak RSS of a process that opens a copy of `base` adding the designation index, and
    /// of one that opens it again (reading the index from the sidecar the first wrote).
    static func indexOpenPeaks(base: String, directory: String, probe: UInt64) throws -> (
        building: Int64, reading: Int64
    ) {
        let path = directory + "/peak.logbook"
        try FileManager.default.copyItem(atPath: base, toPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let building = try ChildProcess.spawn(["open-index", path, "\(probe)"])["peak"] ?? 0
        let reading = try ChildProcess.spawn(["open-index", path, "\(probe)"])["peak"] ?? 0
        return (building, reading)
    }
}
