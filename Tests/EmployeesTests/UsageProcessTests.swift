import Foundation
import Testing

/// The built executable's answers that need no store: help, and usage errors (exit status 2,
/// one line on stderr, nothing on stdout).
@Suite struct UsageProcessTests {
    @Test func helpPrintsUsage() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let result = try employees.run(["help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("employees add --name N"))
    }

    @Test func noArgumentsWithoutATerminalPrintsHelp() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let result = try employees.run([])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE"))
    }

    @Test(arguments: [
        (["add", "--name", "Ann", "--salary", "lots"], "salary must be a whole number ≥ 0"),
        (["add", "--name", "Ann", "--salary", "-1"], "salary must be a whole number ≥ 0"),
        (["list", "--bogus"], "unknown option --bogus"),
        (["frobnicate"], "unknown command"),
        (["update", "E1"], "update needs at least one of"),
    ])
    func usageErrorsExitWithTwo(arguments: [String], message: String) throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let result = try employees.run(["--store", employees.storePath] + arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("employees: "))
        #expect(result.standardError.contains(message))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}
