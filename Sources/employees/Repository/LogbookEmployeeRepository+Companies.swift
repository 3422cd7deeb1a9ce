import Logbook

/// Companies: lookups by id or name, and the deletion rule built on the store's `deny`.
///
/// - Complexity: a lookup by name is one predicate fetch of companies, which builds only the
///   companies it finds; the company list reads every company. Employee counts are asked of the
///   store once (see ``staffCounts(of:)``) and then kept up to date by this repository's own
///   saves, the only ones there are while it holds the store's writer lock.
extension LogbookEmployeeRepository {
    func addCompany(_ draft: CompanyDraft) throws(EmployeesError) -> CompanyRecord {
        let name = try CompanyReference.validName(draft.name)
        let company = Company()
        company.name = name
        company.city = Self.city(draft.city)
        context.insert(company)
        try saveCompany(named: name)
        staffCounts.set(company, 0)
        return record(company, employeeCount: 0)
    }

    func companies() throws(EmployeesError) -> [CompanyRecord] {
        let companies = try allCompanies()
        let counts = try storeCall { try staffCounts(of: companies) }
        return
            companies
            .map { record($0, employeeCount: counts[$0] ?? 0) }
            .sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
    }

    func company(_ reference: String) throws(EmployeesError) -> CompanyRecord {
        try record(try companyModel(reference))
    }

    func updateCompany(_ reference: String, with changes: CompanyChanges) throws(EmployeesError)
        -> CompanyRecord
    {
        let company = try companyModel(reference)
        let name = try changes.name.map { name throws(EmployeesError) in
            try CompanyReference.validName(name)
        }
        if let name { company.name = name }
        if let city = changes.city { company.city = Self.city(city) }
        try saveCompany(named: company.name)
        companyLinks.removeAll()
        return try record(company)
    }

    func deleteCompany(_ reference: String, handling: CompanyDeletion) throws(EmployeesError)
        -> CompanyDeletionResult
    {
        let company = try companyModel(reference)
        let before = try record(company)
        let key = company.persistentModelID.primaryKey
        var target: Company?
        switch handling {
        case .refuseIfStaffed:
            break
        case .reassign(let targetReference):
            let other = try companyModel(targetReference)
            guard other !== company else { throw .reassignToSameCompany(link(company)) }
            for employee in company.employees { employee.company = other }
            target = other
        case .releaseEmployees:
            for employee in company.employees { employee.company = nil }
        }
        context.delete(company)
        do {
            try saveOrRollBack()
        } catch LogbookError.deleteDenied {
            throw .companyHasEmployees(link(company), count: before.employeeCount)
        } catch {
            throw Self.translate(error, path: path)
        }
        companyLinks.removeAll()
        staffCounts.companyDeleted(key, movedTo: target)
        return CompanyDeletionResult(
            company: before,
            reassignedTo: try target.map { target throws(EmployeesError) in try record(target) })
    }

    /// The company `reference` names: by id if it has the id form, else by name.
    func companyModel(_ reference: String) throws(EmployeesError) -> Company {
        guard CompanyReference.isIdentifier(reference) else {
            return try companyModel(named: reference)
        }
        guard let identifier = PersistentIdentifier(reference),
            let company = try model(identifier, as: Company.self)
        else { throw .unknownCompany(reference) }
        return company
    }

    func link(_ company: Company) -> CompanyLink {
        CompanyLink(id: company.persistentModelID.description, name: company.name)
    }

    /// The company named `name` (see ``CompanyReference/match(name:among:link:)``), found by a
    /// fetch of the companies whose name matches ignoring case.
    private func companyModel(named name: String) throws(EmployeesError) -> Company {
        let candidates = try storeCall {
            try context.fetch(
                entity: Company.entityName, where: "name ==[c] %@", name.trimmingSpaces()
            ).compactMap { $0 as? Company }
        }
        // Should the store's case folding miss a match that lowercasing finds, compare all.
        return try CompanyReference.match(
            name: name, among: candidates.isEmpty ? allCompanies() : candidates, link: link)
    }

    private func allCompanies() throws(EmployeesError) -> [Company] {
        try storeCall { try context.fetch(FetchDescriptor<Company>()) }
    }

    private func record(_ company: Company, employeeCount: Int) -> CompanyRecord {
        CompanyRecord(
            id: company.persistentModelID.description, name: company.name,
            city: company.city, employeeCount: employeeCount)
    }

    private func record(_ company: Company) throws(EmployeesError) -> CompanyRecord {
        record(
            company, employeeCount: try storeCall { try staffCounts(of: [company])[company] ?? 0 })
    }

    /// Saves a new or renamed company; the store's unique rule on `name` becomes
    /// ``EmployeesError/duplicateCompany(name:existingID:)``.
    private func saveCompany(named name: String) throws(EmployeesError) {
        do {
            try saveOrRollBack()
        } catch LogbookError.uniqueConstraint {
            let existing = try? companyModel(named: name)
            throw .duplicateCompany(name: name, existingID: existing.map(link)?.id)
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// A city as given, without surrounding spaces; `nil` for none or an empty one.
    private static func city(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingSpaces(), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
