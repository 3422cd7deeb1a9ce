import Foundation
import Logbook

/// The real ``EmployeeRepository``: a Logbook store in a directory, one container and its
/// main context for the life of the repository.
///
/// Every mutating call ends with `save()`, so it is durable when it returns; a failed save is
/// rolled back, leaving the store and the context as they were. While the repository is alive
/// the process holds the store's writer lock: a second process gets ``EmployeesError/storeLocked(path:)``.
/// Not thread-safe (the main context belongs to the opening thread).
final class LogbookEmployeeRepository: EmployeeRepository {
    private let path: String
    private let container: ModelContainer
    private let context: ModelContext

    /// Opens (creating if needed) the store at `path`.
    /// - Throws: ``EmployeesError/storeLocked(path:)``, ``EmployeesError/store(_:)``.
    init(path: String) throws(EmployeesError) {
        self.path = path
        do {
            container = try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path))
        } catch {
            throw Self.translate(error, path: path, filter: nil)
        }
        context = container.mainContext
    }

    deinit { try? container.close() }

    func add(_ draft: EmployeeDraft) throws(EmployeesError) -> EmployeeRecord {
        let employee = Employee()
        employee.name = draft.name
        employee.designation = draft.designation
        employee.salary = draft.salary
        context.insert(employee)
        try save()
        return record(employee)
    }

    func list(_ query: EmployeeQuery) throws(EmployeesError) -> [EmployeeRecord] {
        let objects: [any ModelObject]
        do {
            objects = try context.fetch(
                entity: Employee.entityName, where: query.filter,
                sortBy: query.sortKey?.rawValue, ascending: !query.descending)
        } catch {
            throw Self.translate(error, path: path, filter: query.filter)
        }
        // Without a sort key Logbook returns the order of creation; `--desc` reverses it.
        let records = objects.compactMap { ($0 as? Employee).map(record) }
        return query.sortKey == nil && query.descending ? records.reversed() : records
    }

    func employee(id: String) throws(EmployeesError) -> EmployeeRecord {
        record(try model(id: id))
    }

    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord
    {
        let employee = try model(id: id)
        if let name = changes.name { employee.name = name }
        if let designation = changes.designation { employee.designation = designation }
        if let salary = changes.salary { employee.salary = salary }
        try save()
        return record(employee)
    }

    func delete(id: String) throws(EmployeesError) {
        context.delete(try model(id: id))
        try save()
    }

    private func model(id: String) throws(EmployeesError) -> Employee {
        guard let identifier = PersistentIdentifier(id),
            identifier.entityName == Employee.entityName
        else { throw .unknownEmployee(id: id) }
        do {
            guard let employee = try context.model(for: identifier, as: Employee.self) else {
                throw EmployeesError.unknownEmployee(id: id)
            }
            return employee
        } catch let error as EmployeesError {
            throw error
        } catch {
            throw Self.translate(error, path: path, filter: nil)
        }
    }

    private func save() throws(EmployeesError) {
        do {
            try context.save()
        } catch {
            context.rollback()
            throw Self.translate(error, path: path, filter: nil)
        }
    }

    private func record(_ employee: Employee) -> EmployeeRecord {
        EmployeeRecord(
            id: employee.persistentModelID?.description ?? "", name: employee.name,
            designation: employee.designation, salary: employee.salary)
    }

    /// The app's error for a Logbook error: a lock becomes ``EmployeesError/storeLocked(path:)``,
    /// a predicate problem ``EmployeesError/invalidFilter(filter:reason:)``, the rest
    /// ``EmployeesError/store(_:)`` with Logbook's own message.
    static func translate(_ error: any Error, path: String, filter: String?) -> EmployeesError {
        guard let error = error as? LogbookError else {
            return .store("the store at \(path) failed: \(error)")
        }
        switch error {
        case .store(.locked):
            return .storeLocked(path: path)
        case .predicateSyntax, .unsupportedPredicate, .unknownAttribute:
            if let filter { return .invalidFilter(filter: filter, reason: error.description) }
            return .store(error.description)
        default:
            return .store(error.description)
        }
    }
}
