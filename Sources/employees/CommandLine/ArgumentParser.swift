/// Turns `employees`' arguments into an ``Invocation``. Pure: no I/O, no environment.
///
/// Options take their value as the next argument or after `=` (`--salary 5`, `--salary=5`).
/// `--store` and `--help` are accepted anywhere; the other options only after their subcommand.
enum ArgumentParser {
    /// Options that take a value.
    private static let valueOptions: Set<String> = [
        "--store", "--name", "--designation", "--salary", "--where", "--sort", "--company",
        "--city", "--reassign-to", "--search",
    ]
    /// Options that take none.
    private static let flags: Set<String> = [
        "--desc", "--json", "--force", "--no-company", "--dry-run",
    ]

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
            if name == "-h" || name == "--help" {
                wantsHelp = true
                continue
            } else if flags.contains(name) {
                if value != nil { throw .usage("\(name) takes no value") }
            } else if valueOptions.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw .usage("\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
            } else {
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
        let command = try self.command(
            subcommand, operands: Array(words.dropFirst()), reader: &reader)
        try reader.expectAllTaken()
        return Invocation(command: command, storePath: storePath)
    }

    private static func command(
        _ subcommand: String, operands: [String], reader: inout OptionReader
    ) throws(EmployeesError) -> Invocation.Command {
        switch subcommand {
        case "help":
            return .help
        case "add":
            try reader.expectOperands(operands, count: 0)
            guard let name = reader.take("--name") else { throw .usage("add needs --name") }
            guard let salary = reader.take("--salary") else { throw .usage("add needs --salary") }
            return .add(
                EmployeeDraft(
                    name: name, designation: reader.take("--designation") ?? "",
                    salary: try SalaryParser.parse(salary), company: reader.take("--company")))
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
            list.query.company = reader.take("--company")
            list.query.search = reader.take("--search")
            list.json = reader.takeFlag("--json")
            return .list(list)
        case "report":
            try reader.expectOperands(operands, count: 0)
            return .report(json: reader.takeFlag("--json"))
        case "update":
            try reader.expectOperands(operands, count: 1)
            var changes = EmployeeChanges()
            changes.name = reader.take("--name")
            changes.designation = reader.take("--designation")
            if let salary = reader.take("--salary") {
                changes.salary = try SalaryParser.parse(salary)
            }
            let company = reader.take("--company")
            let noCompany = reader.takeFlag("--no-company")
            if company != nil && noCompany {
                throw .usage("update takes --company or --no-company, not both")
            }
            if let company { changes.company = .assign(company) }
            if noCompany { changes.company = .remove }
            if changes.isEmpty {
                throw .usage(
                    "update needs at least one of --name, --designation, --salary, --company, "
                        + "--no-company")
            }
            return .update(id: operands[0], changes: changes)
        case "delete":
            try reader.expectOperands(operands, count: 1)
            return .delete(id: operands[0])
        case "company":
            return try companyCommand(operands, reader: &reader)
        case "demo":
            try reader.expectOperands(operands, count: 0)
            return .demo
        case "migrate":
            try reader.expectOperands(operands, count: 0)
            return .migrate(dryRun: reader.takeFlag("--dry-run"))
        default:
            throw .usage("unknown command \"\(subcommand)\"")
        }
    }
}

/// The options after a subcommand; each is taken once, and any left over is an error.
struct OptionReader {
    var subcommand: String
    var options: [(name: String, value: String?)]
    /// What an operand is, for "needs a …" messages.
    var operandName = "an employee id"

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
        if operands.count < count { throw .usage("\(subcommand) needs \(operandName)") }
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
