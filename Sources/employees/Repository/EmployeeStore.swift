import Foundation
import Logbook

/// Opens the app's real store. The one place that knows which ``EmployeeRepository`` the
/// executable uses.
enum EmployeeStore {
    /// The repository for the store at `path`, created (with its directory) if missing.
    ///
    /// - Throws: ``EmployeesError/storeLocked(path:)`` when another process has it open,
    ///   ``EmployeesError/store(_:)`` for any other failure.
    static func open(at path: String) throws(EmployeesError) -> any EmployeeRepository {
        try StoreLocation.prepareParent(of: path)
        return try LogbookEmployeeRepository(path: path)
    }

    /// What opening the store at `path` would migrate, found without changing a byte of it.
    /// - Throws: ``EmployeesError/store(_:)`` if the store cannot be read.
    static func migrationReport(at path: String) throws(EmployeesError) -> MigrationReport {
        do {
            return try ModelContainer.migrationReport(
                for: EmployeesSchemaV3.models, migrationPlan: EmployeesMigrationPlan.self,
                configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        } catch {
            throw LogbookEmployeeRepository.translate(error, path: path)
        }
    }

    /// The store's dump as `logbook dump` prints it, if the `logbook` tool is built next to
    /// this executable.
    static func dump(at path: String) -> (() throws(EmployeesError) -> [String])? {
        guard let tool = LogbookDumpTool.locate() else { return nil }
        return { () throws(EmployeesError) in try LogbookDumpTool.dump(storeAt: path, tool: tool) }
    }
}
