import Logbook

/// Companies: lookups by id or name, and the deletion rule built on the store's `deny`.
///
/// - Complexity: a lookup by name, a name check and the company list each read every
///   company; counting employees reads every employee once.
extension LogbookEmployeeRepository {
    func addCompany(_ draft: CompanyDraft) throws(EmployeesError) -> CompanyRecord {
        let name = try CompanyReference.validName(draft.name)
        let company = Company()
        company.name = name
        company.city = Self.city(draft.city)
        context.insert(company)
        try saveCompany(named: name)
        return record(company, employeeCount: 0)
    }

    func companies() throws(EmployeesError) -> [CompanyRecord] {
        let companies = try allCompanies()
        let employees = try storeCall { try context.fetch(FetchDescriptor<Employee>()) }
        var counts: [ObjectIdentifier: Int] = [:]
        for employee in employees {
            if let company = employee.company { counts[ObjectIdentifier(company), default: 0] += 1 }
        }
        return
            companies
            .map { record($0, employeeCount: counts[ObjectIdentifier($0)] ?? 0) }
            .sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
    }

    func company(_ reference: String) throws(EmployeesError) -> CompanyRecord {
        record(try companyModel(reference))
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
        return record(company)
    }

    func deleteCompany(_ reference: String, handling: CompanyDeletion) throws(EmployeesError)
        -> CompanyDeletionResult
    {
        let company = try companyModel(reference)
        let before = record(company)
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
            throw .companyHasEmployees(link(company), count: company.employees.count)
        } catch {
            throw Self.translate(error, path: path)
        }
        return CompanyDeletionResult(company: before, reassignedTo: target.map { record($0) })
    }

    /// The company `reference` names: by id if it has the id form, else by name.
    func companyModel(_ reference: String) throws(EmployeesError) -> Company {
        guard CompanyReference.isIdentifier(reference) else {
            return try CompanyReference.match(name: reference, among: allCompanies(), link: link)
        }
        guard let identifier = PersistentIdentifier(reference),
            let company = try model(identifier, as: Company.self)
        else { throw .unknownCompany(reference) }
        return company
    }

    func link(_ company: Company) -> CompanyLink {
        CompanyLink(id: company.persistentModelID?.description ?? "", name: company.name)
    }

    private func allCompanies() throws(EmployeesError) -> [Company] {
        try storeCall { try context.fetch(FetchDescriptor<Company>()) }
    }

    private func record(_ company: Company, employeeCount: Int? = nil) -> CompanyRecord {
        CompanyRecord(
            id: company.persistentModelID?.description ?? "", name: company.name,
            city: company.city, employeeCount: employeeCount ?? company.employees.count)
    }

    /// Saves a new or renamed company; the store's unique rule on `name` becomes
    /// ``EmployeesError/duplicateCompany(name:existingID:)``.
    private func saveCompany(named name: String) throws(EmployeesError) {
        do {
            try saveOrRollBack()
        } catch LogbookError.uniqueConstraint {
            let existing = try? CompanyReference.match(
                name: name, among: allCompanies(), link: link)
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
