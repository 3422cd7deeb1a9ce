/// The "Add Company" / rename form: name and city, with the same keys as ``EmployeeForm``'s
/// text fields. Enter on City submits; a name is required (the store checks it is unique).
struct CompanyForm: Sendable, Equatable {
    enum Field: Int, Sendable, CaseIterable {
        case name, city

        var label: String { self == .name ? "Name" : "City" }
    }

    enum Outcome: Sendable, Equatable {
        case editing
        case submitted(CompanyDraft)
        case cancelled
    }

    /// The company being renamed, or `nil` when adding.
    let editingID: String?
    private(set) var fields: [Field: TextField]
    private(set) var focus: Field = .name
    /// Why the last submit was refused.
    private(set) var error: String?

    /// An empty form for adding.
    init() {
        editingID = nil
        fields = [.name: TextField(), .city: TextField()]
    }

    /// A form prefilled with `company`'s name and city.
    init(editing company: CompanyRecord) {
        editingID = company.id
        fields = [.name: TextField(company.name), .city: TextField(company.city ?? "")]
    }

    var title: String { editingID == nil ? "Add Company" : "Rename Company" }

    func value(of field: Field) -> String { fields[field]?.text ?? "" }

    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape:
            return .cancelled
        case .tab, .down, .backTab, .up:
            focus = focus == .name ? .city : .name
        case .enter:
            guard focus == .city else {
                focus = .city
                return .editing
            }
            guard !value(of: .name).trimmingSpaces().isEmpty else {
                error = "Name is required."
                focus = .name
                return .editing
            }
            error = nil
            return .submitted(CompanyDraft(name: value(of: .name), city: value(of: .city)))
        default:
            _ = fields[focus]?.handle(key)
        }
        return .editing
    }
}
