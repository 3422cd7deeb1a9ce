/// One `logbook` subcommand: its help and its body. Each lives in a folder of its own beside the
/// types that do its work (`Dump/`, `Verify/`, …; what several share is in `Support/`), and is a
/// thin shell over library calls: ``Verifier`` prints the library's `StoreCheck`, ``Exporter``
/// walks `PrimaryKeyOrder`.
protocol Subcommand {
    /// The word after `logbook`.
    static var name: String { get }
    /// One line for `logbook --help`.
    static var summary: String { get }
    /// Required positional arguments, in order (`PATH`, `FILE`).
    static var positionals: [String] { get }
    /// The options it accepts.
    static var options: [OptionSpec] { get }
    /// Paragraphs for `logbook help NAME` after the usage line.
    static var discussion: String { get }
    /// Runs the command; returns the exit status.
    /// - Throws: ``CommandError`` (printed as one line, exit status from the error).
    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32
}

extension Subcommand {
    /// The text of `logbook help NAME`.
    static var help: String {
        var text = "usage: logbook \(name) \(positionals.joined(separator: " "))"
        if !options.isEmpty { text += " [options]" }
        text += "\n\n\(summary)\n"
        if !options.isEmpty {
            text += "\noptions:\n"
            let labels = options.map { "--" + $0.name + ($0.valueName.map { " " + $0 } ?? "") }
            let width = labels.map(\.count).max() ?? 0
            for (label, option) in zip(labels, options) {
                let indent = String(repeating: " ", count: width + 4)
                let help = Formatting.wrap(option.help, width: max(40, 80 - indent.count))
                    .split(separator: "\n").joined(separator: "\n" + indent)
                text += "  " + Formatting.padRight(label, width) + "  " + help + "\n"
            }
        }
        if !discussion.isEmpty { text += "\n" + Formatting.wrap(discussion, width: 80) + "\n" }
        return text
    }
}

/// The `logbook` tool: finds the subcommand, parses its arguments, runs it, and turns errors
/// into one line on standard error and an exit status (0 success, 1 failure or damage found,
/// 2 usage error or nothing could be run).
enum LogbookTool {
    /// Every subcommand, in the order `--help` lists them.
    static var commands: [any Subcommand.Type] {
        [
            Dump.self, Verify.self, Stats.self, Query.self, Compact.self, Export.self, Import.self,
            History.self, Changes.self, Studio.self, Backup.self, Sync.self,
        ]
    }

    /// The text of `logbook --help`.
    static var help: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        var text = """
            logbook — inspect, check and move the data of a Logbook store

            usage: logbook SUBCOMMAND PATH [options]

            subcommands:

            """
        for command in commands {
            text += "  " + Formatting.padRight(command.name, width) + "  " + command.summary + "\n"
        }
        text += """

            PATH is a store's directory. Only compact, import and sync change a store; the \
            others open it read-only and work while another process writes it.
            Exit status: 0 success, 1 failure or damage found, 2 usage error or nothing to run. \
            A torn tail (what a crash during a write leaves at the end of the newest segment) \
            is not damage: every command warns about it (verify in its report) and goes on \
            (exit status 0; 1 for `verify --strict`).
            Run `logbook help SUBCOMMAND` for its options.

            """
        return Formatting.wrap(text, width: 80)
    }

    /// Runs the tool with `arguments` (without the program name); returns the exit status.
    static func main(_ arguments: [String], console: Console) -> Int32 {
        defer { console.flush() }
        guard let first = arguments.first else {
            console.err.write(help)
            return 2
        }
        if first == "--help" || first == "-h" || (first == "help" && arguments.count == 1) {
            console.out.write(help)
            return 0
        }
        if first == "help" {
            guard let command = command(named: arguments[1]) else {
                console.error(
                    "no subcommand \"\(arguments[1])\"; run `logbook --help` for the list")
                return 2
            }
            console.out.write(command.help)
            return 0
        }
        guard let command = command(named: first) else {
            console.error(
                first.hasPrefix("-")
                    ? "unknown option \(first); run `logbook --help`"
                    : "no subcommand \"\(first)\"; run `logbook --help` for the list")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            console.out.write(command.help)
            return 0
        }
        do {
            let parsed = try ArgumentParser.parse(
                rest, command: command.name, options: command.options,
                positionals: command.positionals)
            return try command.run(parsed, console: console)
        } catch let error as CommandError {
            console.error(error.description)
            return error.exitCode
        } catch {
            console.error("\(error)")
            return 1
        }
    }

    private static func command(named name: String) -> (any Subcommand.Type)? {
        commands.first { $0.name == name }
    }
}
