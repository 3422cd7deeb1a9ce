import Logbook

/// `list`'s table of every employee in two passes over the store, keeping none of the rows
/// (see ``MeasuredEmployeeTable``): ``PrimaryKeyOrder``'s walk by primary key, whose first
/// pass reads every record in log order anyway, measures the columns in that pass and writes
/// the rows as it gives them in key order.
///
/// Both passes read the same records: the process holds the store's lock from the open on (no
/// other process can write it), and `list` writes nothing.
///
/// - Complexity: ``PrimaryKeyOrder``'s two passes over the Employee records; memory 8 bytes a
///   late record, a line buffer, a cell per company.
extension LogbookEmployeeRepository {
    func writeTable(
        _ query: EmployeeQuery, to output: BufferedOutput, progress: ProgressLine?
    ) throws(EmployeesError) -> Bool {
        guard query.isEveryEmployee else { return false }
        let reader = try recordReader()
        var table = MeasuredEmployeeTable(output: output)
        defer { table.deallocate() }
        let total = try storeCall { try container.store.count(in: Employee.entityName) }
        let links = companyLinks
        let company: MeasuredEmployeeTable.CompanyLookup = { key throws(EmployeesError) in
            try self.storeCall { try links.link(primaryKey: key, self) }
        }
        var headed = false
        try storeCall {
            try PrimaryKeyOrder(keptLate: Self.keptLate).forEach(
                in: Employee.entityName, of: container.store,
                first: { key, value in
                    // A damaged key is passed over, as the other readers do.
                    guard
                        PersistentIdentifier(entityName: Employee.entityName, storeKey: key) != nil
                    else { return }
                    try reader.withTextFields(key: key, value: value) {
                        try table.measure($0, company: company)
                    }
                    progress?.update(
                        progress?.describe("list", done: table.count, total: total) ?? "")
                }
            ) { key, value in
                guard PersistentIdentifier(entityName: Employee.entityName, storeKey: key) != nil
                else { return true }
                if !headed {
                    progress?.show("list: writing \(table.count) rows")
                    try table.writeHeader()
                    headed = true
                }
                try reader.withTextFields(key: key, value: value) {
                    try table.write($0, company: company)
                }
                return true
            }
        }
        if !headed { try table.writeHeader() }
        try table.finish()
        return true
    }
}

extension EmployeeQuery {
    /// Whether the query lists every employee by primary key: no filter, search, company or
    /// sort.
    var isEveryEmployee: Bool {
        filter == nil && company == nil && sortKey == nil && !descending && search == nil
    }
}
