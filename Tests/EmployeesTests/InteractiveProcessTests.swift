import Foundation
import Testing

@testable import employees

/// The interactive screen in the built executable, on a pseudo-terminal: keys typed in,
/// drawn text read back, the store checked with `list --json` afterwards.
@Suite
struct InteractiveProcessTests {
    private static let enteredRawMode = "\u{1B}[?1049h"
    private static let leftRawMode = "\u{1B}[?1049l"

    /// Starts `employees --store …` (no subcommand) on `terminal`.
    private func start(_ employees: EmployeesProcess, on terminal: PseudoTerminal) throws -> Process
    {
        let process = try employees.startScreen(on: terminal)
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

        terminal.type("aAnn Lee\tEngineer\t2000000\r\r")
        #expect(terminal.read(until: { $0.contains("Added Ann Lee.") }), "\(terminal.drawnLines)")
        terminal.type("aKevin Park\tDesigner\t1500000\r\r")
        #expect(terminal.read(until: { $0.contains("Added Kevin Park.") }))
        // The seed's edit: select Ann, raise her salary 2000000 → 3000000.
        terminal.type("k\r\t\t\u{15}3000000\r\r")
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
        try employees.expectVerified()
    }

    @Test func theCompanyPickerAndTheCompaniesScreen() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        for arguments in [
            ["company", "add", "--name", "Acme"], ["company", "add", "--name", "Globex"],
            ["add", "--name", "Ann Lee", "--salary", "1", "--company", "Acme"],
        ] {
            #expect(try employees.run(["--store", employees.storePath] + arguments).status == 0)
        }
        let terminal = try PseudoTerminal()
        let process = try start(employees, on: terminal)

        // The form's company picker: Space opens it, typing narrows it, Enter picks.
        terminal.type("aMaria\t\t9\t ")
        #expect(terminal.read(until: { $0.contains("Choose a company") }), "\(terminal.drawnLines)")
        terminal.type("glo")
        #expect(terminal.read(until: { $0.contains("Search: glo") }))
        terminal.type("\r")
        #expect(terminal.read(until: { $0.contains("‹ Globex ›") }))
        terminal.type("\r")
        #expect(terminal.read(until: { $0.contains("Added Maria.") }))

        // The companies screen: Acme still has Ann, so the store refuses; m moves her.
        terminal.type("c")
        #expect(terminal.read(until: { $0.contains("2 companies") }))
        terminal.type("dy")
        #expect(terminal.read(until: { $0.contains("Acme still has 1 employee; not deleted.") }))
        terminal.type("m")
        #expect(terminal.read(until: { $0.contains("Move the employees of Acme to") }))
        terminal.type("\r")
        #expect(
            terminal.read(until: { $0.contains("Deleted Acme; its 1 employee moved to Globex.") }))
        terminal.type("aInitech\tAustin\r")
        #expect(terminal.read(until: { $0.contains("Added Initech.") }))
        terminal.type("\u{1B}")
        #expect(terminal.read(until: { $0.contains("c companies") && $0.contains("2 employees") }))
        terminal.type("q")
        waitForExit(process, terminal)
        #expect(process.terminationStatus == 0)

        let list = try employees.runInStore("list", "--company", "Globex")
        #expect(list.lines.count == 3, "\(list.lines)")
        let companies = try employees.runInStore("company", "list")
        #expect(
            companies.lines.map { $0.split(separator: " ").dropFirst().first } == [
                "NAME", "Globex", "Initech",
            ])
        try employees.expectVerified()
    }

    @Test func cursorEditingAndAWideCharacterRow() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let added = try employees.runInStore("add", "--name", "Ann", "--salary", "42")
        #expect(added.status == 0)
        let terminal = try PseudoTerminal()
        let process = try start(employees, on: terminal)
        let left = "\u{1B}[D"
        let home = "\u{1B}[H"
        let end = "\u{1B}[F"
        let delete = "\u{1B}[3~"

        terminal.type("a李小龙")
        // The cursor is drawn after two columns per character: row 3, column 4 + 13 + 6.
        #expect(
            terminal.read(until: { $0.contains("\u{1B}[3;23H\u{1B}[?25h") }), "\(terminal.text)")
        terminal.type(left + left + "x" + home + "(" + end + ")")
        #expect(terminal.read(until: { $0.contains("(李x小龙)") }))
        terminal.type(left + delete + home + delete + end + left + left + "\u{7F}")
        #expect(
            terminal.read(until: { $0.contains("Name:        李小龙 ") }), "\(terminal.drawnLines)")
        terminal.type("\tMartial artist\t1200000\r\r")
        #expect(terminal.read(until: { $0.contains("Added 李小龙.") }))
        let rows = terminal.drawnRows
        let ann = try #require(rows.values.first { $0.contains("Ann") })
        let bruce = try #require(rows.values.first { $0.contains("李小龙 — Martial artist") })
        #expect(ann.displayWidth == 60 && bruce.displayWidth == 60, "\(ann)|\(bruce)")
        #expect(ann.hasSuffix("     42 ") && bruce.hasSuffix("1200000 "))
        terminal.type("q")
        waitForExit(process, terminal)
        let list = try employees.runInStore("list", "--json")
        #expect(list.standardOutput.contains("\"name\" : \"李小龙\""))
        try employees.expectVerified()
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
        terminal.type("aAnn Lee\tEngineer\t2000000\r\r")
        #expect(terminal.read(until: { $0.contains("Added Ann Lee.") }))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let list = try employees.runInStore("list", "--json")
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("\"name\" : \"Ann Lee\""))
    }
}
