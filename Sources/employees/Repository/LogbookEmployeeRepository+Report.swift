import Logbook

/// `employees report` and `list --search` from the store's aggregates and text index: no
/// employee is built as an object.
extension LogbookEmployeeRepository {
    func report() throws(EmployeesError) -> EmployeeReport {
        try storeCall {
            func lines(_ groupBy: [PartialKeyPath<Employee>]) throws -> [EmployeeReport.Line] {
                try context.aggregate(
                    AggregateDescriptor<Employee>(
                        groupBy: groupBy, computing: [.sum(\.salary), .average(\.salary)])
                ).map { row in
                    var group: String?
                    if case .string(let name) = row.group.first { group = name }
                    return EmployeeReport.Line(
                        group: group, headcount: row.count,
                        totalSalary: row.sum(\Employee.salary) ?? 0,
                        averageSalary: row.average(\Employee.salary))
                }
            }
            do {
                return EmployeeReport(
                    all: try lines([])[0], byCompany: try lines([\Employee.company?.name]),
                    byDesignation: try lines([\Employee.designation]))
            } catch LogbookError.aggregateOverflow {
                throw EmployeesError.store(EmployeeReport.overflow)
            }
        }
    }

    /// The primary keys of the employees whose names hold `words`, best first, among those
    /// `filter` matches.
    func searchKeys(_ words: String, filter: StringPredicate?) throws -> [UInt64] {
        try context.searchMatches(
            EntitySearchDescriptor(entityName: Employee.entityName, text: words, predicate: filter)
        ).map(\.id.primaryKey)
    }
}
