/// What the user asked for on the command line, before anything is opened.
struct Invocation: Sendable, Equatable {
    /// A subcommand and its parsed options.
    enum Command: Sendable, Equatable {
        /// No subcommand: the full-screen list on a terminal, else help.
        case interactive
        case help
        case add(EmployeeDraft)
        case list(ListOptions)
        case update(id: String, changes: EmployeeChanges)
        case delete(id: String)
        case addCompany(CompanyDraft)
        case listCompanies(json: Bool)
        /// `company rename COMPANY --name N [--city C]`.
        case renameCompany(String, CompanyChanges)
        /// `company delete COMPANY [--reassign-to OTHER | --force]`.
        case deleteCompany(String, CompanyDeletion)
        case demo
        /// `migrate [--dry-run]`: bring the store to today's model, or say what that would do.
        case migrate(dryRun: Bool)
        /// `report [--json]`: headcount, total and average salary per company and designation.
        case report(json: Bool)
    }

    /// `list`'s options.
    struct ListOptions: Sendable, Equatable {
        var query = EmployeeQuery()
        var json = false
    }

    var command: Command
    /// `--store PATH`, if given (before or after the subcommand).
    var storePath: String?
}
