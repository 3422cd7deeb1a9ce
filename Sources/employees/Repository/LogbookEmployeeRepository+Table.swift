import Logbook

/// `list`'s table of every employee in two passes over the store, keeping none of the rows
/// (see ``MeasuredEmployeeTable``): the first pass reads the records in log order and measures
/// the columns, the second reads them by primary key (``PrimaryKeyOrder``) and writes them.
///
/// Both passes read the same records: the process holds the store's lock from the open on (no
/// other process can write it), and `list` writes nothing.
///
/// - Complexity: three passes over the Employee records (one, then ``PrimaryKeyOrder``'s two);
///   memory 8 bytes a late record, a line buffer, a cell per company.
extension LogbookEmployeeRepository {
    func writeTable(
        _ query: EmployeeQuery, to output: BufferedOutput, progress: ProgressLine?
    ) throws(EmployeesError) -> Bool {
        guard query.isEveryEmployee else { return false }
        let reader = try recordReader()
        let table = MeasuredEmployeeTable(output: output)
        let total = try storeCall { try container.store.count(in: Employee.entityName) }
        let links = companyLinks
        let company: MeasuredEmployeeTable.CompanyLookup = { key throws(EmployeesError) in
            try self.storeCall { try links.link(primaryKey: key, self) }
        }
        try storeCall {
            try container.store.forEach(in: Employee.entityName) { key, value in
                // A damaged key is passed over, as the other readers do.
                guard PersistentIdentifier(entityName: Employee.entityName, storeKey: key) != nil
                else { return }
                try table.measure(try reader.textFields(key: key, value: value), company: company)
                progress?.update(progress?.describe("list", done: table.count, total: total) ?? "")
            }
        }
        progress?.show("list: writing \(table.count) rows")
        try table.writeHeader()
        guard table.count > 0 else { return true }
        try storeCall {
            try PrimaryKeyOrder(keptLate: Self.keptLate).forEach(
                in: Employee.entityName, of: container.store
            ) { key, value in
                guard PersistentIdentifier(entityName: Employee.entityName, storeKey: key) != nil
                else { return true }
                try table.write(try reader.textFields(key: key, value: value), company: company)
                return true
            }
        }
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
