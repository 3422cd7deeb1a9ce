import Testing

@testable import employees

/// Companies in the repository: unique names, lookups by id or name, and deletion under the
/// store's deny rule.
@Suite struct CompanyRepositoryTests {
    private let store: TemporaryRepository
    private var repository: any EmployeeRepository { store.repository }
    private let acme = CompanyLink(id: "Company/1", name: "Acme")
    private let globex = CompanyLink(id: "Company/2", name: "Globex")

    init() throws {
        store = try TemporaryRepository(
            companies: DemoStory.companies, employees: DemoStory.employees)
    }

    @Test func companiesAreListedByNameWithTheirEmployeeCounts() throws {
        _ = try repository.addCompany(CompanyDraft(name: "  aardvark Ltd ", city: " "))
        let companies = try repository.companies()
        #expect(companies.map(\.name) == ["aardvark Ltd", "Acme", "Globex"])
        #expect(companies.map(\.employeeCount) == [0, 2, 1])
        #expect(companies.map(\.city) == [nil, "Pune", "Shanghai"])
        #expect(try repository.all().map(\.company) == [acme, acme, globex])
    }

    @Test func lookupsByIDExactNameOrIgnoringCase() throws {
        #expect(try repository.company("Company/2").name == "Globex")
        #expect(try repository.company("Globex").id == "Company/2")
        #expect(try repository.company(" globex ").id == "Company/2")
        _ = try repository.addCompany(CompanyDraft(name: "ACME"))
        #expect(try repository.company("ACME").id == "Company/3")
        #expect(try repository.company("Acme").id == "Company/1")
        #expect(
            throws: EmployeesError.ambiguousCompany(
                "acme",
                matches: [
                    CompanyLink(id: "Company/3", name: "ACME"), acme,
                ])
        ) { try repository.company("acme") }
        for unknown in ["Initech", "Company/99", "Employee/1", ""] {
            #expect(throws: EmployeesError.unknownCompany(unknown)) {
                try repository.company(unknown)
            }
        }
    }

    @Test func namesAreUniqueAndNeverLookLikeIDs() throws {
        #expect(throws: EmployeesError.duplicateCompany(name: "Acme", existingID: "Company/1")) {
            try repository.addCompany(CompanyDraft(name: "Acme "))
        }
        #expect(throws: EmployeesError.duplicateCompany(name: "Globex", existingID: "Company/2")) {
            try repository.updateCompany("Acme", with: CompanyChanges(name: "Globex"))
        }
        #expect(throws: EmployeesError.invalidCompanyName("  ", reason: "the name is empty")) {
            try repository.addCompany(CompanyDraft(name: "  "))
        }
        #expect(
            throws: EmployeesError.invalidCompanyName(
                "Company/7", reason: "names of the form Company/N are company ids")
        ) {
            try repository.updateCompany("Acme", with: CompanyChanges(name: "Company/7"))
        }
        #expect(EmployeesError.invalidCompanyName("", reason: "").exitCode == 2)
        #expect(try repository.companies().map(\.name) == ["Acme", "Globex"], "nothing changed")
        // Renaming to its own name, or a new case of it, is fine.
        #expect(
            try repository.updateCompany("Acme", with: CompanyChanges(name: "ACME")).name == "ACME")
    }

    @Test func employeesJoinMoveAndLeaveCompanies() throws {
        let ann = try repository.all()[0]
        #expect(
            try repository.update(id: ann.id, with: EmployeeChanges(company: .assign("globex")))
                .company == globex)
        #expect(
            try repository.update(id: ann.id, with: EmployeeChanges(company: .remove)).company
                == nil)
        #expect(throws: EmployeesError.unknownCompany("Initech")) {
            try repository.update(
                id: ann.id, with: EmployeeChanges(salary: 1, company: .assign("Initech")))
        }
        #expect(
            try repository.employee(id: ann.id).salary == 2_000_000,
            "a failed update changes nothing")
        #expect(throws: EmployeesError.unknownCompany("Initech")) {
            try repository.add(
                EmployeeDraft(name: "Bo", designation: "", salary: 1, company: "Initech"))
        }
        #expect(try repository.all().count == 3)
        #expect(try repository.list(EmployeeQuery(company: "Acme")).map(\.name) == ["Kevin Park"])
        #expect(throws: EmployeesError.unknownCompany("Nope")) {
            try repository.list(EmployeeQuery(company: "Nope"))
        }
    }

    @Test func deletingACompanyWithEmployeesIsRefusedWithTheCount() throws {
        #expect(throws: EmployeesError.companyHasEmployees(acme, count: 2)) {
            try repository.deleteCompany("Acme", handling: .refuseIfStaffed)
        }
        #expect(try repository.companies().count == 2)
        #expect(try repository.all().map(\.company) == [acme, acme, globex], "nothing moved")
        // The refused delete was rolled back: other changes still save.
        _ = try repository.addCompany(CompanyDraft(name: "Initech"))
        #expect(
            try repository.deleteCompany("Initech", handling: .refuseIfStaffed).company.name
                == "Initech")
    }

    @Test func reassignMovesTheEmployeesInTheSameSave() throws {
        let result = try repository.deleteCompany("Company/1", handling: .reassign(to: "Globex"))
        #expect(result.company.employeeCount == 2)
        #expect(result.reassignedTo?.employeeCount == 3)
        #expect(try repository.all().map(\.company) == [globex, globex, globex])
        #expect(throws: EmployeesError.reassignToSameCompany(globex)) {
            try repository.deleteCompany("Globex", handling: .reassign(to: "Company/2"))
        }
        #expect(throws: EmployeesError.unknownCompany("Initech")) {
            try repository.deleteCompany("Globex", handling: .reassign(to: "Initech"))
        }
        #expect(try repository.companies().map(\.name) == ["Globex"])
    }

    @Test func forceLeavesTheEmployeesWithoutACompany() throws {
        let result = try repository.deleteCompany("Acme", handling: .releaseEmployees)
        #expect(result.company.employeeCount == 2 && result.reassignedTo == nil)
        #expect(try repository.all().map(\.company) == [nil, nil, globex])
        #expect(try repository.all().count == 3, "employees are never deleted with their company")
        store.close()
        try store.reopen()
        #expect(try store.repository.all().map(\.company) == [nil, nil, globex])
    }
}

