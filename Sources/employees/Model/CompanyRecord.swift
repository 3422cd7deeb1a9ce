/// One company as the app sees it: a value copied out of the store.
struct CompanyRecord: Sendable, Equatable {
    /// The store's identifier in text form (`Company/3`).
    var id: String
    /// Unique among companies.
    var name: String
    var city: String?
    /// How many employees belong to it.
    var employeeCount: Int

    /// "3 employees", "1 employee".
    var staffDescription: String { employeeCount.counted("employee") }
}

/// A new company.
struct CompanyDraft: Sendable, Equatable {
    var name: String
    var city: String?
}

/// A change to a company: `nil` leaves the field as it is; a city of `""` removes it.
struct CompanyChanges: Sendable, Equatable {
    var name: String?
    var city: String?
}

/// What deleting a company does with its employees. The store's rule (`deny`) refuses to
/// delete a company that still has employees; the other two cases deal with them first, in
/// the same save.
enum CompanyDeletion: Sendable, Equatable {
    /// Refuse while the company has employees.
    case refuseIfStaffed
    /// Move its employees to the company with this id or name, then delete it.
    case reassign(to: String)
    /// Leave its employees without a company, then delete it.
    case releaseEmployees
}

/// What a company deletion did.
struct CompanyDeletionResult: Sendable, Equatable {
    /// The company as it was before the deletion.
    var company: CompanyRecord
    /// The company its employees moved to, for ``CompanyDeletion/reassign(to:)``.
    var reassignedTo: CompanyRecord?
}

extension Int {
    /// "1 employee", "2 employees", "0 employees"; `plural` for nouns that do not take an s.
    func counted(_ noun: String, plural: String? = nil) -> String {
        self == 1 ? "1 \(noun)" : "\(self) \(plural ?? noun + "s")"
    }
}
