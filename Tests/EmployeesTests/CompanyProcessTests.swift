import Foundation
import Testing

/// The company subcommands and `--company` end to end: the built executable on a real store,
/// one process per command, good and bad input, and `logbook verify` clean after each flow.
@Suite struct CompanyProcessTests {
    /// Runs `employees --store … ARGUMENTS…`; it must succeed. Returns its output lines.
    @discardableResult
    private func ok(_ employees: EmployeesProcess, _ arguments: String...) throws -> [String] {
        let result = try employees.run(["--store", employees.storePath] + arguments)
        try #require(result.status == 0, "\(arguments): \(result.standardError)")
        #expect(result.standardError.isEmpty)
        return result.lines
    }

    /// Runs it; it must fail with `status`, print nothing on stdout and one line on stderr
    /// that contains `message`.
    private func fails(
        _ employees: EmployeesProcess, _ arguments: [String], status: Int32, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try employees.run(["--store", employees.storePath] + arguments)
        #expect(result.status == status, "\(arguments)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, sourceLocation: sourceLocation)
        #expect(
            result.standardError.hasPrefix("employees: ") && result.standardError.contains(message),
            "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(
            result.standardError.split(separator: "\n").count == 1, sourceLocation: sourceLocation)
    }

    private func companiesJSON(_ employees: EmployeesProcess) throws -> [[String: Any]] {
        let text = try ok(employees, "company", "list", "--json").joined(separator: "\n")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func addListRenameAndDeleteCompanies() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        #expect(try ok(employees, "company", "list") == ["(no companies)"])
        #expect(
            try ok(employees, "company", "add", "--name", "Acme", "--city", "Pune") == ["Company/1"]
        )
        #expect(try ok(employees, "company", "add", "--name=Globex") == ["Company/2"])
        try fails(
            employees, ["company", "add", "--name", "Acme"], status: 1,
            "a company named \"Acme\" already exists (Company/1); choose another name")
        try fails(
            employees, ["company", "add", "--name", " "], status: 2,
            "a company cannot be named \" \": the name is empty")
        try fails(
            employees, ["company", "add", "--name", "Company/12"], status: 2,
            "names of the form Company/N are company ids")
        #expect(
            try ok(employees, "company", "list") == [
                "ID         NAME    CITY  EMPLOYEES", "Company/1  Acme    Pune          0",
                "Company/2  Globex                0",
            ])
        let json = try companiesJSON(employees)
        #expect(json.map { $0["name"] as? String } == ["Acme", "Globex"])
        #expect(json[0]["city"] as? String == "Pune" && json[1]["city"] is NSNull)
        #expect(json[1]["employees"] as? Int == 0 && json[1]["id"] as? String == "Company/2")

        #expect(
            try ok(
                employees, "company", "rename", "globex", "--name", "Globex Corp", "--city",
                "Shanghai")
                == ["renamed Company/2: Globex → Globex Corp, city Shanghai"])
        try fails(
            employees, ["company", "rename", "Company/2", "--name", "Acme"], status: 1,
            "a company named \"Acme\" already exists (Company/1)")
        try fails(
            employees, ["company", "rename", "Initech", "--name", "X"], status: 1,
            "no company named \"Initech\" (run `employees company list` to see them)")
        try fails(
            employees, ["company", "delete", "Company/9"], status: 1,
            "no company with id Company/9")

        #expect(try ok(employees, "company", "add", "--name", "Initech") == ["Company/3"])
        #expect(try ok(employees, "company", "delete", "Initech") == ["deleted Company/3: Initech"])
        try fails(
            employees, ["company", "delete", "Company/3"], status: 1, "no company with id Company/3"
        )
        try employees.expectVerified()
    }

    @Test func aCompanyWithEmployeesIsDeletedOnlyWithReassignOrForce() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try ok(employees, "company", "add", "--name", "Acme")
        try ok(employees, "company", "add", "--name", "Globex")
        for name in ["Ann", "Bo"] {
            try ok(employees, "add", "--name", name, "--salary", "1", "--company", "Acme")
        }
        try fails(
            employees, ["company", "delete", "Acme"], status: 1,
            "Acme (Company/1) still has 2 employees, so it is not deleted; move them with "
                + "--reassign-to COMPANY, or use --force to delete it and leave them without a company"
        )
        try fails(
            employees, ["company", "delete", "Acme", "--reassign-to", "Acme"], status: 1,
            "cannot move the employees of Acme (Company/1) to itself")
        try fails(
            employees, ["company", "delete", "Acme", "--reassign-to", "Initech"], status: 1,
            "no company named \"Initech\"")
        #expect(
            try companiesJSON(employees).map { $0["employees"] as? Int } == [2, 0], "unchanged")
        try employees.expectVerified()

        #expect(
            try ok(employees, "company", "delete", "acme", "--reassign-to", "Company/2")
                == ["deleted Company/1: Acme; its 2 employees moved to Globex (Company/2)"])
        #expect(try ok(employees, "list", "--company", "Globex").count == 3)
        try employees.expectVerified()

        #expect(
            try ok(employees, "company", "delete", "Globex", "--force")
                == ["deleted Company/2: Globex; its 2 employees now have no company"])
        let list = try ok(employees, "list", "--json").joined(separator: "\n")
        #expect(list.components(separatedBy: "\"company\" : null").count == 3)
        try employees.expectVerified()
    }

    @Test func employeesJoinAndLeaveCompaniesByNameOrID() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try ok(employees, "company", "add", "--name", "Acme")
        try ok(employees, "company", "add", "--name", "ACME")
        try ok(employees, "company", "add", "--name", "Globex")
        let ann = try ok(
            employees, "add", "--name", "Ann Lee", "--salary", "2000000", "--company", "Acme")[0]
        let bo = try ok(employees, "add", "--name", "Bo", "--salary", "5", "--company", "globex")[0]
        try fails(
            employees, ["add", "--name", "Cy", "--salary", "1", "--company", "acme"], status: 1,
            "\"acme\" could be 2 companies: ACME (Company/2), Acme (Company/1); give the exact name or the id"
        )
        try fails(
            employees, ["add", "--name", "Cy", "--salary", "1", "--company", "Initech"], status: 1,
            "no company named \"Initech\"")
        try fails(
            employees, ["update", bo, "--company", "Company/99"], status: 1,
            "no company with id Company/99")
        try fails(employees, ["list", "--company", "Nope"], status: 1, "no company named \"Nope\"")
        #expect(
            try ok(employees, "list", "--json").joined().components(
                separatedBy: "\"name\" : \"Cy\""
            ).count == 1)

        #expect(
            try ok(employees, "update", bo, "--company", "Company/2")
                == ["updated \(bo): Bo, salary 5, company ACME"])
        #expect(
            try ok(employees, "update", ann, "--no-company") == [
                "updated \(ann): Ann Lee, salary 2000000"
            ])
        let acme = try ok(employees, "list", "--company", "ACME")
        #expect(acme.count == 2 && acme[1].hasPrefix(bo) && acme[1].contains(" ACME "))
        #expect(try ok(employees, "list", "--company", "Acme") == ["(no employees)"])
        let json = try ok(employees, "list", "--json", "--company", "Company/2").joined(
            separator: "\n")
        #expect(
            json.contains(
                "\"company\" : {\n      \"id\" : \"Company/2\",\n      \"name\" : \"ACME\"\n    }"))
        try employees.expectVerified()
    }

    @Test(arguments: [
        (["company"], "company needs a subcommand: add, list, rename or delete"),
        (["company", "hire"], "unknown company subcommand \"hire\""),
        (["company", "add", "--city", "Pune"], "company add needs --name"),
        (["company", "rename", "Acme"], "company rename needs --name (or --city)"),
        (["company", "delete"], "company delete needs a company id or name"),
        (
            ["company", "delete", "Acme", "--force", "--reassign-to", "B"],
            "--reassign-to or --force, not both"
        ),
        (["company", "list", "--where", "x"], "company list does not take --where"),
        (
            ["update", "Employee/1", "--company", "A", "--no-company"],
            "--company or --no-company, not both"
        ),
        (["list", "--company"], "--company needs a value"),
    ])
    func companyUsageErrorsExitWithTwo(arguments: [String], message: String) throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try fails(employees, arguments, status: 2, message)
    }
}
