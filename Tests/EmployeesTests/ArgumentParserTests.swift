import Testing

@testable import employees

@Suite struct ArgumentParserTests {
    private func parse(_ arguments: String...) throws(EmployeesError) -> Invocation {
        try ArgumentParser.parse(arguments)
    }

    private func usageError(_ arguments: String...) -> EmployeesError? {
        do {
            _ = try ArgumentParser.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func noArgumentsIsTheInteractiveScreen() throws {
        #expect(try parse() == Invocation(command: .interactive, storePath: nil))
        #expect(try parse("--store", "/s") == Invocation(command: .interactive, storePath: "/s"))
    }

    @Test func addTakesNameDesignationAndSalary() throws {
        let invocation = try parse(
            "add", "--name", "Ann", "--designation=Engineer", "--salary", "2000000")
        #expect(
            invocation.command
                == .add(EmployeeDraft(name: "Ann", designation: "Engineer", salary: 2_000_000)))
    }

    @Test func storeIsAcceptedBeforeOrAfterTheSubcommand() throws {
        #expect(try parse("--store", "/a", "delete", "E1").storePath == "/a")
        #expect(try parse("delete", "E1", "--store=/b").storePath == "/b")
    }

    @Test func listOptions() throws {
        let invocation = try parse(
            "list", "--where", "salary > 1000000", "--sort", "salary", "--desc", "--json")
        var expected = Invocation.ListOptions()
        expected.query = EmployeeQuery(
            filter: "salary > 1000000", sortKey: .salary, descending: true)
        expected.json = true
        #expect(invocation.command == .list(expected))
    }

    @Test func updateTakesAnIdAndAtLeastOneChange() throws {
        #expect(
            try parse("update", "E7", "--salary", "3000000").command
                == .update(id: "E7", changes: EmployeeChanges(salary: 3_000_000)))
        #expect(
            usageError("update", "E7")
                == .usage(
                    "update needs at least one of --name, --designation, --salary, --company, "
                        + "--no-company"))
        #expect(usageError("update", "--salary", "1") == .usage("update needs an employee id"))
    }

    @Test(arguments: ["12x", "-5", "1.5", "", " ", "99999999999999999999"])
    func salaryMustBeAWholeNumberNotBelowZero(_ salary: String) {
        #expect(usageError("add", "--name", "A", "--salary", salary) == .invalidSalary(salary))
        #expect(usageError("add", "--name", "A", "--salary", salary)?.exitCode == 2)
    }

    @Test func salaryAllowsSurroundingSpaces() throws {
        #expect(try SalaryParser.parse(" 42 ") == 42)
    }

    @Test func usageErrorsNameTheProblem() {
        #expect(usageError("list", "--bogus") == .usage("unknown option --bogus"))
        #expect(usageError("frobnicate") == .usage("unknown command \"frobnicate\""))
        #expect(
            usageError("list", "--sort", "age")
                == .usage("--sort takes name, designation or salary, not \"age\""))
        #expect(usageError("delete", "E1", "E2") == .usage("unexpected argument \"E2\" for delete"))
        #expect(
            usageError("delete", "E1", "--salary", "3") == .usage("delete does not take --salary"))
        #expect(usageError("add", "--name") == .usage("--name needs a value"))
        #expect(usageError("add", "--salary", "1") == .usage("add needs --name"))
        #expect(usageError("--json") == .usage("--json needs a subcommand"))
        #expect(usageError("list", "--json=yes") == .usage("--json takes no value"))
    }

    @Test func helpAnywhere() throws {
        #expect(try parse("help").command == .help)
        #expect(try parse("add", "--help").command == .help)
        #expect(try parse("-h").command == .help)
    }

    @Test func employeesTakeACompanyByNameOrID() throws {
        #expect(
            try parse("add", "--name", "Ann", "--salary", "1", "--company", "Acme").command
                == .add(EmployeeDraft(name: "Ann", designation: "", salary: 1, company: "Acme")))
        #expect(
            try parse("update", "Employee/1", "--company=Company/2").command
                == .update(
                    id: "Employee/1", changes: EmployeeChanges(company: .assign("Company/2"))))
        #expect(
            try parse("update", "Employee/1", "--no-company").command
                == .update(id: "Employee/1", changes: EmployeeChanges(company: .remove)))
        #expect(
            usageError("update", "Employee/1", "--company", "A", "--no-company")
                == .usage("update takes --company or --no-company, not both"))
        var list = Invocation.ListOptions()
        list.query.company = "Acme"
        #expect(try parse("list", "--company", "Acme").command == .list(list))
    }

    @Test func companySubcommands() throws {
        #expect(
            try parse("company", "add", "--name", "Acme", "--city", "Pune").command
                == .addCompany(CompanyDraft(name: "Acme", city: "Pune")))
        #expect(
            try parse("company", "add", "--name", "Acme").command
                == .addCompany(CompanyDraft(name: "Acme", city: nil)))
        #expect(try parse("company", "list").command == .listCompanies(json: false))
        #expect(try parse("company", "list", "--json").command == .listCompanies(json: true))
        #expect(
            try parse("company", "rename", "Company/1", "--name", "Acme Corp").command
                == .renameCompany("Company/1", CompanyChanges(name: "Acme Corp", city: nil)))
        #expect(
            try parse("company", "delete", "Acme").command
                == .deleteCompany("Acme", .refuseIfStaffed))
        #expect(
            try parse("company", "delete", "Acme", "--reassign-to", "Globex").command
                == .deleteCompany("Acme", .reassign(to: "Globex")))
        #expect(
            try parse("company", "delete", "Acme", "--force").command
                == .deleteCompany("Acme", .releaseEmployees))
    }

    @Test func companyUsageErrorsNameTheProblem() {
        #expect(
            usageError("company")
                == .usage("company needs a subcommand: add, list, rename or delete"))
        #expect(
            usageError("company", "fire")
                == .usage("unknown company subcommand \"fire\" (use add, list, rename or delete)"))
        #expect(usageError("company", "add") == .usage("company add needs --name"))
        #expect(usageError("company", "add", "--name") == .usage("--name needs a value"))
        #expect(
            usageError("company", "rename", "--name", "X")
                == .usage("company rename needs a company id or name"))
        #expect(
            usageError("company", "rename", "Acme")
                == .usage("company rename needs --name (or --city)"))
        #expect(
            usageError("company", "delete", "Acme", "--force", "--reassign-to", "B")
                == .usage("company delete takes --reassign-to or --force, not both"))
        #expect(
            usageError("company", "delete", "A", "B")
                == .usage("unexpected argument \"B\" for company delete"))
        #expect(
            usageError("company", "list", "--force") == .usage("company list does not take --force")
        )
        #expect(
            usageError("company", "delete", "A", "--force=yes") == .usage("--force takes no value"))
        #expect(
            usageError("add", "--name", "A", "--salary", "1", "--city", "X")
                == .usage("add does not take --city"))
    }
}
