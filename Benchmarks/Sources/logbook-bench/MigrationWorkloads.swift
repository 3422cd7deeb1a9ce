import Foundation
import Logbook

/// The Employee of `PlainEmployee`'s store after a lightweight change: `name` renamed
/// (`originalName`), an optional attribute added. Opening a store of `PlainEmployee` with it
/// writes a new schema version and rewrites no record.
final class RenamedEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute(originalName: "name") var fullName = ""
    @Attribute var email = ""
    @Attribute var designation = ""
    @Attribute var salary: Int64 = 0
    @Attribute var nickname: String? = nil

    init() {}
}

/// `PlainEmployee` with `designation` indexed: opening a store of `PlainEmployee` with it builds
/// the new index from the records.
final class DesignationIndexedEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute var name = ""
    @Attribute var email = ""
    @Attribute(.indexed) var designation = ""
    @Attribute var salary: Int64 = 0

    init() {}
}

/// The schema-evolution rows (issue 38), on N Employees: the first open after a lightweight
/// change against an open of the same store without one (target ≤ 2×), the first open
/// after an index is added against SQLite's `CREATE INDEX` on the same rows, and an open
/// through a custom stage that transforms every Employee against SQLite's `UPDATE` of all rows
/// in one transaction (target ≥ 1×).
enum MigrationWorkloads {
    static let rounds = 3

    static var all: [Workload] {
        [
            Workload(
                name: "objects-migration", group: "objects",
                summary:
                    "Employees: open after a lightweight change (rename + new attribute), open adding an index"
            ) { context in
                let n = context.sizes.employees
                context.reporter.note(
                    "objects-migration: \(n) Employees; each open on a fresh copy of the store, "
                        + "best of \(rounds)")
                let rows = EmployeeData.generate(count: n)
                try ScratchDirectory.with("objects-migration") { directory in
                    try run(rows, directory, context)
                }
            }
        ]
    }

    /// Seconds to open the store at `path` with the model `type` and fetch `probe`, and then
    /// to close it (which writes what the open changed: the key directory file, the index
    /// sidecar), measured apart.
    static func openThenClose<Model: PersistentModel>(
        _ path: String, as type: Model.Type, probe: PersistentIdentifier
    ) throws -> (open: Double, close: Double) {
        var container: ModelContainer?
        let open = try measure {
            container = try ModelContainer(for: [type], at: URL(fileURLWithPath: path))
            _ = try ModelContext(container!).model(for: probe, as: type)
        }
        let close = try measure {
            try container?.close()
            container = nil
        }
        return (open, close)
    }

