import Foundation
import Testing

/// Issue 40's reproducer: a filter nested ten thousand deep ends `employees list` with a clean
/// error (exit status 2, naming the column), not a crash of the stack (exit status 139).
@Suite struct DeepFilterProcessTests {
    @Test(arguments: [
        String(repeating: "NOT ", count: 10_000) + "salary > 1",
        String(repeating: "(", count: 10_000) + "salary > 1"
            + String(repeating: ")", count: 10_000),
        "salary IN " + String(repeating: "{", count: 10_000) + "1"
            + String(repeating: "}", count: 10_000),
    ])
    func aDeeplyNestedFilterIsRefusedCleanly(_ filter: String) throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let add = try employees.runInStore(
            "add", "--name", "Ann", "--designation", "Engineer", "--salary", "5")
        try #require(add.status == 0, "\(add.standardError)")
        let result = try employees.run(
            ["list", "--store", employees.storePath, "--where", filter],
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(result.status == 2, "\(result.standardError.prefix(300))")
        #expect(result.standardError.contains("column"))
        #expect(result.standardError.count < 600, "the filter is not echoed whole")
        // A chain as long as a command line allows is fine.
        let chain = Array(repeating: "salary > 1", count: 8_000).joined(separator: " OR ")
        let listed = try employees.run(["list", "--store", employees.storePath, "--where", chain])
        #expect(listed.status == 0, "\(listed.standardError.prefix(300))")
        #expect(listed.standardOutput.contains("Ann"))
    }
}