/// The employee counts the repository keeps after asking the store once stay equal to what a
/// freshly opened repository counts, through every kind of change.
@Suite struct StaffCountTests {
    @Test func countsStayExactThroughEveryChange() throws {
        let store = try TemporaryRepository(
            companies: DemoStory.companies, employees: DemoStory.employees)
        func expectFresh(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let kept = try store.repository.companies()
            store.close()
            try store.reopen()
            #expect(
                kept == (try store.repository.companies()), "\(step)",
                sourceLocation: sourceLocation)
            _ = try store.repository.companies()  // counted again, kept from here
        }
        let repository = { store.repository! }
        _ = try repository().companies()
        try expectFresh("asked once")
        _ = try repository().add(
            EmployeeDraft(name: "Bo", designation: "", salary: 1, company: "Globex"))
        _ = try repository().add(EmployeeDraft(name: "Cy", designation: "", salary: 1))
        try expectFresh("added")
        _ = try repository().update(
            id: "Employee/1", with: EmployeeChanges(company: .assign("Globex")))
        _ = try repository().update(
            id: "Employee/5", with: EmployeeChanges(company: .assign("Acme")))
        _ = try repository().update(id: "Employee/2", with: EmployeeChanges(company: .remove))
        _ = try repository().update(id: "Employee/4", with: EmployeeChanges(salary: 9))
        try expectFresh("moved")
        try repository().delete(id: "Employee/3")
        try repository().delete(id: "Employee/5")
        try expectFresh("deleted")
        _ = try repository().addCompany(CompanyDraft(name: "Initech"))
        _ = try repository().add(
            EmployeeDraft(name: "Di", designation: "", salary: 1, company: "Initech"))
        _ = try repository().updateCompany("Initech", with: CompanyChanges(name: "Initrode"))
        try expectFresh("a new company")
        #expect(throws: EmployeesError.self) {
            try repository().deleteCompany("Globex", handling: .refuseIfStaffed)
        }
        try expectFresh("a refused deletion")
        let moved = try repository().deleteCompany("Globex", handling: .reassign(to: "Initrode"))
        #expect(moved.company.employeeCount == 2 && moved.reassignedTo?.employeeCount == 3)
        try expectFresh("a reassigning deletion")
        _ = try repository().deleteCompany("Initrode", handling: .releaseEmployees)
        try expectFresh("a releasing deletion")
        #expect(try repository().companies().map(\.employeeCount) == [0])
    }
}
