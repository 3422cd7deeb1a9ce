import Foundation

/// The process around the commands: parses arguments, finds and opens the store, runs the
/// command or the interactive screen, prints errors as one line on stderr.
enum EmployeesApp {
    /// Runs `employees` with `arguments` (without the program name); returns the exit status:
    /// 0 ok, 1 the command failed, 2 bad usage. The store is closed when this returns.
    static func main(arguments: [String], environment: [String: String]) -> Int32 {
        do throws(EmployeesError) {
            let invocation = try ArgumentParser.parse(arguments)
            let path = StoreLocation.resolve(
                explicitPath: invocation.storePath, environment: environment)
            switch invocation.command {
            case .help:
                printLine(HelpText.text)
            case .interactive where !RawTerminal.isInteractive:
                printLine(HelpText.text)
            case .interactive:
                let screen = EmployeeListScreen(
                    repository: try EmployeeStore.open(at: path), subtitle: path)
                try InteractiveSession.run(screen)
            case .migrate(let dryRun):
                guard dryRun else {
                    _ = try EmployeeStore.open(at: path)
                    printLine("the store at \(path) is at today's model")
                    return 0
                }
                let report = try EmployeeStore.migrationReport(at: path)
                printLine(report.description)
                return report.refusal == nil ? 0 : 1
            case .demo:
                printLine("Store: \(path)")
                let story = DemoStory(
                    repository: try EmployeeStore.open(at: path), print: printLine,
                    dumpStore: EmployeeStore.dump(at: path), storePath: path)
                try story.run()
            default:
                let output = BufferedOutput.standardOutput()
                let runner = CommandRunner(
                    repository: try EmployeeStore.open(at: path), output: output,
                    progress: ProgressLine.forStandardError())
                do {
                    try runner.run(invocation.command)
                    try output.flush()
                } catch {
                    try? output.flush()
                    throw error
                }
            }
            return 0
        } catch {
            printError("employees: \(error.description)")
            return error.exitCode
        }
    }

    private static func printLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
