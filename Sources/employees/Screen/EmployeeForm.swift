/// The "Add Employee" / edit form: three text fields and a company, one focused, validated on
/// submit.
///
/// Tab, Enter and ↓ move to the next field, Shift-Tab and ↑ to the previous one; Enter on the
/// last field (Company) submits. In a text field the ``TextField`` keys edit at the cursor. On
/// Company, ← → step through the companies, Space (or typing a name) opens the
/// ``CompanyPicker``, Backspace/Delete set "No company".
struct EmployeeForm: Sendable, Equatable {
    /// The form's fields, in screen order.
    enum Field: Int, Sendable, CaseIterable {
        case name, designation, salary, company

        var label: String {
            switch self {
            case .name: return "Name"
            case .designation: return "Designation"
            case .salary: return "Salary"
            case .company: return "Company"
            }
        }
    }

    /// What a key did to the form.
    enum Outcome: Sendable, Equatable {
        case editing
        case submitted(EmployeeDraft)
        case cancelled
    }

    /// The employee being edited, or `nil` when adding.
    let editingID: String?
    /// The companies to choose from, by name.
    let companies: [CompanyRecord]
    private(set) var fields: [Field: TextField]
    /// The chosen company, or `nil` for none.
    private(set) var company: CompanyRecord?
    /// The open company picker, if any.
    private(set) var picker: CompanyPicker?
    private(set) var focus: Field = .name
    /// Why the last submit was refused, shown under the fields.
    private(set) var error: String?

    /// An empty form for adding.
    init(companies: [CompanyRecord] = []) {
        editingID = nil
        self.companies = companies
        fields = [.name: TextField(), .designation: TextField(), .salary: TextField()]
    }

    /// A form prefilled with `employee`'s values, for editing it.
    init(editing employee: EmployeeRecord, companies: [CompanyRecord] = []) {
        editingID = employee.id
        self.companies = companies
        fields = [
            .name: TextField(employee.name), .designation: TextField(employee.designation),
            .salary: TextField(String(employee.salary)),
        ]
        if let link = employee.company {
            company =
                companies.first { $0.id == link.id }
                ?? CompanyRecord(id: link.id, name: link.name, city: nil, employeeCount: 0)
        }
    }

    var title: String { editingID == nil ? "Add Employee" : "Edit Employee" }

    /// The text of a field (the company's name for ``Field/company``, "" for none).
    func value(of field: Field) -> String {
        field == .company ? company?.name ?? "" : fields[field]?.text ?? ""
    }

    mutating func handle(_ key: Key) -> Outcome {
        if var picker {
            switch picker.handle(key) {
            case .picking: self.picker = picker
            case .picked(let chosen):
                company = chosen
                self.picker = nil
            case .cancelled: self.picker = nil
            }
            return .editing
        }
        switch key {
        case .escape:
            return .cancelled
        case .tab, .down:
            move(by: 1)
        case .backTab, .up:
            move(by: -1)
        case .enter:
            if focus == .company { return submit() }
            move(by: 1)
        default:
            if focus == .company {
                handleCompanyKey(key)
            } else {
                _ = fields[focus]?.handle(key)
            }
        }
        return .editing
    }

    private mutating func handleCompanyKey(_ key: Key) {
        let position = companies.firstIndex { $0.id == company?.id }
        switch key {
        case .left:
            // Before the first company comes "No company"; before that, the last one.
            let index = position.map { $0 - 1 } ?? companies.count - 1
            company = index >= 0 ? companies[index] : nil
        case .right:
            let index = position.map { $0 + 1 } ?? 0
            company = index < companies.count ? companies[index] : nil
        case .backspace, .delete, .clearLine:
            company = nil
        case .character(let character):
            var picker = CompanyPicker(
                title: "Choose a company", companies: companies, offersNone: true,
                selectedID: company?.id)
            if character != " " { _ = picker.handle(key) }
            self.picker = picker
        default:
            break
        }
    }

    /// Validates the fields; on failure keeps the form open, focused on the bad field.
    private mutating func submit() -> Outcome {
        let name = value(of: .name).trimmingSpaces()
        guard !name.isEmpty else {
            error = "Name is required."
            focus = .name
            return .editing
        }
        let salary: Int64
        do {
            salary = try SalaryParser.parse(value(of: .salary))
        } catch {
            self.error = "Salary must be a whole number ≥ 0."
            focus = .salary
            return .editing
        }
        error = nil
        let designation = value(of: .designation).trimmingSpaces()
        return .submitted(
            EmployeeDraft(
                name: name, designation: designation, salary: salary, company: company?.id))
    }

    private mutating func move(by step: Int) {
        let count = Field.allCases.count
        focus = Field(rawValue: (focus.rawValue + step + count) % count) ?? .name
    }
}
