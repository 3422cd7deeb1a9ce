import Foundation
import TestSupport
import Testing

/// A store of 100,000 employees (20,000 in the default tier) on a pseudo-terminal: the screen
/// opens on it, pages, jumps to the end and searches; a long `list` (of 8,000 employees in the
/// default tier: the line is drawn every 1,024 rows) shows its progress on a terminal's standard
/// error, and only there.
@Suite(.serialized) struct LargeStoreTerminalTests {
    static let count = TestTier.pick(quick: 20_000, long: 100_000)
    static let listCount = TestTier.pick(quick: 8_000, long: 100_000)

    private func makeStore(_ count: Int = Self.count) throws -> EmployeesProcess {
        let employees = try EmployeesProcess()
        try LargeStore.make(at: employees.storePath, employees: count)
        return employees
    }

    @Test func theScreenOpensPagesAndSearchesALargeStore() throws {
        let employees = try makeStore()
        defer { employees.removeDirectory() }
        let terminal = try PseudoTerminal()
        let process = try employees.startScreen(on: terminal)
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        func row(_ n: Int) -> (String) -> Bool {
            { text in text.contains("> Person \(n) — Staff") }
        }

        // First frame: the count, the first rows, the first selected.
        #expect(
            terminal.read(until: { $0.contains("\(Self.count) employees") && $0.contains("q quit") }
            ),
            "\(terminal.drawnLines)")
        #expect(terminal.read(until: row(1)))
        #expect(terminal.drawnLines.contains { $0.contains("Person 2 — Staff") })

        terminal.type("\u{1B}[6~\u{1B}[6~")  // Page Down twice
        #expect(terminal.read(until: row(21)), "\(terminal.drawnLines)")
        terminal.type("G")
        #expect(terminal.read(until: row(Self.count)), "\(terminal.drawnLines)")

        terminal.type("/salary > \(Self.count - 10) AND name ENDSWITH '5'\r")
        #expect(
            terminal.read(until: { $0.contains("1 employee matches.") }), "\(terminal.drawnLines)")
        #expect(terminal.read(until: row(Self.count - 5)))
        terminal.type("/\u{15}salary >\r")  // Ctrl-U clears the field, which shows the search
        #expect(
            terminal.read(until: { $0.contains("filter \"salary >\": column 9") }),
            "\(terminal.drawnLines)")
        terminal.type("\u{1B}")  // back from the field, the search still shown
        terminal.type("\u{1B}")  // drop the search
        #expect(terminal.read(until: { $0.contains("Showing every employee.") }))
        terminal.type("q")
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { terminal.drain(waitingMilliseconds: 50) }
        #expect(!process.isRunning)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(terminal.isCooked)
    }

    /// `list` with its rows in a file and its standard error on `terminal`.
    private func list(
        _ employees: EmployeesProcess, _ options: [String], on terminal: PseudoTerminal,
        into file: String
    ) throws -> Int32 {
        let process = Process()
        process.executableURL = employees.executable
        process.arguments = ["--store", employees.storePath, "list"] + options
        process.environment = [
            "HOME": employees.directory.path, "EMPLOYEES_PROGRESS_AFTER_MS": "0",
        ]
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        process.standardError = terminal.secondaryHandle
        try process.run()
        while process.isRunning { terminal.drain(waitingMilliseconds: 50) }
        process.waitUntilExit()
        terminal.drain()
        return process.terminationStatus
    }

    @Test func progressGoesToATerminalsStandardErrorOnly() throws {
        let employees = try makeStore(Self.listCount)
        defer { employees.removeDirectory() }
        let table = employees.directory.appendingPathComponent("table").path
        let terminal = try PseudoTerminal()
        #expect(try list(employees, [], on: terminal, into: table) == 0)
        let shown = terminal.text
        #expect(shown.contains("\r\u{1B}[Klist: "), "\(shown.suffix(300))")
        #expect(shown.contains(" of \(Self.listCount) employees, "))
        #expect(shown.hasSuffix("\r\u{1B}[K"), "erased at the end")
        let rows = try String(contentsOfFile: table, encoding: .utf8)
        #expect(rows.split(separator: "\n").count == Self.listCount + 1)
        #expect(!rows.contains("\u{1B}"), "none of it in the output")

        let json = employees.directory.appendingPathComponent("json").path
        let quiet = try PseudoTerminal()
        #expect(try list(employees, ["--json"], on: quiet, into: json) == 0)
        #expect(quiet.text.isEmpty, "never for JSON: \(quiet.text.prefix(200))")

        // Standard error that is not a terminal (what every other process test uses).
        let piped = try employees.run(
            [
                "--store", employees.storePath, "list", "--where",
                "salary > \(Self.listCount - 1000)",
            ],
            environment: ["EMPLOYEES_PROGRESS_AFTER_MS": "0"])
        #expect(piped.status == 0 && piped.standardError.isEmpty)
        #expect(piped.lines.count == 1001)
    }
}
