import Foundation
import TestSupport
import Testing

/// `employees list` on a store whose employees hold more bytes than the process may use: the
/// child runs under `ulimit -d` (RLIMIT_DATA — heap and anonymous memory; the store's segment
/// files, which the engine maps, do not count), so a `list` that held the employees, or built
/// its table in memory, would fail to allocate instead of finishing.
@Suite(.serialized) struct LargeListProcessTests {
    /// Employees with names of 16 KiB: 2,250 in the default tier (36 MiB of names), 3,000 in the
    /// long one (48 MiB).
    static let count = TestTier.pick(quick: 2_250, long: 3_000)
    static let nameBytes = 16 << 10
    /// The limit, in KiB: two thirds of the bytes of the names (half in the long tier).
    static let limitKiB = 24 << 10

    /// The large store, built once for the suite's tests; each gets a copy.
    private static let largeStore = StoreTemplate("large-list") {
        try LargeStore.make(at: $0, employees: count, nameBytes: nameBytes)
    }

    /// A process directory with a copy of the large store in it.
    private static func makeStore() throws -> EmployeesProcess {
        let employees = try EmployeesProcess()
        try largeStore.copy(to: employees.storePath)
        return employees
    }

    /// Runs `employees --store … arguments…` under the limit, its output in `output`.
    private static func runLimited(
        _ employees: EmployeesProcess, _ arguments: [String], output: String,
        environment: [String: String] = [:]
    ) throws -> EmployeesProcess.Result {
        try employees.run(
            [
                "-c", "ulimit -d \(limitKiB) && exec \"$@\" > \"$OUT\"", "sh",
                employees.executable.path, "--store", employees.storePath,
            ] + arguments, environment: environment.merging(["OUT": output]) { a, _ in a },
            tool: URL(fileURLWithPath: "/bin/sh"))
    }

    private static func lines(_ path: String) throws -> [Substring] { readLines(path) }

    @Test func theTableAndTheJSONStreamThroughAStoreLargerThanTheirMemory() throws {
        let employees = try Self.makeStore()
        defer { employees.removeDirectory() }
        let table = employees.directory.appendingPathComponent("table").path
        let result = try Self.runLimited(employees, ["list"], output: table)
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try Self.lines(table)
        try #require(rows.count == Self.count + 1)
        // Every row as wide as the widest: the name column is padded to the longest title.
        #expect(Set(rows.dropFirst().map { $0.utf8.count }).count <= 2, "aligned")
        for n in [1, 2, 1500, Self.count] {
            let name = LargeStore.name(n, nameBytes: Self.nameBytes)
            let company = LargeStore.company(of: n).map { LargeStore.companyNames[$0] } ?? ""
            let row = rows[n]
            #expect(row.hasPrefix("Employee/\(n) "), "row \(n)")
            #expect(row.contains("  \(name) — Staff  "), "row \(n)")
            #expect(row.hasSuffix(" \(n)") && row.contains("  \(company)"), "row \(n)")
        }

        let json = employees.directory.appendingPathComponent("json").path
        let jsonResult = try Self.runLimited(
            employees, ["list", "--json", "--sort", "salary", "--desc"], output: json)
        #expect(jsonResult.status == 0, "\(jsonResult.standardError)")
        let objects =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json)))
            as? [[String: Any]] ?? []
        #expect(objects.count == Self.count)
        #expect(objects.map { $0["salary"] as? Int ?? 0 } == Array((1...Self.count).reversed()))
        #expect(objects.last?["name"] as? String == LargeStore.name(1, nameBytes: Self.nameBytes))

        let acme = employees.directory.appendingPathComponent("acme").path
        let acmeResult = try Self.runLimited(
            employees, ["list", "--company", "Acme", "--where", "salary <= 100"], output: acme)
        #expect(acmeResult.status == 0, "\(acmeResult.standardError)")
        let expected = (1...100).filter { LargeStore.company(of: $0) == 0 }
        #expect(
            try Self.lines(acme).dropFirst().map { $0.prefix { $0 != " " } }
                == expected.map { "Employee/\($0)"[...] })
    }

    /// A filtered list of the large store (36 MiB of records; 48 in the long tier) keeps a few MiB of the store in
    /// memory, measured as peak resident memory (mapped file pages included, as GNU time reports
    /// it) above the same list of a store of ten employees. Its scan drops the log behind it;
    /// it reads its matches by key, and each read maps a block of the store around its record
    /// (the kernel's fault-around), so the reads release the store's mapped pages every few
    /// employees; and the close that writes the segment's hint drops the pages it has read.
    /// Before, 2,000 matches read by key stayed mapped, and so did the whole segment after the
    /// hint was written.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func aFilteredListKeepsLittleOfTheStoreMapped() throws {
        let large = try Self.makeStore()
        defer { large.removeDirectory() }
        let small = try EmployeesProcess()
        defer { small.removeDirectory() }
        try LargeStore.make(at: small.storePath, employees: 10)
        func peakKiB(_ employees: EmployeesProcess, _ filter: String) throws -> Int {
            let result = try employees.run(
                [
                    "-c", "exec /usr/bin/time -f %M \"$@\" 2>&1 >/dev/null", "sh",
                    employees.executable.path, "--store", employees.storePath, "list", "--where",
                    filter, "--sort", "salary",
                ], tool: URL(fileURLWithPath: "/bin/sh"))
            let figure = result.standardOutput.split(separator: "\n").last.flatMap { Int($0) }
            return try #require(figure, "\(result.standardOutput) \(result.standardError)")
        }
        let base = try peakKiB(small, "salary < 0")
        for filter in ["salary < 0", "salary > 1000"] {
            let peak = try peakKiB(large, filter)
            #expect(
                peak - base <= 16 << 10,
                "\(filter): \(peak >> 10) MiB, \(base >> 10) MiB on ten employees")
        }
    }

    @Test func aTableThatCannotKeepItsRowsSaysWhereAndWhy() throws {
        let employees = try Self.makeStore()
        defer { employees.removeDirectory() }
        let missing = employees.directory.appendingPathComponent("no-such-directory").path
        // A sorted list keeps its rows to size the columns (a plain one reads the store twice).
        let result = try Self.runLimited(
            employees, ["list", "--sort", "salary"], output: "/dev/null",
            environment: ["TMPDIR": missing])
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "employees: cannot write the output: cannot make the temporary file that "
                + "holds the rows in \(missing) (No such file or directory); set TMPDIR to a "
                + "directory with room\n")
        // JSON, and the table of every employee by id, keep nothing: they need no temporary file.
        for arguments in [["list", "--json"], ["list"]] {
            let kept = try Self.runLimited(
                employees, arguments, output: "/dev/null", environment: ["TMPDIR": missing])
            #expect(kept.status == 0, "\(arguments): \(kept.standardError)")
        }
    }

    @Test func outputThatCannotBeWrittenIsAnError() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try LargeStore.make(at: employees.storePath, employees: 5000)
        for arguments in [["list"], ["list", "--json"], ["company", "list"]] {
            let result = try employees.run(
                [
                    "-c", "exec \"$@\" > /dev/full", "sh", employees.executable.path, "--store",
                    employees.storePath,
                ] + arguments, tool: URL(fileURLWithPath: "/bin/sh"))
            #expect(result.status == 1, "\(arguments)")
            #expect(
                result.standardError
                    == "employees: cannot write the output: No space left on device\n",
                "\(arguments)")
        }
    }
}
