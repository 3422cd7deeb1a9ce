import Foundation
import TestSupport
import Testing

/// Runs the built `employees` executable as a child process, for end-to-end tests.
///
/// The executable is `$EMPLOYEES_EXECUTABLE`, or the one this package built
/// (``builtExecutable(_:overriddenBy:)``). Every run gets a private `HOME` and no
/// `LOGBOOK_EMPLOYEES_STORE`, so a test never touches the user's real store.
struct EmployeesProcess {
    /// What a finished run left behind.
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String

        var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    }

    let executable: URL
    /// A fresh directory for this test: the private `HOME` and the place for stores.
    let directory: URL

    init() throws {
        executable = try Self.locateExecutable()
        directory = URL(fileURLWithPath: TemporaryDirectory.base)
            .appendingPathComponent("employees-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A store path inside ``directory``.
    var storePath: String { directory.appendingPathComponent("Employees.logbook").path }

    /// Runs `employees` (or `tool`) with `arguments` and `environment` added to a clean
    /// environment.
    func run(_ arguments: [String], environment: [String: String] = [:], tool: URL? = nil)
        throws -> Result
    {
        let process = Process()
        process.executableURL = tool ?? executable
        process.arguments = arguments
        var base = ["HOME": directory.path, "PATH": "/usr/bin:/bin"]
        base.merge(environment) { _, new in new }
        process.environment = base
        let outputURL = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errorURL = directory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try output.close()
        try error.close()
        return Result(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// Runs `employees --store <storePath> arguments…`.
    func runInStore(_ arguments: String...) throws -> Result {
        try run(["--store", storePath] + arguments)
    }

    /// Runs `logbook ARGUMENTS…` (the tool this package builds).
    func runLogbook(_ arguments: String...) throws -> Result {
        guard let path = builtExecutable("logbook", overriddenBy: "LOGBOOK_EXECUTABLE") else {
            throw LocateError(name: "logbook")
        }
        return try run(arguments, tool: URL(fileURLWithPath: path))
    }

    /// Checks the store with `logbook verify`: it must find nothing wrong.
    func expectVerified(
        _ path: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try runLogbook("verify", path ?? storePath)
        #expect(result.status == 0, "\(result.standardOutput)", sourceLocation: sourceLocation)
        #expect(
            result.standardOutput.contains("0 errors, 0 warnings"), "\(result.standardOutput)",
            sourceLocation: sourceLocation)
    }

    /// Starts the interactive screen (`employees --store …`, no subcommand) with `terminal` as
    /// its standard input, output and error; it has not necessarily drawn anything yet.
    func startScreen(on terminal: PseudoTerminal) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--store", storePath]
        process.environment = ["HOME": directory.path, "TERM": "xterm"]
        process.standardInput = terminal.secondaryHandle
        process.standardOutput = terminal.secondaryHandle
        process.standardError = terminal.secondaryHandle
        try process.run()
        return process
    }

    func removeDirectory() {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func locateExecutable() throws -> URL {
        guard let path = builtExecutable("employees", overriddenBy: "EMPLOYEES_EXECUTABLE") else {
            throw LocateError(name: "employees")
        }
        return URL(fileURLWithPath: path)
    }

    struct LocateError: Error, CustomStringConvertible {
        var name: String
        var description: String {
            "the \(name) executable was not found (run `swift build` first, or set "
                + "\(name.uppercased())_EXECUTABLE)"
        }
    }
}
