/// One employee as the app sees it: a value copied out of the store, never a live object.
///
/// `id` is the store's stable identifier in text form; it stays valid across processes, so a
/// script can `add`, remember the printed id, and `update` or `delete` it later.
struct EmployeeRecord: Sendable, Equatable {
    var id: String
    var name: String
    var designation: String
    var salary: Int64
    /// The company the employee belongs to, if any.
    var company: CompanyLink?

    /// The list cell's title, as in the seed's table view: "name — designation".
    var title: String { designation.isEmpty ? name : "\(name) — \(designation)" }
}

/// The company an employee belongs to, as shown next to the employee.
struct CompanyLink: Sendable, Equatable {
    var id: String
    var name: String
}

/// The fields of the seed's "Add Employee" form, validated, and the employee's company.
struct EmployeeDraft: Sendable, Equatable {
    var name: String
    var designation: String
    var salary: Int64
    /// A company id or name (resolved by the repository), or `nil` for none.
    var company: String?

    init(name: String, designation: String, salary: Int64, company: String? = nil) {
        self.name = name
        self.designation = designation
        self.salary = salary
        self.company = company
    }
}

/// A partial change for `update`: `nil` leaves the field as it is.
struct EmployeeChanges: Sendable, Equatable {
    /// What to do with the employee's company.
    enum CompanyChange: Sendable, Equatable {
        /// Move to the company with this id or name.
        case assign(String)
        /// Leave the employee without a company.
        case remove
    }

    var name: String?
    var designation: String?
    var salary: Int64?
    var company: CompanyChange?

    var isEmpty: Bool { name == nil && designation == nil && salary == nil && company == nil }
}

/// The fields a list can be sorted by.
enum EmployeeSortKey: String, Sendable, CaseIterable {
    case name, designation, salary
}

/// What `list` asks the repository for.
struct EmployeeQuery: Sendable, Equatable {
    /// A filter in the string-predicate syntax, e.g. `salary > 1000000`; `nil` for all.
    var filter: String?
    /// `nil` keeps the store's order (the order employees were added).
    var sortKey: EmployeeSortKey?
    var descending: Bool
    /// Only the employees of this company (an id or a name); `nil` for all.
    var company: String?
    /// Words to find in names (`jose`, `ann*`, `"ann lee"`): the matches come best first
    /// unless `sortKey` orders them; `nil` for no search.
    var search: String? = nil

    init(
        filter: String? = nil, sortKey: EmployeeSortKey? = nil, descending: Bool = false,
        company: String? = nil
    ) {
        self.filter = filter
        self.sortKey = sortKey
        self.descending = descending
        self.company = company
    }
}
