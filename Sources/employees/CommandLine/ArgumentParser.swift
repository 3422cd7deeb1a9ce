/// Turns `employees`' arguments into an ``Invocation``. Pure: no I/O, no environment.
///
/// Options take their value as the next argument or after `=` (`--salary 5`, `--salary=5`).
/// `--store` and `--help` are accepted anywhere; the other options only after their subcommand.
enum ArgumentParser {
    /// - Throws: ``EmployeesError/usage(_:)`` for an unknown subcommand or option, a missing or
    ///   extra argument; ``EmployeesError/invalidSalary(_:)`` for a bad `--salary`.
    static func parse(_ arguments: [String]) throws(EmployeesError) -> Invocation {
        var words: [String] = []
        var options: [(name: String, value: String?)] = []
        var storePath: String?
        var wantsHelp = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                words.append(argument)
                continue
            }
            if argument == "--" {
                words.append(contentsOf: arguments[index...])
                break
            }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            switch name {
            case "-h", "--help":
                wantsHelp = true
                continue
            case "--desc", "--json":
                if value != nil { throw .usage("\(name) takes no value") }
            case "--store", "--name", "--designation", "--salary", "--where", "--sort":
                if value == nil {
                    guard index < arguments.count else { throw .usage("\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
            default:
                throw .usage("unknown option \(name)")
            }
            if name == "--store" {
                storePath = value
            } else {
                options.append((name, value))
            }
        }
        if wantsHelp { return Invocation(command: .help, storePath: storePath) }
        guard let subcommand = words.first else {
            if let option = options.first { throw .usage("\(option.name) needs a subcommand") }
            return Invocation(command: .interactive, storePath: storePath)
        }
        var reader = OptionReader(subcommand: subcommand, options: options)
        let operands = Array(words.dropFirst())
        let command: Invocation.Command
        switch subcommand {
        case "help":
            command = .help
        case "add":
            try reader.expectOperands(operands, count: 0)
            guard let name = reader.take("--name") else { throw .usage("add needs --name") }
            guard let salary = reader.take("--salary") else { throw .usage("add needs --salary") }
            let designation = reader.take("--designation") ?? ""
            command = .add(
                EmployeeDraft(
                    name: name, designation: designation, salary: try SalaryParser.parse(salary)))
        case "list":
            try reader.expectOperands(operands, count: 0)
            var list = Invocation.ListOptions()
            list.query.filter = reader.take("--where")
            if let sort = reader.take("--sort") {
                guard let key = EmployeeSortKey(rawValue: sort) else {
                    throw .usage("--sort takes name, designation or salary, not \"\(sort)\"")
                }
                list.query.sortKey = key
            }
            list.query.descending = reader.takeFlag("--desc")
            list.json = reader.takeFlag("--json")
            command = .list(list)
        case "update":
            try reader.expectOperands(operands, count: 1)
            var changes = EmployeeChanges()
            changes.name = reader.take("--name")
            changes.designation = reader.take("--designation")
            if let salary = reader.take("--salary") {
                changes.salary = try SalaryParser.parse(salary)
            }
            if changes.isEmpty {
                throw .usage("update needs at least one of --name, --designation, --salary")
            }
            command = .update(id: operands[0], changes: changes)
        case "delete":
            try reader.expectOperands(operands, count: 1)
            command = .delete(id: operands[0])
        case "demo":
            try reader.expectOperands(operands, count: 0)
            command = .demo
        default:
            throw .usage("unknown command \"\(subcommand)\"")
        }
        try reader.expectAllTaken()
        return Invocation(command: command, storePath: storePath)
    }
}

/// The options after a subcommand; each is taken once, and any left over is an error.
private struct OptionReader {
    var subcommand: String
    var options: [(name: String, value: String?)]

    mutating func take(_ name: String) -> String? {
        guard let index = options.lastIndex(where: { $0.name == name }) else { return nil }
        let value = options[index].value
        options.removeAll { $0.name == name }
        return value
    }

    mutating func takeFlag(_ name: String) -> Bool {
        let found = options.contains { $0.name == name }
        options.removeAll { $0.name == name }
        return found
    }

    func expectOperands(_ operands: [String], count: Int) throws(EmployeesError) {
        if operands.count < count { throw .usage("\(subcommand) needs an employee id") }
        if operands.count > count {
            throw .usage("unexpected argument \"\(operands[count])\" for \(subcommand)")
        }
    }

    func expectAllTaken() throws(EmployeesError) {
        if let option = options.first {
            throw .usage("\(subcommand) does not take \(option.name)")
        }
    }
}