    /// ``openThenClose(_:as:probe:)`` of a fresh copy (at `path`) of the store at `base`: the
    /// open that migrates.
    static func firstOpen<Model: PersistentModel>(
        of base: String, at path: String, as type: Model.Type, probe: PersistentIdentifier
    ) throws -> (open: Double, close: Double) {
        try FileManager.default.copyItem(atPath: base, toPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try openThenClose(path, as: type, probe: probe)
    }

    static func run(_ rows: [EmployeeRow], _ directory: String, _ context: BenchContext) throws {
        let reporter = context.reporter
        let n = rows.count
        let base = directory + "/base.logbook"
        do {
            let container = try ModelContainer(
                for: [PlainEmployee.self], at: URL(fileURLWithPath: base))
            let load = ModelContext(container)
            for row in rows { load.insert(PlainEmployee(row)) }
            try load.save()
            try container.close()
        }
        let probe = PersistentIdentifier(entityName: "Employee", primaryKey: UInt64(max(n / 2, 1)))
        var best = [
            "plain": Double.infinity, "renamed": .infinity, "renamed-close": .infinity,
            "indexed": .infinity,
        ]
        for round in 0..<rounds {
            // A normal open: the store as it is, its own model.
            best["plain"] = min(
                best["plain"]!, try openThenClose(base, as: PlainEmployee.self, probe: probe).open)
            // The same open of a fresh copy, as the lightweight row opens one.
            best["plain-copy"] = min(
                best["plain-copy", default: .infinity],
                try firstOpen(
                    of: base, at: directory + "/plain\(round).logbook", as: PlainEmployee.self,
                    probe: probe
                ).open)
            // The open a user waits for; the close after it writes the key directory file
            // again (the open committed the new schema), reported apart.
            let renamed = try firstOpen(
                of: base, at: directory + "/renamed\(round).logbook", as: RenamedEmployee.self,
                probe: probe)
            best["renamed"] = min(best["renamed"]!, renamed.open)
            best["renamed-close"] = min(best["renamed-close"]!, renamed.close)
            // Building the index includes writing it at close, as CREATE INDEX commits it.
            let indexed = try firstOpen(
                of: base, at: directory + "/indexed\(round).logbook",
                as: DesignationIndexedEmployee.self, probe: probe)
            best["indexed"] = min(best["indexed"]!, indexed.open + indexed.close)
        }
        var sqliteIndex = Double.infinity
        for round in 0..<rounds {
            let path = directory + "/sqlite\(round)"
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false)
            let sqlite = try SQLiteEmployees(directory: path)
            try sqlite.insertAll(rows)
            sqliteIndex = min(sqliteIndex, try measure { _ = try sqlite.createDesignationIndex() })
            try sqlite.close()
            try FileManager.default.removeItem(atPath: path)
        }
        let custom = try customStage(rows, base: base, directory: directory, probe: probe)
        let batch = try customStage(
            rows, base: base, directory: directory, probe: probe, plan: PayrollBatchPlan.self)
        let floor = try customStageFloor(rows, base: base, directory: directory, probe: probe)
        let peaks = try indexOpenPeaks(
            base: base, directory: directory, probe: probe.primaryKey)
        reporter.timing(
            "objects-open-plain", engine: "logbook", operations: 1, bytes: 0,
            seconds: best["plain"]!, note: "open \(n) Employees + fetch one, no schema change")
        reporter.timing(
            "objects-open-plain-fresh-copy", engine: "logbook", operations: 1, bytes: 0,
            seconds: best["plain-copy"]!,
            note: "the plain open of a fresh copy of the store, as the next row opens one")
        reporter.timing(
            "objects-open-after-lightweight", engine: "logbook", operations: 1, bytes: 0,
            seconds: best["renamed"]!,
            note: "first open after a rename + a new attribute (no record rewritten) + fetch one")
        reporter.timing(
            "objects-close-after-lightweight", engine: "logbook", operations: 1, bytes: 0,
            seconds: best["renamed-close"]!,
            note: "the close after that open: writes the key directory file again")
        reporter.figure(
            "objects-open-after-lightweight-vs-plain", engine: "logbook",
            value: best["renamed"]! / max(best["plain"]!, 1e-9), unit: "× a normal open")
        reporter.timing(
            "objects-open-adding-index", engine: "logbook", operations: n, bytes: 0,
            seconds: best["indexed"]!,
            note: "first open after designation becomes indexed: builds the index + fetch one")
        reporter.timing(
            "objects-open-adding-index", engine: "sqlite", operations: n, bytes: 0,
            seconds: sqliteIndex, note: "CREATE INDEX on designation + ANALYZE")
        reporter.figure(
            "objects-open-adding-index-peak-rss", engine: "logbook",
            value: Double(peaks.building) / 1_048_576, unit: "MB, a process that opens and builds")
        reporter.figure(
            "objects-open-indexed-peak-rss", engine: "logbook",
            value: Double(peaks.reading) / 1_048_576,
            unit: "MB, a process that opens again (index from the sidecar)")
        reporter.timing(
            "objects-migration-custom-stage", engine: "logbook", operations: n, bytes: 0,
            seconds: custom.logbook,
            note: "open through a custom stage that sets a new grade on every Employee + close")
        reporter.timing(
            "objects-migration-custom-stage", engine: "sqlite", operations: n, bytes: 0,
            seconds: custom.sqlite,
            note:
                "ALTER TABLE ADD COLUMN grade + UPDATE … SET grade = salary / 10000, one transaction"
        )
        reporter.timing(
            "objects-migration-custom-stage-batch", engine: "logbook", operations: n, bytes: 0,
            seconds: batch.logbook,
            note: "the same stage as one batch update(model:set:), no objects + close")
        reporter.timing(
            "objects-migration-custom-stage-batch", engine: "sqlite", operations: n, bytes: 0,
            seconds: batch.sqlite, note: "as objects-migration-custom-stage")
        reporter.timing(
            "objects-migration-custom-stage-floor", engine: "logbook", operations: n, bytes: 0,
            seconds: floor,
            note:
                "that batch update alone on the store opened at version 2 + close: no copy of the store for the stage, no commit applying the copy"
        )
    }
}
