/// One employee as the app sees it: a value copied out of the store, never a live object.
///
/// `id` is the store's stable identifier in text form; it stays valid across processes, so a
/// script can `add`, remember the printed id, and `update` or `delete` it later.
struct EmployeeRecord: Sendable, Equatable {
    var id: String
    var name: String
    var designation: String
    var salary: Int64

    /// The list cell's title, as in the seed's table view: "name — designation".
    var title: String { designation.isEmpty ? name : "\(name) — \(designation)" }

    /// The values without the identity.
    var draft: EmployeeDraft { EmployeeDraft(name: name, designation: designation, salary: salary) }
}

/// The three fields of the seed's "Add Employee" form, validated.
struct EmployeeDraft: Sendable, Equatable {
    var name: String
    var designation: String
    var salary: Int64
}

/// A partial change for `update`: `nil` leaves the field as it is.
struct EmployeeChanges: Sendable, Equatable {
    var name: String?
    var designation: String?
    var salary: Int64?

    var isEmpty: Bool { name == nil && designation == nil && salary == nil }

    /// `draft` with these changes applied.
    func applied(to draft: EmployeeDraft) -> EmployeeDraft {
        EmployeeDraft(
            name: name ?? draft.name,
            designation: designation ?? draft.designation,
            salary: salary ?? draft.salary)
    }
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

    init(filter: String? = nil, sortKey: EmployeeSortKey? = nil, descending: Bool = false) {
        self.filter = filter
        self.sortKey = sortKey
        self.descending = descending
    }
}
