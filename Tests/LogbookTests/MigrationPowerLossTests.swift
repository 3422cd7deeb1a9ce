import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Simulated power loss at every system call of a migration (the simulated-disk harness of the
/// crash suites): whatever unsynced data and directory entries survive, the store reopens at
/// exactly the old version with every old value, or exactly the new one with every value
/// migrated, never between.
@Suite(.serialized) struct MigrationPowerLossTests {
    static let count = 40

    static let oldEmployee = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("nickname", .string, optional: true),
            AttributeDescription("level", .int32),
        ])

    /// A rename, optional made required with a default, a widening, a new index, a new field.
    static let newEmployee = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("fullName", .string, originalName: "name"),
            AttributeDescription("nickname", .string, defaultValue: .string("none")),
            AttributeDescription("level", .integer, indexed: true),
            AttributeDescription("note", .string, defaultValue: .string("-")),
        ])

    @Test func aLightweightMigrationLeavesTheOldVersionOrTheNew() throws {
        let old = (0..<Self.count).map { "E\($0)|\($0 % 3 == 0 ? "nil" : "n\($0)")|\($0 % 5)" }
        let new = (0..<Self.count).map { "E\($0)|\($0 % 3 == 0 ? "none" : "n\($0)")|\($0 % 5)|-" }
        try runThroughPowerLoss(
            "lightweight",
            write: { url in
                let container = try ModelContainer(
                    schema: Schema([Self.oldEmployee]), at: url, options: Self.quiet())
                let context = ModelContext(container)
                for i in 0..<Self.count {
                    try context.insert(
                        entity: "Employee",
                        values: [
                            "name": "E\(i)", "nickname": i % 3 == 0 ? nil : "n\(i)", "level": i % 5,
                        ])
                }
                try context.save()
                try container.close()
            },
            migrate: { url, options in
                try ModelContainer(schema: Schema([Self.newEmployee]), at: url, options: options)
                    .close()
            },
            classify: { container in
                let names = container.schema.entity(named: "Employee")!.attributes.map(\.name)
                let rows = try ModelContext(container).fetch(entity: "Employee").map { row in
                    try names.map { "\(try row.value(forKey: $0) ?? "nil")" }.joined(
                        separator: "|")
                }
                if names == ["name", "nickname", "level"] && Set(rows) == Set(old)
                    && rows.count == old.count
                {
                    return "old"
                }
                if names == ["fullName", "nickname", "level", "note"] && Set(rows) == Set(new)
                    && rows.count == new.count
                {
                    return "new"
                }
                return nil
            })
    }

    @Test func aCustomMigrationLeavesTheOldVersionOrTheNew() throws {
        let salaries = Set((0..<Self.count).map { Int64($0 * 10) })
        try runThroughPowerLoss(
            "custom",
            write: { url in
                let container = try ModelContainer(
                    for: SeedModelV1.models,
                    configuration: ModelConfiguration(url: url, options: Self.quiet()))
                let context = ModelContext(container)
                for i in 0..<Self.count {
                    let employee = SeedModelV1.Employee()
                    employee.employee_Name = "Employee \(i)"
                    employee.employee_Designation = "Engineer"
                    employee.employee_Salary = String(i * 10)
                    context.insert(employee)
                }
                try context.save()
                try container.close()
            },
            migrate: { url, options in
                try ModelContainer(
                    for: SeedModelV2.models, migrationPlan: SeedMigrationPlan.self,
                    configurations: ModelConfiguration(url: url, options: options)
                ).close()
            },
            classify: { container in
                let names = container.schema.entity(named: "Employee")!.attributes.map(\.name)
                let rows = try ModelContext(container).fetch(entity: "Employee")
                guard rows.count == Self.count else { return nil }
                if names == ["employee_Name", "employee_Designation", "employee_Salary"] {
                    let found = try rows.map {
                        Int64(try $0.value(forKey: "employee_Salary") as! String)!
                    }
                    return Set(found) == salaries ? "old" : nil
                }
                if names == ["name", "designation", "salary"] {
                    let found = try rows.map { try $0.value(forKey: "salary") as! Int64 }
                    let named = try rows.allSatisfy {
                        (try $0.value(forKey: "name") as? String)?.hasPrefix("Employee ") == true
                    }
                    return Set(found) == salaries && named ? "new" : nil
                }
                return nil
            })
    }

    /// Engine options for the stores here: no automatic compaction.
    static func quiet(_ fileSystem: (any FileSystem)? = nil) -> LogStoreOptions {
        var options = LogStoreOptions()
        if let fileSystem { options.fileSystem = fileSystem }
        options.autoCompactionDeadFraction = nil
        return options
    }

    /// Writes a store with `write`, records every system call `migrate` makes on it, then
    /// opens the disk as a power loss would leave it after each call (several fates of what was
    /// not synced): `classify` must say "old" or "new" of every one, and both must be met.
    private func runThroughPowerLoss(
        _ name: String, write: (URL) throws -> Void,
        migrate: (URL, LogStoreOptions) throws -> Void,
        classify: (ModelContainer) throws -> String?
    ) throws {
        let seed = testSeed("migration power loss \(name)")
        let scratch = TemporaryDirectory("migration-\(name)")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let url = URL(fileURLWithPath: root + "/store")
        try write(url)
        let recorder = RecordingFileSystem(root: root)
        var disk = SimulatedDisk(recorder)
        try migrate(url, Self.quiet(recorder))
        let events = recorder.events

        var rng = SeededGenerator(seed: seed)
        var failures: [String] = []
        var outcomes: [String: Int] = [:]
        var seen: Set<CrashImage> = []
        var (i, point) = (0, 0)
        while true {
            while i < events.count && !events[i].isOperation { i += 1 }
            for variant in CrashVariant.variants(12, using: &rng) {
                let image = disk.image(variant)
                guard seen.insert(image).inserted else { continue }
                let target = scratch.child("crash\(seen.count)")
                try FileManager.default.createDirectory(
                    atPath: target, withIntermediateDirectories: false)
                try image.write(to: target)
                let label = "after \(point) calls, \(variant)"
                do {
                    let container = try ModelContainer(
                        schema: nil, at: URL(fileURLWithPath: target + "/store"),
                        options: Self.quiet())
                    let outcome = try classify(container)
                    try container.close()
                    if let outcome {
                        outcomes[outcome, default: 0] += 1
                    } else {
                        failures.append("\(label): neither the old version nor the new")
                    }
                } catch {
                    failures.append("\(label): open failed: \(error)")
                }
                try? FileManager.default.removeItem(atPath: target)
            }
            guard i < events.count else { break }
            disk.apply(events[i])
            i += 1
            point += 1
        }
        print(
            "migration power loss (\(name)): \(point + 1) crash points, \(seen.count) distinct "
                + "states, \(outcomes), \(failures.count) failures")
        // The crash points were reached: the migration made system calls, and states of both
        // versions were opened.
        #expect(point >= 4)
        #expect(outcomes["old", default: 0] > 0 && outcomes["new", default: 0] > 0)
        for failure in failures.prefix(5) { Issue.record("seed \(seed): \(failure)") }
    }
}
