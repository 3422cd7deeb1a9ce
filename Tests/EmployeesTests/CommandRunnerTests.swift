import Foundation
import Testing

@testable import employees

/// The subcommands on a repository in-process: what they print and what they change.
@Suite struct CommandRunnerTests {
    private final class Output {
        var lines: [String] = []
    }

    private func run(_ arguments: String..., on store: TemporaryRepository)
        throws(EmployeesError) -> [String]
    {
        let output = BufferedOutput()
        let runner = CommandRunner(repository: store.repository, output: output)
        try runner.run(try ArgumentParser.parse(arguments).command)
        return output.lines
    }

    private func sample() throws -> TemporaryRepository {
        try TemporaryRepository(companies: DemoStory.companies, employees: DemoStory.employees)
    }

    @Test func addPrintsTheNewID() throws {
        let store = try TemporaryRepository()
        #expect(try run("add", "--name", "Ann", "--salary", "5", on: store) == ["Employee/1"])
        #expect(try store.repository.employee(id: "Employee/1").designation == "")
        #expect(try store.repository.employee(id: "Employee/1").company == nil)
    }

    @Test func listPrintsATableWithTheCompany() throws {
        let lines = try run("list", on: try sample())
        #expect(
            lines == [
                "ID          NAME — DESIGNATION      COMPANY   SALARY",
                "Employee/1  Ann Lee — Engineer      Acme     2000000",
                "Employee/2  Kevin Park — Designer   Acme     1500000",
                "Employee/3  Maria Garcia — Support  Globex    900000",
            ])
    }

    @Test func tablesStayAlignedWithWideCharacters() throws {
        let store = try TemporaryRepository(
            companies: [CompanyDraft(name: "北京公司", city: "北京")],
            employees: [
                EmployeeDraft(
                    name: "李小龙", designation: "Martial artist", salary: 1, company: "北京公司"),
                EmployeeDraft(name: "Zoë 👩‍💻", designation: "Engineer", salary: 22),
                EmployeeDraft(name: "Ann", designation: "", salary: 333),
            ])
        let employees = try run("list", on: store)
        // Spelled out: 李, 小, 龙, 北, 京, 公, 司 and 👩‍💻 take two columns each.
        #expect(
            employees == [
                "ID          NAME — DESIGNATION       COMPANY   SALARY",
                "Employee/1  李小龙 — Martial artist  北京公司       1",
                "Employee/2  Zoë 👩‍💻 — Engineer                      22",
                "Employee/3  Ann                                   333",
            ])
        #expect(Set(employees.map(\.displayWidth)).count == 1, "\(employees)")
        // The company column starts at the same terminal column on every row.
        func column(of text: String, in line: String) -> Int? {
            line.range(of: text).map { String(line[..<$0.lowerBound]).displayWidth }
        }
        let start = column(of: "COMPANY", in: employees[0])
        #expect(start != nil && column(of: "北京公司", in: employees[1]) == start)
        let companies = try run("company", "list", on: store)
        #expect(
            companies == [
                "ID         NAME      CITY  EMPLOYEES", "Company/1  北京公司  北京          1",
            ])
        #expect(Set(companies.map(\.displayWidth)).count == 1, "\(companies)")
    }

    @Test func listJSONHasTheCompany() throws {
        let lines = try run(
            "list", "--json", "--where", "salary > 1000000", "--sort", "salary", on: try sample())
        let data = Data(lines.joined(separator: "\n").utf8)
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(objects.map { $0["name"] as? String } == ["Kevin Park", "Ann Lee"])
        #expect(objects.first?["salary"] as? Int == 1_500_000)
        #expect(objects.first?["id"] as? String == "Employee/2")
        #expect(objects.first?["designation"] as? String == "Designer")
        let company = try #require(objects.first?["company"] as? [String: String])
        #expect(company == ["id": "Company/1", "name": "Acme"])
    }

    @Test func listJSONSaysNullForNoCompany() throws {
        let store = try TemporaryRepository(employees: [
            EmployeeDraft(name: "Ann", designation: "", salary: 1)
        ])
        let text = try run("list", "--json", on: store).joined(separator: "\n")
        #expect(text.contains("\"company\" : null"))
    }

    @Test func emptyListsSaySo() throws {
        let store = try TemporaryRepository()
        #expect(try run("list", "--json", on: store) == ["[]"])
        #expect(try run("list", on: store) == ["(no employees)"])
        #expect(try run("company", "list", "--json", on: store) == ["[]"])
        #expect(try run("company", "list", on: store) == ["(no companies)"])
    }

    @Test func listByCompany() throws {
        let store = try sample()
        let acme = try run("list", "--company", "acme", "--sort", "salary", on: store)
        #expect(acme.dropFirst().map { String($0.prefix(10)) } == ["Employee/2", "Employee/1"])
        let globex = try run("list", "--company", "Company/2", "--json", on: store).joined()
        #expect(globex.contains("Maria Garcia") && !globex.contains("Ann Lee"))
    }

    @Test func sortDescending() throws {
        let lines = try run("list", "--sort", "name", "--desc", on: try sample())
        #expect(
            lines.dropFirst().map { String($0.prefix(10)) } == [
                "Employee/3", "Employee/2", "Employee/1",
            ])
    }

    @Test func updateAndDeleteSayWhatTheyDid() throws {
        let store = try sample()
        #expect(
            try run("update", "Employee/1", "--salary", "3000000", on: store) == [
                "updated Employee/1: Ann Lee — Engineer, salary 3000000, company Acme"
            ])
        #expect(
            try run("update", "Employee/1", "--no-company", on: store) == [
                "updated Employee/1: Ann Lee — Engineer, salary 3000000"
            ])
        #expect(
            try run("delete", "Employee/2", on: store) == [
                "deleted Employee/2: Kevin Park — Designer"
            ])
        #expect(try store.repository.all().map(\.id) == ["Employee/1", "Employee/3"])
    }

    @Test func companyCommandsSayWhatTheyDid() throws {
        let store = try sample()
        #expect(try run("company", "add", "--name", "Initech", on: store) == ["Company/3"])
        #expect(
            try run("company", "list", on: store) == [
                "ID         NAME     CITY      EMPLOYEES",
                "Company/1  Acme     Pune              2",
                "Company/2  Globex   Shanghai          1",
                "Company/3  Initech                    0",
            ])
        #expect(
            try run(
                "company", "rename", "Initech", "--name", "Initrode", "--city", "Austin", on: store)
                == ["renamed Company/3: Initech → Initrode, city Austin"])
        #expect(
            try run("company", "rename", "Company/3", "--city", "", on: store)
                == ["updated Company/3: Initrode, no city"])
        #expect(
            try run("company", "delete", "Initrode", on: store) == ["deleted Company/3: Initrode"])
        #expect(
            try run("company", "delete", "Acme", "--reassign-to", "Globex", on: store) == [
                "deleted Company/1: Acme; its 2 employees moved to Globex (Company/2)"
            ])
        #expect(
            try run("company", "delete", "Globex", "--force", on: store) == [
                "deleted Company/2: Globex; its 3 employees now have no company"
            ])
        #expect(try store.repository.all().allSatisfy { $0.company == nil })
    }

    @Test func theDenyRuleIsARuntimeErrorWithTheCount() throws {
        let store = try sample()
        #expect(
            throws: EmployeesError.companyHasEmployees(
                CompanyLink(id: "Company/1", name: "Acme"), count: 2)
        ) {
            try run("company", "delete", "Acme", on: store)
        }
        #expect(
            EmployeesError.companyHasEmployees(CompanyLink(id: "Company/1", name: "Acme"), count: 2)
                .exitCode == 1)
        #expect(try store.repository.companies().count == 2)
    }

    @Test func unknownIDIsARuntimeError() throws {
        #expect(throws: EmployeesError.unknownEmployee(id: "Employee/9")) {
            try run("delete", "Employee/9", on: try sample())
        }
        #expect(EmployeesError.unknownEmployee(id: "E9").exitCode == 1)
    }

    @Test func demoTellsTheSeedsStory() throws {
        let store = try TemporaryRepository()
        let output = Output()
        try DemoStory(
            repository: store.repository, print: { output.lines.append($0) }, dumpStore: nil
        ).run()
        let text = output.lines.joined(separator: "\n")
        #expect(output.lines.first == "The store is empty; the demo fills it.")
        #expect(text.contains("$ employees company add --name Acme --city Pune\nCompany/1"))
        #expect(
            text.contains(
                "$ employees add --name 'Ann Lee' --designation Engineer --salary 2000000 --company Acme\nEmployee/1"
            ))
        #expect(text.contains("salary 2000000 → 3000000"))
        #expect(
            text.contains("updated Employee/1: Ann Lee — Engineer, salary 3000000, company Acme"))
        #expect(
            text.contains(
                "updated Employee/2: Kevin Park — Designer, salary 1500000, company Globex"))
        #expect(
            text.contains("employees: Acme (Company/1) still has 1 employee, so it is not deleted"))
        #expect(text.contains("deleted Employee/2: Kevin Park — Designer"))
        #expect(output.lines.filter { $0.hasPrefix("== ") }.count == 9)
        #expect(output.lines.suffix(2).joined().contains("skipped: the logbook tool is not built"))
        #expect(try store.repository.all().map(\.name) == ["Ann Lee", "Maria Garcia"])
        #expect(try store.repository.companies().map(\.employeeCount) == [1, 1])
    }

    @Test func aSecondDemoSaysItAddsAndReusesTheCompanies() throws {
        let store = try TemporaryRepository()
        try DemoStory(repository: store.repository, print: { _ in }, dumpStore: nil).run()
        let output = Output()
        try DemoStory(
            repository: store.repository, print: { output.lines.append($0) }, dumpStore: nil
        ).run()
        #expect(
            output.lines.first
                == "The store already holds 2 employees and 2 companies; the demo adds to them (it uses Acme and Globex if they are there)."
        )
        #expect(
            output.lines.contains("Acme is in the store already (Company/1); the demo uses it."))
        #expect(output.lines.contains { $0.contains("Acme (Company/1) still has 2 employees") })
        #expect(try store.repository.all().count == 4)
        #expect(try store.repository.companies().map(\.id) == ["Company/1", "Company/2"])
    }

    @Test func reportAnswersTheSeedsQuestions() throws {
        let store = try sample()
        _ = try run(
            "add", "--name", "Zoe Ray", "--designation", "Engineer", "--salary", "1000000",
            on: store)
        #expect(
            try run("report", on: store) == [
                "              EMPLOYEES  TOTAL SALARY  AVERAGE SALARY",
                "All           4          5400000              1350000",
                "",
                "COMPANY       EMPLOYEES  TOTAL SALARY  AVERAGE SALARY",
                "Acme          2          3500000              1750000",
                "(no company)  1          1000000              1000000",
                "Globex        1          900000                900000",
                "",
                "DESIGNATION   EMPLOYEES  TOTAL SALARY  AVERAGE SALARY",
                "Engineer      2          3000000              1500000",
                "Designer      1          1500000              1500000",
                "Support       1          900000                900000",
            ])
        // The same numbers as the records give, computed by the app itself.
        #expect(try store.repository.report() == EmployeeReport(store.repository.all()))
        let json = try run("report", "--json", on: store).joined(separator: "\n")
        #expect(json.contains("\"totalSalary\" : 5400000"))
    }

    @Test func listSearchFindsNamesIgnoringCaseAndAccents() throws {
        let store = try sample()
        _ = try run("add", "--name", "José Müller", "--salary", "10", on: store)
        let found = try run("list", "--search", "jose", on: store)
        #expect(found.count == 2 && found[1].hasPrefix("Employee/4  José Müller"), "\(found)")
        let ids = { (lines: [String]) in lines.dropFirst().map { String($0.prefix(10)) } }
        #expect(ids(try run("list", "--search", "MULLER", on: store)) == ["Employee/4"])
        #expect(ids(try run("list", "--search", "mar*", on: store)) == ["Employee/3"])
        #expect(ids(try run("list", "--search", "\"ann lee\"", on: store)) == ["Employee/1"])
        #expect(
            ids(try run("list", "--search", "a*", "--where", "salary > 1000000", on: store))
                == ["Employee/1"])
        #expect(try run("list", "--search", "nobody", on: store) == ["(no employees)"])
    }
}
