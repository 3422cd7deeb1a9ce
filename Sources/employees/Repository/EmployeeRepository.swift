/// Where the app keeps its employees and companies. The screen and the subcommands talk only
/// to this; the executable uses ``LogbookEmployeeRepository``.
///
/// Companies are named by id or by name wherever a `String` reference is taken (see
/// ``CompanyReference``). Durability: every mutating call is saved before it returns — the
/// seed's "every change saved at once" — and a call that throws changes nothing. Not
/// thread-safe: use one repository from one thread.
protocol EmployeeRepository: AnyObject {
    /// Adds an employee and returns it with its new, permanent id.
    /// - Throws: ``EmployeesError/unknownCompany(_:)``, ``EmployeesError/ambiguousCompany(_:matches:)``.
    func add(_ draft: EmployeeDraft) throws(EmployeesError) -> EmployeeRecord

    /// Calls `body` with each employee matching `query`, in its order, reading the store a
    /// batch at a time: the employees are never all in memory. `counted` is called once before
    /// the first, with how many are to come (at most).
    /// - Throws: ``EmployeesError/invalidFilter(filter:reason:)`` for a filter that does not
    ///   parse; the company errors for `query.company`; what `body` throws (which stops it).
    func forEachEmployee(
        _ query: EmployeeQuery, counted: (Int) -> Void,
        _ body: (EmployeeRecord) throws(EmployeesError) -> Void
    ) throws(EmployeesError)

    /// Writes `list`'s table of the employees matching `query` to `output` without keeping
    /// its rows, showing the rows read on `progress`; `false`, having
    /// written nothing, where it cannot (the caller then lays the table out with
    /// ``EmployeeTable``).
    /// - Throws: as ``forEachEmployee(_:counted:_:)``, ``EmployeesError/output(_:)``.
    func writeTable(
        _ query: EmployeeQuery, to output: BufferedOutput, progress: ProgressLine?
    ) throws(EmployeesError) -> Bool

    /// The employees matching `filter` (all for `nil`) in the store's order, as a window for a
    /// list screen: their number at once, their rows when a range of them is shown.
    /// - Throws: ``EmployeesError/invalidFilter(filter:reason:)``.
    func employeeWindow(filter: String?) throws(EmployeesError) -> any RowSource<EmployeeRecord>

    /// The employee with this id.
    /// - Throws: ``EmployeesError/unknownEmployee(id:)``.
    func employee(id: String) throws(EmployeesError) -> EmployeeRecord

    /// Applies `changes` to the employee with this id and returns the result.
    /// - Throws: ``EmployeesError/unknownEmployee(id:)``, the company errors.
    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord

    /// Deletes the employee with this id.
    /// - Throws: ``EmployeesError/unknownEmployee(id:)``.
    func delete(id: String) throws(EmployeesError)

    /// Adds a company and returns it with its new id.
    /// - Throws: ``EmployeesError/invalidCompanyName(_:reason:)``,
    ///   ``EmployeesError/duplicateCompany(name:existingID:)``.
    func addCompany(_ draft: CompanyDraft) throws(EmployeesError) -> CompanyRecord

    /// Every company, by name.
    func companies() throws(EmployeesError) -> [CompanyRecord]

    /// The company `reference` names.
    /// - Throws: ``EmployeesError/unknownCompany(_:)``, ``EmployeesError/ambiguousCompany(_:matches:)``.
    func company(_ reference: String) throws(EmployeesError) -> CompanyRecord

    /// Renames the company `reference` names (or changes its city) and returns the result.
    /// - Throws: the lookup errors, ``EmployeesError/invalidCompanyName(_:reason:)``,
    ///   ``EmployeesError/duplicateCompany(name:existingID:)``.
    func updateCompany(_ reference: String, with changes: CompanyChanges) throws(EmployeesError)
        -> CompanyRecord

    /// Deletes the company `reference` names, doing `handling` with its employees.
    /// - Throws: the lookup errors (also for the reassignment target),
    ///   ``EmployeesError/companyHasEmployees(_:count:)`` for ``CompanyDeletion/refuseIfStaffed``
    ///   while it has employees, ``EmployeesError/reassignToSameCompany(_:)``.
    func deleteCompany(_ reference: String, handling: CompanyDeletion) throws(EmployeesError)
        -> CompanyDeletionResult

    /// Headcount, total and average salary of all employees, per company and per designation.
    /// - Throws: ``EmployeesError/store(_:)``.
    func report() throws(EmployeesError) -> EmployeeReport
}

extension EmployeeRepository {
    /// The employees matching `query`, in its order, in one array (for small stores and tests;
    /// ``forEachEmployee(_:_:)`` streams them).
    func list(_ query: EmployeeQuery) throws(EmployeesError) -> [EmployeeRecord] {
        var records: [EmployeeRecord] = []
        try forEachEmployee(query, counted: { records.reserveCapacity($0) }) {
            records.append($0)
        }
        return records
    }

    func writeTable(
        _ query: EmployeeQuery, to output: BufferedOutput, progress: ProgressLine?
    ) throws(EmployeesError) -> Bool { false }

    /// All employees in the store's order.
    func all() throws(EmployeesError) -> [EmployeeRecord] { try list(EmployeeQuery()) }

    /// The report computed from every employee's record.
    func report() throws(EmployeesError) -> EmployeeReport { try EmployeeReport(all()) }
}
