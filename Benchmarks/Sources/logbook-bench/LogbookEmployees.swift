import Foundation
import Logbook

/// The seed app's Employee, as an app declares it. `designation` is not `.indexed`: the
/// indexed variant is ``IndexedEmployee``.
final class Employee: PersistentModel {
    @Attribute var name = ""
    @Attribute var designation = ""
    @Attribute var salary: Int64 = 0

    init() {}

    init(_ row: EmployeeRow) {
        self.name = row.name
        self.designation = row.designation
        self.salary = row.salary
    }

    var fingerprint: Int64 {
        EmployeeRow(id: 0, name: name, designation: designation, salary: salary).fingerprint
    }
}

/// The same entity with `designation` indexed: reopening a store of ``Employee``s with it
/// migrates the schema and builds the index, as SQLite's `CREATE INDEX` does.
final class IndexedEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute var name = ""
    @Attribute(.indexed) var designation = ""
    @Attribute var salary: Int64 = 0

    init() {}
}

/// A `ModelContainer` over `<directory>/employees.logbook`; every fetch run starts in a
/// fresh context, every write method is one `save()` (durable: the store's default `.sync`).
final class LogbookEmployees: EmployeeStore {
    static let label = "logbook"
    static let updateSummary = "fetch by id, set salary, one save (fetches timed)"
    static let batchUpdateSummary = "update(model:where:set:), no index"
    static let batchDeleteSummary = "delete(model:where:), no index"
    static let deleteSummary = "fetch by id, delete, one save (fetches timed)"

    private var container: ModelContainer
    private var context: ModelContext
    private let url: URL
    /// Whether the container was reopened with ``IndexedEmployee``.
    private var indexed = false

    init(directory: String) throws {
        url = URL(fileURLWithPath: directory + "/employees.logbook")
        container = try ModelContainer(for: [Employee.self], at: url)
        context = ModelContext(container)
    }

    private func identifier(_ id: Int64) -> PersistentIdentifier {
        PersistentIdentifier(entityName: Employee.entityName, primaryKey: UInt64(id))
    }

    func insertAll(_ rows: [EmployeeRow]) throws {
        context = ModelContext(container)
        var first: PersistentIdentifier?
        for row in rows {
            let employee = Employee(row)
            context.insert(employee)
            if first == nil { first = employee.persistentModelID }
        }
        try context.save()
        // Identifiers are primary keys handed out from 1 in insertion order, so Employee
        // `id` is primary key `id`, as SQLite's rowid is.
        guard first?.primaryKey ?? 1 == 1 else {
            throw BenchError.setup("Logbook's first identifier is \(String(describing: first))")
        }
    }

    func releaseObjects() { context = ModelContext(container) }
    func beginFetches() { context = ModelContext(container) }
    func endFetches() { context = ModelContext(container) }

    func fetchFingerprint(id: Int64) throws -> Int64? {
        try context.model(for: identifier(id), as: Employee.self)?.fingerprint
    }

    func fetchSummary(designation: String) throws -> FetchSummary {
        let fresh = ModelContext(container)
        if indexed {
            var summary = FetchSummary()
            for employee in try fresh.fetch(
                FetchDescriptor<IndexedEmployee>(
                    predicate: #Predicate { $0.designation == designation },
                    sortBy: [SortDescriptor(\.salary)]))
            {
                summary.add(
                    id: Int64(employee.persistentModelID.primaryKey), salary: employee.salary)
            }
            return summary
        }
        let employees = try fresh.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == designation },
                sortBy: [SortDescriptor(\.salary)]))
        var summary = FetchSummary()
        for employee in employees {
            summary.add(
                id: Int64(employee.persistentModelID.primaryKey), salary: employee.salary)
        }
        return summary
    }

    func updateSalaries(ids: [Int64], salary: (Int64) -> Int64) throws {
        context = ModelContext(container)
        for id in ids {
            guard let employee = try context.model(for: identifier(id), as: Employee.self)
            else {
                throw BenchError.setup("Logbook lost Employee \(id)")
            }
            employee.salary = salary(id)
        }
        try context.save()
    }

    func delete(ids: [Int64]) throws {
        context = ModelContext(container)
        for id in ids {
            guard let employee = try context.model(for: identifier(id), as: Employee.self)
            else {
                throw BenchError.setup("Logbook lost Employee \(id)")
            }
            context.delete(employee)
        }
        try context.save()
    }

    func batchDelete(designation: String) throws -> Int {
        try ModelContext(container).delete(
            model: Employee.self, where: #Predicate { $0.designation == designation })
    }

    func batchRaise(designation: String, by raise: Int64) throws -> Int {
        try ModelContext(container).update(
            model: Employee.self, where: #Predicate { $0.designation == designation }
        ) { $0.salary += raise }
    }

    func createDesignationIndex() throws -> Bool {
        context = ModelContext(container)
        try container.close()
        container = try ModelContainer(for: [IndexedEmployee.self], at: url)
        context = ModelContext(container)
        indexed = true
        return true
    }
    func compact() throws -> String? {
        try container.store.compact()
        return "LogStore.compact() under the container"
    }

    func all() throws -> [EmployeeRow] {
        let fresh = ModelContext(container)
        if indexed {
            return try fresh.fetch(FetchDescriptor<IndexedEmployee>()).map {
                EmployeeRow(
                    id: Int64($0.persistentModelID.primaryKey), name: $0.name,
                    designation: $0.designation, salary: $0.salary)
            }
        }
        return try fresh.fetch(FetchDescriptor<Employee>()).map {
            EmployeeRow(
                id: Int64($0.persistentModelID.primaryKey), name: $0.name,
                designation: $0.designation, salary: $0.salary)
        }
    }

    func close() throws {
        context = ModelContext(container)
        try container.close()
    }
}
