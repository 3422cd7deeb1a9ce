/// The rows of a list screen and which one is selected, for the employee and company lists.
///
/// The rows come from a ``RowSource``: only the ones on screen are read, so a list of a million
/// employees opens and scrolls without building the others. ↑↓ and `j`/`k` move by one,
/// Home/End and `g`/`G` to the ends, Page Up/Down by ten; the selection always stays on a row
/// (0 when there are none).
struct ListSelection<Row: Identifiable> {
    private(set) var source: any RowSource<Row> = ArrayRows<Row>([])
    private(set) var index = 0

    /// The number of rows.
    var count: Int { source.count }

    /// The selected row; `nil` when there are none, or when it cannot be read.
    var selected: Row? {
        guard index < count else { return nil }
        return try? source.rows(index..<index + 1).first
    }

    /// Moves the selection for a list key; returns whether `key` is one.
    mutating func move(for key: Key) -> Bool {
        let last = max(0, count - 1)
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

    /// Shows the rows of `source`, selecting the one with id `id` if given and there, else
    /// keeping the position (moved back onto the last row if the list got shorter).
    mutating func show(_ source: any RowSource<Row>, selecting id: Row.ID? = nil) {
        self.source = source
        if let id, let position = source.position(of: id) { index = position }
        index = min(index, max(0, source.count - 1))
    }

    /// The positions shown in `height` lines under the header, around the selection.
    func window(height: Int) -> Range<Int> {
        ScreenFrame.window(count: count, selection: index, height: height - 1)
    }

    /// The rows shown in `height` lines under the header (none if they cannot be read).
    func visibleRows(height: Int) -> [Row] {
        (try? source.rows(window(height: height))) ?? []
    }

    /// The list as screen lines under a header: a marker on the selected row, `cells` of
    /// each row spread over `width` (the right one flush right), scrolled so that the
    /// selection shows in `height` lines. A store that cannot be read shows its error.
    func lines(
        header: ScreenFrame.Line, empty: String, width: Int, height: Int,
        cells: (Row) -> (left: String, right: String)
    ) -> [ScreenFrame.Line] {
        guard count > 0 else { return [header, ScreenFrame.Line(text: "   " + empty)] }
        let window = self.window(height: height)
        let rows: [Row]
        do {
            rows = try source.rows(window)
        } catch {
            return [header, ScreenFrame.Line(text: "   " + error.description, style: .error)]
        }
        return [header]
            + zip(window, rows).map { position, row in
                let isSelected = position == index
                let (left, right) = cells(row)
                return ScreenFrame.Line(
                    text: .spread((isSelected ? " > " : "   ") + left, right, width: width),
                    style: isSelected ? .selected : .normal)
            }
    }
}

extension EmployeeRecord: Identifiable {}
extension CompanyRecord: Identifiable {}
