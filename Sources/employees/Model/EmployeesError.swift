/// Everything the app reports to a person. Each case renders as one line for stderr (or the
/// screen's status line) and maps to an exit code: 2 for a mistake in the command, 1 for a
/// failure while running it.
enum EmployeesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command line is wrong: unknown subcommand or option, missing value, extra argument.
    case usage(String)
    /// A salary that is not a whole number ≥ 0.
    case invalidSalary(String)
    /// A `--where` filter the predicate parser rejects; `reason` says where and why.
    case invalidFilter(filter: String, reason: String)
    /// No employee has this identifier (never existed, deleted, or not an identifier at all).
    case unknownEmployee(id: String)
    /// No company has this id or name.
    case unknownCompany(String)
    /// A name that matches several companies when case is ignored, and none exactly.
    case ambiguousCompany(String, matches: [CompanyLink])
    /// Company names are unique; `existingID` is the company that has the name.
    case duplicateCompany(name: String, existingID: String?)
    /// A name a company cannot have (empty, or the form of a company id).
    case invalidCompanyName(String, reason: String)
    /// The store's deny rule: a company with employees is not deleted.
    case companyHasEmployees(CompanyLink, count: Int)
    /// `--reassign-to` names the company being deleted.
    case reassignToSameCompany(CompanyLink)
    /// The store is open for writing in another process.
    case storeLocked(path: String)
    /// Any other failure of the store, with its own message.
    case store(String)
    /// The output could not be written (a full disk, a closed pipe); `reason` is the system's.
    case output(String)

    /// The process exit status for this error.
    var exitCode: Int32 {
        switch self {
        case .usage, .invalidSalary, .invalidFilter, .invalidCompanyName: return 2
        case .unknownEmployee, .unknownCompany, .ambiguousCompany, .duplicateCompany,
            .companyHasEmployees, .reassignToSameCompany, .storeLocked, .store, .output:
            return 1
        }
    }

    var description: String {
        switch self {
        case .usage(let message):
            return "\(message) (see `employees help`)"
        case .invalidSalary(let text):
            return "salary must be a whole number ≥ 0, not \"\(text)\""
        case .invalidFilter(let filter, let reason):
            // One line, also for a filter that spans several.
            let line = filter.split(separator: "\n", omittingEmptySubsequences: false)
                .joined(separator: "\\n")
            // A long filter (a generated one, or a hostile one) is shown by its start only.
            let shown = line.count > 120 ? line.prefix(120) + "…" : line
            return "cannot use filter \"\(shown)\": \(reason)"
        case .unknownEmployee(let id):
            return "no employee with id \(id) (run `employees list` to see the ids)"
        case .unknownCompany(let reference):
            let what =
                CompanyReference.isIdentifier(reference)
                ? "with id \(reference)" : "named \"\(reference)\""
            return "no company \(what) (run `employees company list` to see them)"
        case .ambiguousCompany(let reference, let matches):
            let names = matches.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")
            return
                "\"\(reference)\" could be \(matches.count) companies: \(names); "
                + "give the exact name or the id"
        case .duplicateCompany(let name, let existingID):
            let existing = existingID.map { " (\($0))" } ?? ""
            return "a company named \"\(name)\" already exists\(existing); choose another name"
        case .invalidCompanyName(let name, let reason):
            return "a company cannot be named \"\(name)\": \(reason)"
        case .companyHasEmployees(let company, let count):
            return
                "\(company.name) (\(company.id)) still has \(count.counted("employee")), so it "
                + "is not deleted; move them with --reassign-to COMPANY, or use --force to "
                + "delete it and leave them without a company"
        case .reassignToSameCompany(let company):
            return
                "cannot move the employees of \(company.name) (\(company.id)) to itself; "
                + "name another company after --reassign-to"
        case .storeLocked(let path):
            return
                "the store at \(path) is open in another process; close that one (or use --store) "
                + "and try again"
        case .store(let message):
            return message
        case .output(let reason):
            return "cannot write the output: \(reason)"
        }
    }
}
