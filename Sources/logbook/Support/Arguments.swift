/// A problem with how the tool was called or with what it was asked to do; ``exitCode`` says
/// which, and ``description`` is the one line printed after `logbook: `.
struct CommandError: Error, CustomStringConvertible {
    /// The process exit status this error leads to: 2 for usage errors and stores that cannot
    /// be read at all, 1 for a command that ran and failed.
    var exitCode: Int32
    /// One line saying what happened and what to do.
    var description: String

    /// A usage error (unknown option, missing argument): exit status 2.
    static func usage(_ message: String) -> CommandError {
        CommandError(exitCode: 2, description: message)
    }

    /// The command could not run (no store, unreadable store): exit status 2.
    static func cannotRun(_ message: String) -> CommandError {
        CommandError(exitCode: 2, description: message)
    }

    /// The command ran and failed (a locked store, a bad import line): exit status 1.
    static func failed(_ message: String) -> CommandError {
        CommandError(exitCode: 1, description: message)
    }
}

/// An option a subcommand accepts: `--name` alone (a flag) or `--name VALUE` / `--name=VALUE`.
struct OptionSpec {
    /// The name without the leading dashes.
    var name: String
    /// The placeholder of its value in help (`N`, `EXPR`), or `nil` for a flag.
    var valueName: String?
    /// One line for `logbook help SUBCOMMAND`.
    var help: String
}

/// The parsed command line of one subcommand.
struct ParsedArguments {
    /// Arguments that are not options, in order.
    var positionals: [String] = []
    /// Options given with a value, by name (the last one wins).
    var values: [String: String] = [:]
    /// Flags given.
    var flags: Set<String> = []

    /// Whether the flag `--name` was given.
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `--name`, or `nil`.
    func value(_ name: String) -> String? { values[name] }

    /// The value of `--name` as a non-negative integer, or `nil` if absent.
    /// - Throws: ``CommandError/usage(_:)`` if it is not one.
    func count(_ name: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let n = Int(text), n >= 0 else {
            throw CommandError.usage("--\(name) takes a whole number, not \"\(text)\"")
        }
        return n
    }

    /// The value of `--name`, which must be one of `choices`; `defaultValue` if absent.
    /// - Throws: ``CommandError/usage(_:)`` for any other value.
    func choice(_ name: String, of choices: [String], default defaultValue: String) throws
        -> String
    {
        guard let text = values[name] else { return defaultValue }
        guard choices.contains(text) else {
            throw CommandError.usage(
                "--\(name) takes one of \(choices.joined(separator: ", ")), not \"\(text)\"")
        }
        return text
    }
}

/// Splits a subcommand's arguments into options and positionals against its option specs.
/// `--` ends the options; `-` alone is a positional.
enum ArgumentParser {
    /// Parses `arguments` (without the subcommand's name).
    /// `positionals` names the positional arguments (`PATH`, `FILE`), in order; a name in
    /// brackets (`[DST]`) may be left out.
    /// - Throws: ``CommandError/usage(_:)`` for an unknown option, a missing value, or a
    ///   missing or extra positional.
    static func parse(
        _ arguments: [String], command: String, options: [OptionSpec], positionals: [String]
    ) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var rest = arguments[...]
        var optionsEnded = false
        while let argument = rest.popFirst() {
            guard !optionsEnded, argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = String(argument.drop { $0 == "-" })
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw CommandError.usage(
                    "unknown option \(argument) for `logbook \(command)`; "
                        + "see `logbook help \(command)`")
            }
            if spec.valueName == nil {
                guard inlineValue == nil else {
                    throw CommandError.usage("--\(name) takes no value")
                }
                parsed.flags.insert(name)
            } else if let value = inlineValue ?? rest.popFirst() {
                parsed.values[name] = value
            } else {
                throw CommandError.usage("--\(name) needs a value (\(spec.valueName ?? "VALUE"))")
            }
        }
        let count = parsed.positionals.count
        if count < positionals.count(where: { !$0.hasPrefix("[") }) {
            throw CommandError.usage(
                "`logbook \(command)` needs \(positionals[count]) "
                    + "(usage: logbook \(command) \(positionals.joined(separator: " ")) …)")
        }
        if count > positionals.count {
            throw CommandError.usage(
                "unexpected argument \"\(parsed.positionals[positionals.count])\" for "
                    + "`logbook \(command)`; see `logbook help \(command)`")
        }
        return parsed
    }
}
