/// A list to choose a company from, narrowed by typing: the company picker of the employee
/// form (with "No company" first), and the choice of where a deleted company's employees go.
///
/// ↑↓ (and Page Up/Down) move the selection; typing edits the search field (matched anywhere
/// in the name or city, ignoring case) with the ``TextField`` keys; Enter picks; Esc cancels.
struct CompanyPicker: Sendable, Equatable {
    /// What a key did.
    enum Outcome: Sendable, Equatable {
        case picking
        /// The chosen company, or `nil` for "No company".
        case picked(CompanyRecord?)
        case cancelled
    }

    /// Shown as the screen's title.
    let title: String
    /// `nil` stands for "No company".
    private let choices: [CompanyRecord?]
    private(set) var search = TextField()
    /// Index into ``visibleChoices``.
    private(set) var selection = 0

    /// A picker over `companies` (in their order), "No company" first if `offersNone`, with
    /// the company whose id is `selectedID` selected.
    init(title: String, companies: [CompanyRecord], offersNone: Bool, selectedID: String?) {
        self.title = title
        choices = (offersNone ? [nil] : []) + companies.map { $0 }
        selection = choices.firstIndex { $0?.id == selectedID } ?? 0
    }

    /// The choices that match the search, in order.
    var visibleChoices: [CompanyRecord?] {
        let wanted = search.text.trimmingSpaces().lowercased()
        guard !wanted.isEmpty else { return choices }
        return choices.filter { choice in
            guard let choice else { return false }
            return choice.name.lowercased().contains(wanted)
                || (choice.city?.lowercased().contains(wanted) ?? false)
        }
    }

    /// Applies `key`.
    mutating func handle(_ key: Key) -> Outcome {
        let count = visibleChoices.count
        switch key {
        case .escape:
            return .cancelled
        case .enter:
            guard visibleChoices.indices.contains(selection) else { return .picking }
            return .picked(visibleChoices[selection])
        case .up: selection = max(0, selection - 1)
        case .down: selection = min(max(0, count - 1), selection + 1)
        case .pageUp: selection = max(0, selection - 10)
        case .pageDown: selection = min(max(0, count - 1), selection + 10)
        default:
            let before = search.text
            _ = search.handle(key)
            if search.text != before { selection = 0 }
        }
        return .picking
    }

    /// The label of a choice in the list.
    static func label(_ choice: CompanyRecord?) -> String {
        guard let choice else { return "No company" }
        let city = choice.city.map { " — \($0)" } ?? ""
        return "\(choice.name)\(city) (\(choice.staffDescription))"
    }

    /// The picker as screen body lines (a search field, then the choices around the
    /// selection) and the cursor, which stays in the search field.
    func body(height: Int) -> (lines: [ScreenFrame.Line], cursor: (row: Int, column: Int)) {
        let searchField = ScreenFrame.field(
            "Search", labelWidth: 6, value: search.text, isFocused: false,
            cursorAfter: search.textBeforeCursor)
        var lines = [ScreenFrame.Line(text: ""), searchField.line, ScreenFrame.Line(text: "")]
        let visible = visibleChoices
        if visible.isEmpty {
            lines.append(ScreenFrame.Line(text: "   No company matches.", style: .dim))
        }
        let window = ScreenFrame.window(
            count: visible.count, selection: selection, height: height - lines.count)
        for index in window {
            let isSelected = index == selection
            lines.append(
                ScreenFrame.Line(
                    text: (isSelected ? " > " : "   ") + Self.label(visible[index]),
                    style: isSelected ? .selected : .normal))
        }
        return (lines, (row: 1, column: searchField.cursorColumn ?? 0))
    }
}
