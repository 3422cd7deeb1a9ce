/// `employees help`.
enum HelpText {
    static let text = """
        employees — the Logbook example app: a list of employees kept in a Logbook store.

        USAGE
          employees                          the interactive list (on a terminal): a add,
                                             Enter edit, d delete, c companies, / search
                                             (words of names, or a FILTER), q quit
          employees add --name N [--designation D] --salary S [--company COMPANY]
                                             add an employee; prints its id
          employees list [--where FILTER] [--sort name|designation|salary] [--desc]
                         [--company COMPANY] [--search WORDS] [--json]
                                             list employees (FILTER e.g. 'salary > 1000000';
                                             WORDS e.g. 'jose', 'ann*', '"ann lee"': best
                                             matches first, ignoring case and accents)
          employees report [--json]          headcount, total and average salary per company
                                             and per designation
          employees update ID [--name N] [--designation D] [--salary S]
                         [--company COMPANY | --no-company]
                                             change an employee
          employees delete ID                delete an employee
          employees company add --name N [--city C]
                                             add a company (names are unique); prints its id
          employees company list [--json]    list companies with their number of employees
          employees company rename COMPANY --name N [--city C]
                                             rename a company (--city "" removes the city)
          employees company delete COMPANY [--reassign-to OTHER | --force]
                                             delete a company; refused while it has employees,
                                             unless they move to OTHER or, with --force, are
                                             left without a company
          employees demo                     the seed's story with two companies, on the store
          employees migrate [--dry-run]      bring a store of an earlier model (the seed's own,
                                             with text salaries) to today's; with --dry-run,
                                             only print what it would do, changing nothing
          employees help                     this text

        COMPANY is a company's id (Company/3) or its name; a name is matched exactly, else
        ignoring case if that leaves one company.

        OPTIONS
          --store PATH   the store to use (before or after the command); also the
                         LOGBOOK_EMPLOYEES_STORE environment variable. Default:
                         \(defaultPath), created on first use.

        Salaries are whole numbers ≥ 0. Every change is saved at once.
        Exit status: 0 ok, 1 the command failed (unknown id or company, a company that still has
        employees, locked store, a damaged store, …), 2 bad usage. A store a crash left with a
        torn tail (an incomplete last save) is not damaged: it opens as it was before that save,
        and the torn bytes are kept aside (`logbook verify` lists them).
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
