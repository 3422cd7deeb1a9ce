/// How a person names a company on the command line or in a draft: by id (`Company/3`) or by
/// name. An id is looked up as an id; anything else is a name, matched exactly or, failing
/// that, ignoring case. Company names never have the id form, so the two cannot clash.
enum CompanyReference {
    /// The id prefix of companies (the entity name and a slash).
    static let idPrefix = "Company/"

    /// Whether `text` has the form of a company id.
    static func isIdentifier(_ text: String) -> Bool {
        text.hasPrefix(idPrefix) && UInt64(text.dropFirst(idPrefix.count)) != nil
    }

    /// The one company `name` names among `companies`: the one with exactly that name, else
    /// the only one whose name matches ignoring case.
    /// - Throws: ``EmployeesError/unknownCompany(_:)`` when none matches,
    ///   ``EmployeesError/ambiguousCompany(_:matches:)`` when several match only ignoring case.
    static func match<Company>(
        name: String, among companies: [Company], link: (Company) -> CompanyLink
    ) throws(EmployeesError) -> Company {
        let wanted = name.trimmingSpaces()
        if let exact = companies.first(where: { link($0).name == wanted }) { return exact }
        let folded = wanted.lowercased()
        let close = companies.filter { link($0).name.lowercased() == folded }
        guard let only = close.first else { throw .unknownCompany(name) }
        guard close.count == 1 else {
            throw .ambiguousCompany(name, matches: close.map(link).sorted { $0.name < $1.name })
        }
        return only
    }

    /// `name` without surrounding spaces, if a company may have it.
    /// - Throws: ``EmployeesError/invalidCompanyName(_:reason:)`` for an empty name or one of
    ///   the id form.
    static func validName(_ name: String) throws(EmployeesError) -> String {
        let trimmed = name.trimmingSpaces()
        if trimmed.isEmpty { throw .invalidCompanyName(name, reason: "the name is empty") }
        if isIdentifier(trimmed) {
            throw .invalidCompanyName(
                name, reason: "names of the form \(idPrefix)N are company ids")
        }
        return trimmed
    }
}
