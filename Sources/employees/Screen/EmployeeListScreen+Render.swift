extension EmployeeListScreen {
    /// The key hints for the list, shown on the bottom line.
    static let listHints = "↑↓ move · a add · Enter edit · d delete · q quit"
    /// The key hints for the form.
    static let formHints = "Tab/↑↓ change field · Enter next/save · Esc cancel"

    /// The screen as `height` lines of at most `width` characters.
    ///
    /// Layout: a title line, a column header (or the form), the rows, a status line and a hint
    /// line. The list scrolls so the selected row is always visible.
    func render(width: Int, height: Int) -> ScreenFrame {
        let width = max(width, 1)
        let height = max(height, 1)
        var body: [ScreenFrame.Line]
        var cursor: (row: Int, column: Int)?
        var hints = Self.listHints
        var statusLine = ScreenFrame.Line(
            text: " " + (status ?? ""), style: statusIsError ? .error : .dim)
        let bodyHeight = max(0, height - 3)

        switch mode {
        case .list, .confirmDelete:
            body = listBody(width: width, height: bodyHeight)
            if case .confirmDelete(let employee) = mode {
                statusLine = ScreenFrame.Line(
                    text: " Delete \(employee.title)? (y/n)", style: .error)
                hints = "y delete · any other key keeps"
            }
        case .form(let form):
            (body, cursor) = formBody(form, width: width)
            hints = Self.formHints
        }

        let count = rows.count == 1 ? "1 employee" : "\(rows.count) employees"
        let heading: String
        switch mode {
        case .form(let form): heading = " " + form.title
        default: heading = " Employees" + (subtitle.isEmpty ? "" : " — \(subtitle)")
        }
        var lines = [
            ScreenFrame.Line(text: .spread(heading, count + " ", width: width), style: .title)
        ]
        lines += body.prefix(bodyHeight)
        while lines.count < height - 2 { lines.append(ScreenFrame.Line(text: "")) }
        lines.append(statusLine)
        lines.append(ScreenFrame.Line(text: " " + hints, style: .dim))
        lines = lines.suffix(height).map {
            ScreenFrame.Line(text: $0.text.displayable.fitted(to: width), style: $0.style)
        }
        if let position = cursor, position.row >= lines.count { cursor = nil }
        return ScreenFrame(lines: lines, cursor: cursor)
    }

    private func listBody(width: Int, height: Int) -> [ScreenFrame.Line] {
        var lines = [
            ScreenFrame.Line(
                text: .spread("   NAME — DESIGNATION", "SALARY ", width: width), style: .dim)
        ]
        guard !rows.isEmpty else {
            lines.append(ScreenFrame.Line(text: "   No employees yet. Press a to add one."))
            return lines
        }
        let visible = max(1, height - 1)
        let top = selection < visible ? 0 : selection - visible + 1
        for index in rows.indices.dropFirst(top).prefix(visible) {
            let employee = rows[index]
            let isSelected = index == selection
            let marker = isSelected ? " > " : "   "
            lines.append(
                ScreenFrame.Line(
                    text: .spread(
                        marker + employee.title, String(employee.salary) + " ", width: width),
                    style: isSelected ? .selected : .normal))
        }
        return lines
    }

    private func formBody(_ form: EmployeeForm, width: Int)
        -> ([ScreenFrame.Line], (row: Int, column: Int)?)
    {
        var lines = [ScreenFrame.Line(text: "")]
        var cursor: (row: Int, column: Int)?
        let labelWidth = EmployeeForm.Field.allCases.map(\.label.count).max() ?? 0
        for field in EmployeeForm.Field.allCases {
            let marker = field == form.focus ? " > " : "   "
            let label = (field.label + ":").fitted(to: labelWidth + 2)
            let text = marker + label + form.value(of: field)
            if field == form.focus {
                // +1 for the title line above the body.
                cursor = (row: lines.count + 1, column: min(text.count, width - 1))
            }
            lines.append(
                ScreenFrame.Line(text: text, style: field == form.focus ? .selected : .normal))
        }
        lines.append(ScreenFrame.Line(text: ""))
        if let error = form.error {
            lines.append(ScreenFrame.Line(text: "   " + error, style: .error))
        }
        return (lines, cursor)
    }
}
