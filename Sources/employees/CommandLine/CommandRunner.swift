/// Runs one non-interactive subcommand against a repository and writes its result to
/// `output`. Knows nothing of processes or terminals.
///
/// `list` streams: employees are read from the store a batch at a time and written as they
/// come (the table keeps its rows compactly until it knows its column widths), so its memory
/// does not grow with the store.
struct CommandRunner {
    var repository: any EmployeeRepository
    var output: BufferedOutput
    /// Shows how far a long `list` has got, when there is somewhere to show it.
    var progress: ProgressLine?

    init(
        repository: any EmployeeRepository, output: BufferedOutput, progress: ProgressLine? = nil
    ) {
        self.repository = repository
        self.output = output
        self.progress = progress
    }

    /// - Throws: the repository's ``EmployeesError``s (unknown id or company, bad filter, the
    ///   deny rule, store failures), ``EmployeesError/output(_:)``.
    func run(_ command: Invocation.Command) throws(EmployeesError) {
        switch command {
        case .interactive, .help, .demo, .migrate:
            try print(HelpText.text)
        case .add(let draft):
            try print(try repository.add(draft).id)
        case .list(let options):
            try list(options)
        case .report(let json):
            let report = try repository.report()
            for line in json ? [OutputFormat.json(report)] : OutputFormat.table(report) {
                try print(line)
            }
        case .update(let id, let changes):
            let employee = try repository.update(id: id, with: changes)
            try print("updated \(employee.id): \(OutputFormat.summary(employee))")
        case .delete(let id):
            let employee = try repository.employee(id: id)
            try repository.delete(id: id)
            try print("deleted \(employee.id): \(employee.title)")
        case .addCompany(let draft):
            try print(try repository.addCompany(draft).id)
        case .listCompanies(let json):
            let companies = try repository.companies()
            if json {
                try print(OutputFormat.json(companies))
            } else {
                for line in OutputFormat.table(companies) { try print(line) }
            }
        case .renameCompany(let reference, let changes):
            let before = try repository.company(reference)
            let after = try repository.updateCompany(reference, with: changes)
            var line =
                before.name == after.name
                ? "updated \(after.id): \(after.name)"
                : "renamed \(after.id): \(before.name) → \(after.name)"
            if changes.city != nil { line += after.city.map { ", city \($0)" } ?? ", no city" }
            try print(line)
        case .deleteCompany(let reference, let handling):
            let result = try repository.deleteCompany(reference, handling: handling)
            let company = result.company
            var line = "deleted \(company.id): \(company.name)"
            if company.employeeCount > 0 {
                let staff = "its \(company.staffDescription)"
                if let target = result.reassignedTo {
                    line += "; \(staff) moved to \(target.name) (\(target.id))"
                } else {
                    line +=
                        "; \(staff) now \(company.employeeCount == 1 ? "has" : "have") no company"
                }
            }
            try print(line)
        }
    }

    /// `list`: the table or the JSON, written as the employees are read.
    private func list(_ options: Invocation.ListOptions) throws(EmployeesError) {
        let progress = options.json ? nil : self.progress
        defer { progress?.clear() }
        if options.json {
            let json = EmployeeJSON(output: output)
            try repository.forEachEmployee(options.query, counted: { _ in }) {
                employee throws(EmployeesError) in try json.add(employee)
            }
            try json.finish()
            return
        }
        if try repository.writeTable(options.query, to: output, progress: progress) { return }
        let table = EmployeeTable(output: output)
        var total = 0
        try repository.forEachEmployee(options.query, counted: { total = $0 }) {
            employee throws(EmployeesError) in
            try table.add(employee)
            progress?.update(progress?.describe("list", done: table.count, total: total) ?? "")
        }
        progress?.show("list: writing \(table.count) rows")
        try table.finish()
    }

    private func print(_ line: String) throws(EmployeesError) { try output.writeLine(line) }
}
