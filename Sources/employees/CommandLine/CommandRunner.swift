/// Runs one non-interactive subcommand against a repository and prints its result through
/// `print`, one line per call (no trailing newline). Knows nothing of processes or terminals.
struct CommandRunner {
    var repository: any EmployeeRepository
    var print: (String) -> Void

    /// - Throws: the repository's ``EmployeesError``s (unknown id or company, bad filter, the
    ///   deny rule, store failures).
    func run(_ command: Invocation.Command) throws(EmployeesError) {
        switch command {
        case .interactive, .help, .demo:
            print(HelpText.text)
        case .add(let draft):
            print(try repository.add(draft).id)
        case .list(let options):
            let employees = try repository.list(options.query)
            if options.json {
                print(OutputFormat.json(employees))
            } else {
                OutputFormat.table(employees).forEach(print)
            }
        case .update(let id, let changes):
            let employee = try repository.update(id: id, with: changes)
            print("updated \(employee.id): \(OutputFormat.summary(employee))")
        case .delete(let id):
            let employee = try repository.employee(id: id)
            try repository.delete(id: id)
            print("deleted \(employee.id): \(employee.title)")
        case .addCompany(let draft):
            print(try repository.addCompany(draft).id)
        case .listCompanies(let json):
            let companies = try repository.companies()
            if json {
                print(OutputFormat.json(companies))
            } else {
                OutputFormat.table(companies).forEach(print)
            }
        case .renameCompany(let reference, let changes):
            let before = try repository.company(reference)
            let after = try repository.updateCompany(reference, with: changes)
            var line =
                before.name == after.name
                ? "updated \(after.id): \(after.name)"
                : "renamed \(after.id): \(before.name) → \(after.name)"
            if changes.city != nil { line += after.city.map { ", city \($0)" } ?? ", no city" }
            print(line)
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
            print(line)
        }
    }
}
