/// The "Add Employee" / edit form: three text fields, one focused, validated on submit.
///
/// Tab, Enter and ↓ move to the next field, Shift-Tab and ↑ to the previous one; Enter on the
/// last field submits. Typing appends to the focused field, Backspace removes the last
/// character, Ctrl-U clears the field.
struct EmployeeForm: Sendable, Equatable {
    /// The form's fields, in screen order.
    enum Field: Int, Sendable, CaseIterable {
        case name, designation, salary

        var label: String {
            switch self {
            case .name: return "Name"
            case .designation: return "Designation"
            case .salary: return "Salary"
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
    private(set) var values: [Field: String]
    private(set) var focus: Field = .name
    /// Why the last submit was refused, shown under the fields.
    private(set) var error: String?

    /// An empty form for adding.
    init() {
        editingID = nil
        values = [.name: "", .designation: "", .salary: ""]
    }

    /// A form prefilled with `employee`'s values, for editing it.
    init(editing employee: EmployeeRecord) {
        editingID = employee.id
        values = [
            .name: employee.name, .designation: employee.designation,
            .salary: String(employee.salary),
        ]
    }

    var title: String { editingID == nil ? "Add Employee" : "Edit Employee" }

    func value(of field: Field) -> String { values[field] ?? "" }

    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape:
            return .cancelled
        case .tab, .down:
            move(by: 1)
        case .backTab, .up:
            move(by: -1)
        case .enter:
            if focus == .salary { return submit() }
            move(by: 1)
        case .backspace:
            if !value(of: focus).isEmpty { values[focus]?.removeLast() }
        case .clearLine:
            values[focus] = ""
        case .character(let character):
            values[focus, default: ""].append(character)
        default:
            break
        }
        return .editing
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
        return .submitted(EmployeeDraft(name: name, designation: designation, salary: salary))
    }

    private mutating func move(by step: Int) {
        let count = Field.allCases.count
        focus = Field(rawValue: (focus.rawValue + step + count) % count) ?? .name
    }
}
