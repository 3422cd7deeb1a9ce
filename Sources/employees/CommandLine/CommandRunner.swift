import Foundation

/// Runs one non-interactive subcommand against a repository and prints its result through
/// `print`, one line per call (no trailing newline). Knows nothing of processes or terminals,
/// so tests run it on an ``InMemoryEmployeeRepository``.
struct CommandRunner {
    var repository: any EmployeeRepository
    var print: (String) -> Void

    /// - Throws: the repository's ``EmployeesError``s (unknown id, bad filter, store failures).
    func run(_ command: Invocation.Command) throws(EmployeesError) {
        switch command {
        case .interactive, .help, .demo:
            print(HelpText.text)
        case .add(let draft):
            print(try repository.add(draft).id)
        case .list(let options):
            let employees = try repository.list(options.query)
            if options.json {
                print(Self.json(employees))
            } else {
                Self.table(employees).forEach(print)
            }
        case .update(let id, let changes):
            let employee = try repository.update(id: id, with: changes)
            print("updated \(employee.id): \(employee.title), salary \(employee.salary)")
        case .delete(let id):
            let employee = try repository.employee(id: id)
            try repository.delete(id: id)
            print("deleted \(employee.id): \(employee.title)")
        }
    }

    /// A table like the seed's list: id, "name — designation", salary flush right.
    static func table(_ employees: [EmployeeRecord]) -> [String] {
        guard !employees.isEmpty else { return ["(no employees)"] }
        let idWidth = max(2, employees.map(\.id.count).max() ?? 0)
        let titleWidth = max(20, employees.map(\.title.displayable.count).max() ?? 0)
        let salaryWidth = max(6, employees.map { String($0.salary).count }.max() ?? 0)
        func row(_ id: String, _ title: String, _ salary: String) -> String {
            id.fitted(to: idWidth) + "  " + title.fitted(to: titleWidth) + "  "
                + String(repeating: " ", count: max(0, salaryWidth - salary.count)) + salary
        }
        return [row("ID", "NAME — DESIGNATION", "SALARY")]
            + employees.map { row($0.id.displayable, $0.title.displayable, String($0.salary)) }
    }

    /// A JSON array of `{"designation", "id", "name", "salary"}` objects, keys sorted.
    static func json(_ employees: [EmployeeRecord]) -> String {
        struct Row: Encodable {
            var id: String
            var name: String
            var designation: String
            var salary: Int64
        }
        guard !employees.isEmpty else { return "[]" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let rows = employees.map {
            Row(id: $0.id, name: $0.name, designation: $0.designation, salary: $0.salary)
        }
        // Encoding strings and integers cannot fail.
        let data = (try? encoder.encode(rows)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
