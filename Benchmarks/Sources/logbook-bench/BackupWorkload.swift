import Foundation
import Logbook

/// `backup` and `backup-incremental` (issue 40): an online backup of a store of N Employees,
/// against SQLite's `VACUUM INTO` of the same rows; then 1% of the Employees changed and saved,
/// and a second backup into the same destination, which copies only what changed.
///
/// Each backup is timed in this process on an open store (`ModelContainer.backup(to:)`, so
/// opening the store is not counted; `VACUUM INTO` likewise on an open database), and checked:
/// the backup verifies and holds the token of the last save.
enum BackupWorkload {
    static var all: [Workload] {
        [
            Workload(
                name: "backup", group: "resources",
                summary: "backup of N Employees vs VACUUM INTO; incremental after 1% changed"
            ) { context in
                let n = context.sizes.employees
                let changed = max(n / 100, 1)
                context.reporter.note(
                    "backup: a store of N=\(n) Employees, open; ModelContainer.backup(to:) into a "
                        + "new directory vs SQLite's VACUUM INTO a new file; then \(changed) "
                        + "Employees (1%) updated in one save and backed up into the same "
                        + "directory (incremental)")
                try ScratchDirectory.with("backup") { directory in
                    _ = try ChildProcess.spawn(["load-objects", "logbook", directory, "\(n)"])
                    _ = try ChildProcess.spawn(["load-objects", "sqlite", directory, "\(n)"])
                    let url = URL(fileURLWithPath: directory + "/employees.logbook")
                    let destination = URL(fileURLWithPath: directory + "/backup.logbook")
                    let container = try ModelContainer(for: [Employee.self], at: url)
                    defer { try? container.close() }
                    var full: ContainerBackup?
                    let fullSeconds = try measure { full = try container.backup(to: destination) }
                    try check(full, of: container, at: destination)
                    let bytes = Int(full?.report.bytesCopied ?? 0)
                    context.reporter.timing(
                        "backup", engine: "logbook", operations: n, bytes: bytes,
                        seconds: fullSeconds, note: "whole")

                    let database = try SQLiteDatabase(
                        path: directory + "/employees.sqlite", durable: true)
                    let vacuumed = directory + "/vacuumed.sqlite"
                    let sqliteSeconds = try measure {
                        try database.execute("VACUUM INTO '\(vacuumed)'")
                    }
                    let sqliteBytes = Int(fileSize(vacuumed))
                    context.reporter.timing(
                        "backup", engine: "sqlite", operations: n, bytes: sqliteBytes,
                        seconds: sqliteSeconds, note: "VACUUM INTO")

                    let model = ModelContext(container)
                    var descriptor = FetchDescriptor<Employee>()
                    descriptor.fetchLimit = changed
                    for employee in try model.fetch(descriptor) { employee.salary += 1 }
                    try model.save()
                    var incremental: ContainerBackup?
                    let incrementalSeconds = try measure {
                        incremental = try container.backup(to: destination)
                    }
                    try check(incremental, of: container, at: destination)
                    guard incremental?.report.incremental == true else {
                        throw BenchError.setup("the second backup was not incremental")
                    }
                    context.reporter.timing(
                        "backup-incremental", engine: "logbook", operations: changed,
                        bytes: Int(incremental?.report.bytesCopied ?? 0),
                        seconds: incrementalSeconds,
                        note: String(
                            format: "%.1f%% of the whole backup's time",
                            incrementalSeconds / max(fullSeconds, 1e-9) * 100))
                }
            }
        ]
    }

    /// Throws unless `backup` holds the container's newest token and verifies clean.
    static func check(_ backup: ContainerBackup?, of container: ModelContainer, at url: URL) throws
    {
        guard let backup, backup.token == (try container.currentHistoryToken) else {
            throw BenchError.setup("the backup does not hold the last save")
        }
        let verified = try ModelContainer.verifyBackup(at: url)
        guard verified.isIntact, verified.token == backup.token else {
            throw BenchError.setup("the backup does not verify")
        }
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?
            .int64Value ?? 0
    }
}
