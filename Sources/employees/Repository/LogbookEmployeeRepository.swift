import Foundation
import Logbook
import Synchronization

/// The real ``EmployeeRepository``: a Logbook store in a directory, one container and a
/// context of its own for the life of the repository.
///
/// Every mutating call ends with `save()`, so it is durable when it returns; a failed save is
/// rolled back, leaving the store and the context as they were. While the repository is alive
/// the process holds the store's writer lock: a second process gets ``EmployeesError/storeLocked(path:)``.
/// A store of an earlier version of the model is migrated when it is opened
/// (``EmployeesMigrationPlan``): the seed's own model, with text salaries, through a custom
/// stage; one from before companies existed by lightweight migration. Every employee is kept. Not thread-safe: one thread at a time (the context is not `Sendable`).
final class LogbookEmployeeRepository: EmployeeRepository {
    let path: String
    let container: ModelContainer
    let context: ModelContext
    /// Employees per company, once asked (see ``staffCounts(of:)``).
    var staffCounts = StaffCounts()
    /// Whether the store filters employees by company (see ``throughCompany(_:filter:_:)``).
    var relationshipPredicates = RelationshipPredicates.unknown
    /// The links to companies shown beside employees.
    let companyLinks = CompanyLinkCache()
    /// Reads employees from their records, once made (see ``recordReader()``).
    var recordReaderIfMade: EmployeeRecordReader?
    /// Employees read by key since the store's mapped pages were last released (see
    /// ``records(_:)``).
    var readsSinceRelease = 0

    /// Opens (creating or migrating if needed) the store at `path`.
    /// - Throws: ``EmployeesError/storeLocked(path:)``, ``EmployeesError/store(_:)``.
    init(path: String) throws(EmployeesError) {
        self.path = path
        do {
            var configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
            configuration.indexBuildProgress = Self.indexBuildProgressLine()
            container = try ModelContainer(
                for: EmployeesSchemaV3.models, migrationPlan: EmployeesMigrationPlan.self,
                configurations: configuration)
        } catch {
            throw Self.translate(error, path: path)
        }
        context = ModelContext(container)
    }

    deinit { try? container.close() }

    /// Shows an open's index build on a ``ProgressLine`` (when standard error is a terminal
    /// and standard output is not), erased when the build ends; `nil` otherwise.
    private static func indexBuildProgressLine() -> IndexBuildProgressHandler? {
        guard let line = ProgressLine.forStandardError() else { return nil }
        // Reports come on the opening thread, one at a time.
        let shared = SharedProgressLine(line)
        return { report in
            shared.line.withLock { line in
                if report.done == report.total {
                    line.clear()
                } else {
                    line.show("opening: indexing \(report), \(Int(report.fraction * 100))%")
                }
            }
        }
    }

    func add(_ draft: EmployeeDraft) throws(EmployeesError) -> EmployeeRecord {
        let company = try draft.company.map { reference throws(EmployeesError) in
            try companyModel(reference)
        }
        let employee = Employee()
        employee.name = draft.name
        employee.designation = draft.designation
        employee.salary = draft.salary
        context.insert(employee)
        employee.company = company
        try save()
        staffCounts.changed(company, by: 1)
        return record(employee)
    }

    func employee(id: String) throws(EmployeesError) -> EmployeeRecord {
        record(try employeeModel(id: id))
    }

    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord
    {
        let employee = try employeeModel(id: id)
        var company: Company?
        if case .assign(let reference) = changes.company { company = try companyModel(reference) }
        let formerCompany = employee.company
        if let name = changes.name { employee.name = name }
        if let designation = changes.designation { employee.designation = designation }
        if let salary = changes.salary { employee.salary = salary }
        if changes.company != nil { employee.company = company }
        try save()
        if changes.company != nil && formerCompany !== company {
            staffCounts.changed(formerCompany, by: -1)
            staffCounts.changed(company, by: 1)
        }
        return record(employee)
    }

    func delete(id: String) throws(EmployeesError) {
        let employee = try employeeModel(id: id)
        let company = employee.company
        context.delete(employee)
        try save()
        staffCounts.changed(company, by: -1)
    }

    private func employeeModel(id: String) throws(EmployeesError) -> Employee {
        guard let identifier = PersistentIdentifier(id),
            identifier.entityName == Employee.entityName,
            let employee = try model(identifier, as: Employee.self)
        else { throw .unknownEmployee(id: id) }
        return employee
    }

    /// The object with `identifier`, or `nil` if there is none.
    func model<Model: PersistentModel>(_ identifier: PersistentIdentifier, as type: Model.Type)
        throws(EmployeesError) -> Model?
    {
        try storeCall { try context.model(for: identifier, as: type) }
    }

    /// Saves, or rolls back and throws the translated error.
    func save() throws(EmployeesError) {
        try storeCall { try saveOrRollBack() }
    }

    /// Saves, or rolls back and throws Logbook's error as it is (for callers that turn some
    /// of them into their own).
    func saveOrRollBack() throws {
        do {
            try context.save()
        } catch {
            context.rollback()
            throw error
        }
    }

    /// `body`'s result, with any error translated to the app's.
    func storeCall<Result>(_ body: () throws -> Result) throws(EmployeesError) -> Result {
        do {
            return try body()
        } catch let error as EmployeesError {
            throw error
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    func record(_ employee: Employee) -> EmployeeRecord {
        record(
            employee, primaryKey: employee.persistentModelID.primaryKey,
            company: employee.company.map(link))
    }
}

/// A ``ProgressLine`` a `@Sendable` handler can hold.
private final class SharedProgressLine: Sendable {
    let line: Mutex<ProgressLine>
    init(_ line: sending ProgressLine) { self.line = Mutex(line) }
}
