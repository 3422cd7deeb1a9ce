/// Everything the app reports to a person. Each case renders as one line for stderr (or the
/// screen's status line) and maps to an exit code: 2 for a mistake in the command, 1 for a
/// failure while running it.
enum EmployeesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command line is wrong: unknown subcommand or option, missing value, extra argument.
    case usage(String)
    /// A salary that is not a whole number ≥ 0.
    case invalidSalary(String)
    /// A `--where` filter the predicate parser rejects.
    case invalidFilter(filter: String, reason: String)
    /// No employee has this identifier (never existed, deleted, or not an identifier at all).
    case unknownEmployee(id: String)
    /// The store is open for writing in another process.
    case storeLocked(path: String)
    /// Any other failure of the store, with its own message.
    case store(String)

    /// The process exit status for this error.
    var exitCode: Int32 {
        switch self {
        case .usage, .invalidSalary, .invalidFilter: return 2
        case .unknownEmployee, .storeLocked, .store: return 1
        }
    }

    var description: String {
        switch self {
        case .usage(let message):
            return "\(message) (see `employees help`)"
        case .invalidSalary(let text):
            return "salary must be a whole number ≥ 0, not \"\(text)\""
        case .invalidFilter(let filter, let reason):
            return "cannot use filter \"\(filter)\": \(reason)"
        case .unknownEmployee(let id):
            return "no employee with id \(id) (run `employees list` to see the ids)"
        case .storeLocked(let path):
            return
                "the store at \(path) is open in another process; close that one (or use --store) "
                + "and try again"
        case .store(let message):
            return message
        }
    }
}
