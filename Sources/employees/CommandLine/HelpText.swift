/// `employees help`.
enum HelpText {
    static let text = """
        employees — the Logbook example app: a list of employees kept in a Logbook store.

        USAGE
          employees                          the interactive list (on a terminal)
          employees add --name N [--designation D] --salary S
                                             add an employee; prints its id
          employees list [--where FILTER] [--sort name|designation|salary] [--desc] [--json]
                                             list employees (FILTER e.g. 'salary > 1000000')
          employees update ID [--name N] [--designation D] [--salary S]
                                             change an employee
          employees delete ID                delete an employee
          employees demo                     add three, list, raise a salary, delete one, list
          employees help                     this text

        OPTIONS
          --store PATH   the store to use (before or after the command); also the
                         LOGBOOK_EMPLOYEES_STORE environment variable. Default:
                         \(defaultPath), created on first use.

        Salaries are whole numbers ≥ 0. Every change is saved at once.
        Exit status: 0 ok, 1 the command failed (unknown id, locked store, …), 2 bad usage.
        """
}

extension HelpText {
    /// The default store path, as shown to people.
    fileprivate static var defaultPath: String {
        #if os(macOS)
            return "~/Library/Application Support/logbook/Employees.logbook"
        #else
            return "$XDG_DATA_HOME/logbook/Employees.logbook (~/.local/share/… if unset)"
        #endif
    }
}
