import Foundation

/// `employees demo`: the seed's whole story, step by step, on the real store.
///
/// Adds two companies and three employees, lists them by company, raises a salary from
/// 2000000 to 3000000 (the seed's example), moves an employee to the other company, is refused
/// when it deletes a company that still has employees, deletes an employee, lists again, then
/// shows the store as the `logbook` tool sees it. Each step prints the `employees` command it
/// runs, and runs exactly that command line.
///
/// On a store that already has data (an earlier demo, say) it says so and adds to it: the
/// companies are used if they are there already (names are unique), and three more employees
/// are added.
struct DemoStory {
    var repository: any EmployeeRepository
    var print: (String) -> Void
    /// The store's dump as the `logbook` tool prints it, or `nil` if this build has none.
    var dumpStore: (() throws(EmployeesError) -> [String])?
    /// The store's path, for the dump's command line.
    var storePath = "<store>"

    static let companies = [
        CompanyDraft(name: "Acme", city: "Pune"), CompanyDraft(name: "Globex", city: "Shanghai"),
    ]

    static let employees = [
        EmployeeDraft(name: "Ann Lee", designation: "Engineer", salary: 2_000_000, company: "Acme"),
        EmployeeDraft(
            name: "Kevin Park", designation: "Designer", salary: 1_500_000, company: "Acme"),
        EmployeeDraft(
            name: "Maria Garcia", designation: "Support", salary: 900_000, company: "Globex"),
    ]

    func run() throws(EmployeesError) {
        try describeStore()

        step(1, "Add two companies (the seed's \"Add Company\" button)")
        for company in Self.companies {
            if let existing = try? repository.company(company.name) {
                print(
                    "\(existing.name) is in the store already (\(existing.id)); the demo uses it.")
                continue
            }
            try run(["company", "add", "--name", company.name, "--city", company.city ?? ""])
        }

        step(2, "Add three employees (the seed's \"Add Employee\" form)")
        var ids: [String] = []
        for draft in Self.employees {
            ids += try run([
                "add", "--name", draft.name, "--designation", draft.designation, "--salary",
                String(draft.salary), "--company", draft.company ?? "",
            ])
        }
        let (ann, kevin) = (ids[0], ids[1])

        step(3, "List them by company")
        for company in Self.companies { try run(["list", "--company", company.name]) }

        step(4, "Edit Ann Lee: salary 2000000 → 3000000")
        try run(["update", ann, "--salary", "3000000"])

        step(5, "Move Kevin Park to Globex")
        try run(["update", kevin, "--company", "Globex"])

        step(6, "Try to delete Acme, which still has Ann Lee")
        do throws(EmployeesError) {
            try run(["company", "delete", "Acme"])
        } catch {
            guard case .companyHasEmployees = error else { throw error }
            print("employees: \(error)")
            print("(refused by the store's deny rule on Company.employees: exit status 1)")
        }

        step(7, "Delete Kevin Park (the seed's swipe to delete)")
        try run(["delete", kevin])

        step(8, "List again")
        try run(["company", "list"])
        try run(["list"])

        step(9, "The store as the logbook tool sees it")
        print("$ logbook dump \(Self.quoted(storePath))")
        if let dumpStore {
            try dumpStore().forEach(print)
        } else {
            print("(skipped: the logbook tool is not built next to employees; `swift build`")
            print(" builds it, or run: swift run logbook dump \(Self.quoted(storePath)))")
        }
    }

    /// Says whether the store is new or the demo adds to what it holds.
    private func describeStore() throws(EmployeesError) {
        let employees = try repository.employeeWindow(filter: nil).count
        let companies = try repository.companies().count
        if employees == 0 && companies == 0 {
            print("The store is empty; the demo fills it.")
        } else {
            print(
                "The store already holds \(employees.counted("employee")) and "
                    + "\(companies.counted("company", plural: "companies")); "
                    + "the demo adds to them (it uses Acme and Globex if they are there).")
        }
    }

    /// Prints `employees ARGUMENTS…`, runs it, and returns what it printed.
    @discardableResult
    private func run(_ arguments: [String]) throws(EmployeesError) -> [String] {
        print("$ employees " + arguments.map(Self.quoted).joined(separator: " "))
        let output = BufferedOutput()
        defer { output.lines.forEach(print) }
        try CommandRunner(repository: repository, output: output).run(
            try ArgumentParser.parse(arguments).command)
        return output.lines
    }

    private func step(_ number: Int, _ title: String) {
        print("")
        print("== \(number). \(title)")
    }

    /// `text` as a shell word: quoted when it holds anything but letters, digits and `/._-`.
    private static func quoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-".contains($0)) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
