extension EmployeeListScreen {
    /// The key hints for the list, shown on the bottom line (60 columns).
    static let listHints = "a add · ↵ edit · d delete · c companies · / search · q quit"
    /// The key hints for the list while a search is shown.
    static let searchedHints = "a add · ↵ edit · d delete · / search · Esc clear · q quit"
    /// The key hints for the search field.
    static let searchHints =
        "Enter search · Esc back · e.g. salary > 100000, name BEGINSWITH[c] 'a'"
    /// The key hints for a form's text fields.
    static let formHints = "Tab/↑↓ change field · Enter next/save · Esc cancel"
    /// The key hints for the form's company field.
    static let companyHints = "←→ change · Space list · Backspace none · Enter save"
    /// The key hints for the company picker.
    static let pickerHints = "↑↓ choose · type to search · Enter pick · Esc back"

    /// The screen as `height` lines of `width` columns.
    ///
    /// Layout: a title line, a column header (or the form), the rows, a status line and a hint
    /// line. The list scrolls so the selected row is always visible.
    func render(width: Int, height: Int) -> ScreenFrame {
        if let companiesScreen { return companiesScreen.render(width: width, height: height) }
        var body: [ScreenFrame.Line]
        var cursor: (row: Int, column: Int)?
        var heading =
            "Employees" + (filter.map { " where \($0)" } ?? "")
            + (subtitle.isEmpty ? "" : " — \(subtitle)")
        var hints = filter == nil ? Self.listHints : Self.searchedHints
        var statusLine = status.line
        let bodyHeight = max(0, height - 3)

        switch mode {
        case .search(let field):
            let drawn = ScreenFrame.field(
                "Search", labelWidth: 6, value: field.text, isFocused: true,
                cursorAfter: field.textBeforeCursor)
            body = [drawn.line] + listBody(width: width, height: bodyHeight - 1)
            cursor = drawn.cursorColumn.map { (row: 0, column: $0) }
            hints = Self.searchHints
        case .list, .confirmDelete:
            body = listBody(width: width, height: bodyHeight)
            if case .confirmDelete(let employee) = mode {
                statusLine = ScreenFrame.Line(
                    text: " Delete \(employee.title)? (y/n)", style: .error)
                hints = "y delete · any other key keeps"
            }
        case .form(let form):
            if let picker = form.picker {
                heading = picker.title
                (body, cursor) = picker.body(height: bodyHeight)
                hints = Self.pickerHints
            } else {
                heading = form.title
                (body, cursor) = formBody(form)
                hints = form.focus == .company ? Self.companyHints : Self.formHints
            }
        }
        return ScreenFrame.layout(
            heading: heading, count: list.count.counted("employee"), body: body, cursor: cursor,
            status: statusLine, hints: hints, width: width, height: height)
    }

    /// The column header and the rows on screen: marker, "name — designation", company, salary
    /// flush right. The company column is as wide as the longest name on screen (at most a
    /// quarter of the width) and left out when the window is too narrow for it; the salary
    /// column as wide as the widest salary on screen.
    private func listBody(width: Int, height: Int) -> [ScreenFrame.Line] {
        let rows = list.visibleRows(height: height)
        let salaryWidth = max(6, rows.map { decimalWidth($0.salary) }.max() ?? 0)
        let longestCompany = rows.compactMap { $0.company?.name.displayable.displayWidth }.max()
        var companyWidth = min(max(7, longestCompany ?? 0), width / 4)
        if width - 3 - salaryWidth - companyWidth - 5 < 12 { companyWidth = 0 }
        func cells(_ company: String, _ salary: String) -> String {
            let right = salary.alignedRight(to: salaryWidth) + " "
            guard companyWidth > 0 else { return right }
            return company.displayable.fitted(to: companyWidth) + "  " + right
        }
        let header = ScreenFrame.Line(
            text: .spread("   NAME — DESIGNATION", cells("COMPANY", "SALARY"), width: width),
            style: .dim)
        return list.lines(
            header: header, empty: "No employees yet. Press a to add one.", width: width,
            height: height
        ) { employee in
            (
                employee.title.displayable,
                cells(employee.company?.name ?? "", String(employee.salary))
            )
        }
    }

    private func formBody(_ form: EmployeeForm) -> ([ScreenFrame.Line], (row: Int, column: Int)?) {
        var lines = [ScreenFrame.Line(text: "")]
        var cursor: (row: Int, column: Int)?
        let labelWidth = EmployeeForm.Field.allCases.map(\.label.count).max() ?? 0
        for field in EmployeeForm.Field.allCases {
            let isFocused = field == form.focus
            let drawn: (line: ScreenFrame.Line, cursorColumn: Int?)
            if field == .company {
                let name = form.company.map { $0.name } ?? "No company"
                drawn = ScreenFrame.field(
                    field.label, labelWidth: labelWidth, value: isFocused ? "‹ \(name) ›" : name,
                    isFocused: isFocused)
            } else {
                let text = form.fields[field] ?? TextField()
                drawn = ScreenFrame.field(
                    field.label, labelWidth: labelWidth, value: text.text, isFocused: isFocused,
                    cursorAfter: isFocused ? text.textBeforeCursor : nil)
            }
            if let column = drawn.cursorColumn { cursor = (row: lines.count, column: column) }
            lines.append(drawn.line)
        }
        lines.append(ScreenFrame.Line(text: ""))
        if let error = form.error {
            lines.append(ScreenFrame.Line(text: "   " + error, style: .error))
        }
        return (lines, cursor)
    }
}
