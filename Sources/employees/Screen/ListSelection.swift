/// The rows of a list screen and which one is selected, for the employee and company lists.
///
/// ↑↓ and `j`/`k` move by one, Home/End and `g`/`G` to the ends, Page Up/Down by ten; the
/// selection always stays on a row (0 when there are none).
struct ListSelection<Row: Identifiable & Sendable>: Sendable {
    private(set) var rows: [Row] = []
    private(set) var index = 0

    var selected: Row? { rows.indices.contains(index) ? rows[index] : nil }

    /// Moves the selection for a list key; returns whether `key` is one.
    mutating func move(for key: Key) -> Bool {
        let last = max(0, rows.count - 1)
        switch key {
        case .up, .character("k"): index = max(0, index - 1)
        case .down, .character("j"): index = min(last, index + 1)
        case .home, .character("g"): index = 0
        case .end, .character("G"): index = last
        case .pageUp: index = max(0, index - 10)
        case .pageDown: index = min(last, index + 10)
        default: return false
        }
        return true
    }

    /// Shows `rows`, selecting the one with id `id` if given and there, else keeping the
    /// position (moved back onto the last row if the list got shorter).
    mutating func show(_ rows: [Row], selecting id: Row.ID? = nil) {
        self.rows = rows
        if let id, let position = rows.firstIndex(where: { $0.id == id }) { index = position }
        index = min(index, max(0, rows.count - 1))
    }

    /// The list as screen lines under a header: a marker on the selected row, `cells` of
    /// each row spread over `width` (the right one flush right), scrolled so that the
    /// selection shows in `height` lines.
    func lines(
        header: ScreenFrame.Line, empty: String, width: Int, height: Int,
        cells: (Row) -> (left: String, right: String)
    ) -> [ScreenFrame.Line] {
        guard !rows.isEmpty else { return [header, ScreenFrame.Line(text: "   " + empty)] }
        let window = ScreenFrame.window(count: rows.count, selection: index, height: height - 1)
        return [header]
            + window.map { position in
                let isSelected = position == index
                let (left, right) = cells(rows[position])
                return ScreenFrame.Line(
                    text: .spread((isSelected ? " > " : "   ") + left, right, width: width),
                    style: isSelected ? .selected : .normal)
            }
    }
}

extension EmployeeRecord: Identifiable {}
extension CompanyRecord: Identifiable {}
