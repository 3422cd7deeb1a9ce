import Foundation
import TestSupport
import Testing

/// What each tool does with a torn tail (FORMAT.md, "Recovery", "What the tools do"; issue 40:
/// the help and the format did not say, and tools disagreed on whether to warn): it is not
/// damage, every tool warns once and exits 0 (`verify --strict` exits 1).
@Suite struct TornTailExitStatusTests {
    /// ObjectStores.employees, then a crash: the closing sync mark (25 bytes) and the end of the
    /// last commit are gone.
    private func tornStore(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let segment = try #require(segmentFiles(path).last)
        writeFile(segment, Array(readFile(segment).dropLast(25 + 3)))
        return path
    }

    /// The `warning:` lines of `text`.
    private func warnings(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.contains("warning:") }
    }

    @Test(arguments: [
        ["dump"], ["dump", "--format", "jsonl"], ["dump", "--live"], ["stats"],
        ["stats", "--format", "json"], ["export", "--format", "jsonl"],
        ["export", "--format", "sql"],
        ["history"], ["changes"],
    ])
    func aReadOnlyToolWarnsOnceAndExitsZero(_ command: [String]) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = try tornStore(dir)
        let before = segmentFiles(path).map(readFile)
        let result = try CLI.run([command[0], path] + command.dropFirst())
        #expect(!result.crashed)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        let lines = warnings(result.stderr)
        #expect(lines.count == 1, "\(command): \(result.stderr)")
        #expect(lines.first?.contains("torn tail") == true)
        #expect(segmentFiles(path).map(readFile) == before, "a read-only tool changes nothing")
    }

    @Test func verifyReportsAWarningAndExitsZeroUnlessStrict() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = try tornStore(dir)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 0)
        #expect(warnings(result.stdout).contains { $0.contains("torn tail") })
        let strict = try CLI.run(["verify", "--strict", path])
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("verify: DAMAGED"))
    }

    @Test(arguments: ["compact", "import"])
    func aToolThatWritesCutsTheTailWarnsOnceAndExitsZero(_ command: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = try tornStore(dir)
        var arguments = [command, path]
        if command == "import" {
            let file = dir.child("new.jsonl")
            writeFile(
                file,
                Array(
                    #"{"_entity": "Employee", "name": "Di", "designation": "", "salary": 1}"#.utf8)
                    + [10])
            arguments.append(file)
        }
        let result = try CLI.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = warnings(result.stderr)
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.contains("torn tail") == true)
        #expect(lines.first?.contains(".cut") == true)
        let verify = try CLI.run(["verify", path])
        #expect(verify.status == 0)
        #expect(!verify.stdout.contains("incomplete last commit"), "the writer cut it")
    }

    /// The other column of the table: damage before the end is an error, exit status 1, named
    /// as damage by every tool (import said the store had no schema).
    @Test(arguments: [
        ["dump"], ["verify"], ["stats"], ["export"], ["history"], ["changes"], ["compact"],
        ["import"],
    ])
    func damageElsewhereIsAnErrorForEveryTool(_ command: [String]) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let segment = try #require(segmentFiles(path).first)
        var bytes = readFile(segment)
        bytes[60] ^= 0x40  // in the first commit, which later marks vouch for
        writeFile(segment, bytes)
        var arguments = [command[0], path]
        if command[0] == "import" {
            let file = dir.child("new.jsonl")
            writeFile(file, Array(#"{"_entity": "Employee", "name": "Di"}"#.utf8) + [10])
            arguments.append(file)
        }
        let result = try CLI.run(arguments)
        #expect(result.status == 1, "\(command): \(result.stderr)")
        let said = (result.stdout + result.stderr).lowercased()
        #expect(said.contains("corrupt") || said.contains("damage"), "\(command): \(said)")
    }

    /// Without a torn tail, no command warns.
    @Test(arguments: [["dump"], ["stats"], ["export"], ["history"], ["changes"], ["compact"]])
    func aSoundStoreGivesNoWarning(_ command: [String]) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let result = try CLI.run([command[0], path] + command.dropFirst())
        #expect(result.status == 0)
        #expect(warnings(result.stderr).isEmpty, "\(command): \(result.stderr)")
    }

    /// Every tool's help says what it does with a torn tail and with which exit status.
    @Test func everyHelpStatesTheOutcome() throws {
        for name in [
            "dump", "verify", "stats", "compact", "export", "import", "history", "changes",
        ] {
            let help = try CLI.run(["help", name]).stdout.replacingOccurrences(of: "\n", with: " ")
            #expect(help.contains("torn tail"), "\(name)")
            #expect(help.contains("exit status") || help.contains("Exit status"), "\(name)")
        }
        let top = try CLI.run(["--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        #expect(top.contains("torn tail"))
    }
}
