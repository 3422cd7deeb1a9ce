extension ArgumentParser {
    /// `company add|list|rename|delete …`; `operands` are the words after `company`.
    static func companyCommand(_ operands: [String], reader: inout OptionReader)
        throws(EmployeesError) -> Invocation.Command
    {
        let actions = "add, list, rename or delete"
        guard let action = operands.first else {
            throw .usage("company needs a subcommand: \(actions)")
        }
        let operands = Array(operands.dropFirst())
        reader.subcommand = "company \(action)"
        reader.operandName = "a company id or name"
        switch action {
        case "add":
            try reader.expectOperands(operands, count: 0)
            guard let name = reader.take("--name") else {
                throw .usage("company add needs --name")
            }
            return .addCompany(CompanyDraft(name: name, city: reader.take("--city")))
        case "list":
            try reader.expectOperands(operands, count: 0)
            return .listCompanies(json: reader.takeFlag("--json"))
        case "rename":
            try reader.expectOperands(operands, count: 1)
            let changes = CompanyChanges(name: reader.take("--name"), city: reader.take("--city"))
            if changes.name == nil && changes.city == nil {
                throw .usage("company rename needs --name (or --city)")
            }
            return .renameCompany(operands[0], changes)
        case "delete":
            try reader.expectOperands(operands, count: 1)
            let target = reader.take("--reassign-to")
            let force = reader.takeFlag("--force")
            switch (target, force) {
            case (let target?, false):
                return .deleteCompany(operands[0], .reassign(to: target))
            case (nil, true):
                return .deleteCompany(operands[0], .releaseEmployees)
            case (nil, false):
                return .deleteCompany(operands[0], .refuseIfStaffed)
            case (.some, true):
                throw .usage("company delete takes --reassign-to or --force, not both")
            }
        default:
            throw .usage("unknown company subcommand \"\(action)\" (use \(actions))")
        }
    }
}
