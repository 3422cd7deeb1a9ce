import Foundation
import Testing

/// The interactive screen in the built executable, on a pseudo-terminal: keys typed in,
/// drawn text read back, the store checked with `list --json` afterwards.
@Suite
struct InteractiveProcessTests {
    private static let enteredRawMode = "\u{1B}[?1049h"
    private static let leftRawMode = "\u{1B}[?1049l"

    /// Starts `employees --store …` (no subcommand) on `terminal`.
    private func start(_ employees: EmployeesProcess, on terminal: PseudoTerminal) throws -> Process
    {
        let process = Process()
        process.executableURL = employees.executable
        process.arguments = ["--store", employees.storePath]
        process.environment = ["HOME": employees.directory.path, "TERM": "xterm"]
        process.standardInput = terminal.secondaryHandle
        process.standardOutput = terminal.secondaryHandle
        process.standardError = terminal.secondaryHandle
        try process.run()
        try #require(
            terminal.read(until: { $0.contains(Self.enteredRawMode) && $0.contains("q quit") }),
            "the screen did not start: \(terminal.text)")
        return process
    }

    private func waitForExit(_ process: Process, _ terminal: PseudoTerminal) {
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { terminal.drain(waitingMilliseconds: 50) }
        if process.isRunning {
            Issue.record("employees did not exit; killing it. Screen: \(terminal.drawnLines)")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        terminal.drain()
    }

    @Test func addEditAndDeleteFromTheKeyboardAreSavedAtOnce() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let terminal = try PseudoTerminal()
        let process = try start(employees, on: terminal)

        terminal.type("aAnn Lee\tEngineer\t2000000\r")
        #expect(terminal.read(until: { $0.contains("Added Ann Lee.") }), "\(terminal.drawnLines)")
        terminal.type("aKevin Park\tDesigner\t1500000\r")
        #expect(terminal.read(until: { $0.contains("Added Kevin Park.") }))
        // The seed's edit: select Ann, raise her salary 2000000 → 3000000.
        terminal.type("k\r\t\t\u{15}3000000\r")
        #expect(terminal.read(until: { $0.contains("Saved Ann Lee.") }))
        #expect(
            terminal.drawnLines.contains {
                $0.contains("Ann Lee — Engineer") && $0.hasSuffix("3000000")
            })
        terminal.type("jd")
        #expect(terminal.read(until: { $0.contains("Delete Kevin Park — Designer? (y/n)") }))
        terminal.type("y")
        #expect(terminal.read(until: { $0.contains("Deleted Kevin Park.") }))
        terminal.type("q")
        waitForExit(process, terminal)

        #expect(process.terminationStatus == 0)
        #expect(terminal.text.hasSuffix(Self.leftRawMode))
        #expect(terminal.isCooked)
        let list = try employees.runInStore("list", "--json")
        #expect(list.standardOutput.contains("\"salary\" : 3000000"))
        #expect(!list.standardOutput.contains("Kevin"))
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let terminal = try PseudoTerminal()
        let process = try start(employees, on: terminal)
        #expect(!terminal.isCooked)
        process.terminate()
        waitForExit(process, terminal)
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(terminal.text.hasSuffix(Self.leftRawMode))
        #expect(terminal.isCooked)
    }

    @Test func aSecondProcessGetsALockedStoreError() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let terminal = try PseudoTerminal()
        let process = try start(employees, on: terminal)
        let locked = try employees.runInStore("add", "--name", "Late", "--salary", "1")
        #expect(locked.status == 1)
        #expect(locked.standardOutput.isEmpty)
        #expect(locked.standardError.contains("is open in another process"))
        #expect(locked.standardError.split(separator: "\n").count == 1)
        terminal.type("q")
        waitForExit(process, terminal)
        #expect(try employees.runInStore("add", "--name", "Late", "--salary", "1").status == 0)
    }

    @Test func aKilledSessionLosesNothingItSaved() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let terminal = try PseudoTerminal()
        let process = try start(employees, on: terminal)
        terminal.type("aAnn Lee\tEngineer\t2000000\r")
        #expect(terminal.read(until: { $0.contains("Added Ann Lee.") }))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let list = try employees.runInStore("list", "--json")
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("\"name\" : \"Ann Lee\""))
    }
}
