import Foundation
import Testing

/// The subcommands end to end: the built executable on a real store in a temporary directory,
/// one process per command, so ids and data must survive between processes.
@Suite
struct StoreProcessTests {
    private struct Row: Decodable, Equatable {
        struct Company: Decodable, Equatable {
            var id: String
            var name: String
        }
        var id: String
        var name: String
        var designation: String
        var salary: Int64
        var company: Company?
    }

    private func listJSON(_ employees: EmployeesProcess, _ options: String...) throws -> [Row] {
        let result = try employees.run(
            ["list", "--json", "--store", employees.storePath] + options)
        try #require(result.status == 0, "list failed: \(result.standardError)")
        return try JSONDecoder().decode([Row].self, from: Data(result.standardOutput.utf8))
    }

    private func add(
        _ employees: EmployeesProcess, _ name: String, _ designation: String, _ salary: Int64
    )
        throws -> String
    {
        let result = try employees.runInStore(
            "add", "--name", name, "--designation", designation, "--salary", String(salary))
        try #require(result.status == 0, "add failed: \(result.standardError)")
        try #require(result.lines.count == 1)
        return result.lines[0]
    }

    @Test func addListUpdateDeleteAcrossProcesses() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        #expect(try listJSON(employees) == [])
        let ann = try add(employees, "Ann Lee", "Engineer", 2_000_000)
        let kevin = try add(employees, "Kevin Park", "Designer", 1_500_000)
        let maria = try add(employees, "Maria Garcia", "Support", 900_000)
        #expect(Set([ann, kevin, maria]).count == 3)
        #expect(
            try listJSON(employees).sorted { $0.name < $1.name } == [
                Row(id: ann, name: "Ann Lee", designation: "Engineer", salary: 2_000_000),
                Row(id: kevin, name: "Kevin Park", designation: "Designer", salary: 1_500_000),
                Row(id: maria, name: "Maria Garcia", designation: "Support", salary: 900_000),
            ])

        let update = try employees.runInStore("update", ann, "--salary", "3000000")
        #expect(update.status == 0, "\(update.standardError)")
        #expect(try listJSON(employees).first { $0.id == ann }?.salary == 3_000_000)

        let delete = try employees.runInStore("delete", kevin)
        #expect(delete.status == 0, "\(delete.standardError)")
        #expect(try listJSON(employees).map(\.id).sorted() == [ann, maria].sorted())

        let table = try employees.runInStore("list")
        #expect(table.status == 0)
        #expect(
            table.lines.contains { $0.contains("Ann Lee — Engineer") && $0.hasSuffix("3000000") })
        try employees.expectVerified()
    }

    @Test func listFiltersAndSorts() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        _ = try add(employees, "Ann Lee", "Engineer", 2_000_000)
        _ = try add(employees, "Kevin Park", "Designer", 1_500_000)
        _ = try add(employees, "Maria Garcia", "Support", 900_000)
        let rich = try listJSON(employees, "--where", "salary > 1000000", "--sort", "salary")
        #expect(rich.map(\.name) == ["Kevin Park", "Ann Lee"])
        let byName = try listJSON(employees, "--sort", "name", "--desc")
        #expect(byName.map(\.name) == ["Maria Garcia", "Kevin Park", "Ann Lee"])
        let bad = try employees.runInStore("list", "--where", "salary >")
        #expect(bad.status == 2)
        #expect(
            bad.standardError
                == "employees: cannot use filter \"salary >\": column 9: the predicate ends "
                + "where a value or key path was expected\n")
        let unknown = try employees.runInStore("list", "--where", "salary > 1_000 AND age > 3")
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("column 20: unknown field \"age\""))
        try employees.expectVerified()
    }

    @Test func storePathFromTheEnvironmentAndTheDefault() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let viaEnvironment = employees.directory.appendingPathComponent("env.logbook").path
        let added = try employees.run(
            ["add", "--name", "Env", "--salary", "1"],
            environment: ["LOGBOOK_EMPLOYEES_STORE": viaEnvironment])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(FileManager.default.fileExists(atPath: viaEnvironment))

        let viaDefault = try employees.run(["add", "--name", "Default", "--salary", "2"])
        #expect(viaDefault.status == 0, "\(viaDefault.standardError)")
        let defaultPath = employees.directory.appendingPathComponent(
            ".local/share/logbook/Employees.logbook"
        ).path
        #expect(FileManager.default.fileExists(atPath: defaultPath))

        let xdg = employees.directory.appendingPathComponent("xdg").path
        let viaXDG = try employees.run(
            ["add", "--name", "XDG", "--salary", "3"], environment: ["XDG_DATA_HOME": xdg])
        #expect(viaXDG.status == 0, "\(viaXDG.standardError)")
        #expect(FileManager.default.fileExists(atPath: xdg + "/logbook/Employees.logbook"))
    }

    @Test(arguments: [
        ["update", "Employee/999999", "--salary", "1"], ["delete", "Employee/999999"],
        ["delete", "nonsense"],
    ])
    func unknownIDExitsWithOne(arguments: [String]) throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        _ = try add(employees, "Ann Lee", "Engineer", 1)
        let result = try employees.run(["--store", employees.storePath] + arguments)
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("employees: no employee with id"))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func demoTellsTheStoryTwiceAddingTheSecondTime() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        for run in 1...2 {
            let result = try employees.runInStore("demo")
            #expect(result.status == 0, "run \(run): \(result.standardError)")
            #expect(result.standardError.isEmpty)
            #expect(
                result.lines[1]
                    == (run == 1
                        ? "The store is empty; the demo fills it."
                        : "The store already holds 2 employees and 2 companies; the demo adds "
                            + "to them (it uses Acme and Globex if they are there)."))
            #expect(result.standardOutput.contains("== 4. Edit Ann Lee: salary 2000000 → 3000000"))
            #expect(result.lines.contains { $0.contains("Ann Lee — Engineer, salary 3000000") })
            #expect(result.lines.contains { $0.hasPrefix("deleted ") && $0.contains("Kevin Park") })
            #expect(
                result.lines.contains { $0.contains("Acme (Company/1) still has \(run) employee") })
            // Step 9 shows the logbook tool's dump (built next to employees).
            let dump = result.lines.drop { !$0.hasPrefix("== 9.") }.dropFirst(2)
            #expect(dump.first?.hasPrefix("SEGMENT") == true)
            #expect(dump.contains { $0.contains("Employee") && $0.contains("3000000") })
            try employees.expectVerified()
        }
        // Each run adds three employees and deletes one; the companies are reused.
        let all = try listJSON(employees)
        #expect(all.count == 4)
        #expect(all.compactMap(\.company?.name) == ["Acme", "Globex", "Acme", "Globex"])
    }

    @Test func aStorePathThatCannotBeAStoreIsOneLineAndExitOne() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let file = employees.directory.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        for path in [file.path, file.path + "/inside/Employees.logbook"] {
            let result = try employees.run(["list", "--store", path])
            #expect(result.status == 1)
            #expect(result.standardError.hasPrefix("employees: "))
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }
}
