/// Where the app keeps its employees. The screen and the subcommands talk only to this, so they
/// run unchanged on the real store (``LogbookEmployeeRepository``) and on the in-memory one the
/// tests use (``InMemoryEmployeeRepository``).
///
/// Durability: every mutating call is saved before it returns — the seed's "every change saved
/// at once". Not thread-safe: use one repository from one thread.
protocol EmployeeRepository: AnyObject {
    /// Adds an employee and returns it with its new, permanent id.
    func add(_ draft: EmployeeDraft) throws(EmployeesError) -> EmployeeRecord

    /// The employees matching `query.filter`, in `query`'s order.
    /// - Throws: ``EmployeesError/invalidFilter(filter:reason:)`` for a filter that does not parse.
    func list(_ query: EmployeeQuery) throws(EmployeesError) -> [EmployeeRecord]

    /// The employee with this id.
    /// - Throws: ``EmployeesError/unknownEmployee(id:)``.
    func employee(id: String) throws(EmployeesError) -> EmployeeRecord

    /// Applies `changes` to the employee with this id and returns the result.
    /// - Throws: ``EmployeesError/unknownEmployee(id:)``.
    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord

    /// Deletes the employee with this id.
    /// - Throws: ``EmployeesError/unknownEmployee(id:)``.
    func delete(id: String) throws(EmployeesError)
}

extension EmployeeRepository {
    /// All employees in the store's order.
    func all() throws(EmployeesError) -> [EmployeeRecord] { try list(EmployeeQuery()) }
}

extension [EmployeeRecord] {
    /// These records in `key` order (ties keep their order); unchanged when `key` is `nil`.
    func sorted(by key: EmployeeSortKey?, descending: Bool) -> [EmployeeRecord] {
        guard let key else { return descending ? reversed() : self }
        let ordered = enumerated().sorted { lhs, rhs in
            let order = EmployeeRecord.compare(lhs.element, rhs.element, by: key)
            if order == 0 { return lhs.offset < rhs.offset }
            return descending ? order > 0 : order < 0
        }
        return ordered.map(\.element)
    }
}

extension EmployeeRecord {
    /// -1, 0 or 1 as `lhs` sorts before, with or after `rhs` by `key`.
    static func compare(_ lhs: EmployeeRecord, _ rhs: EmployeeRecord, by key: EmployeeSortKey)
        -> Int
    {
        switch key {
        case .name: return lhs.name < rhs.name ? -1 : (lhs.name == rhs.name ? 0 : 1)
        case .designation:
            return lhs.designation < rhs.designation
                ? -1 : (lhs.designation == rhs.designation ? 0 : 1)
        case .salary: return lhs.salary < rhs.salary ? -1 : (lhs.salary == rhs.salary ? 0 : 1)
        }
    }
}
