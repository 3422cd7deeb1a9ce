extension CompaniesScreen {
    /// The key hints for the companies list.
    static let listHints = "a add · Enter rename · d delete · Esc back"

    /// The screen as `height` lines of `width` columns (layout as the employee list's).
    func render(width: Int, height: Int) -> ScreenFrame {
        var body: [ScreenFrame.Line] = []
        var cursor: (row: Int, column: Int)?
        var heading = "Companies"
        var hints = Self.listHints
        var statusLine = status.line
        let bodyHeight = max(0, height - 3)
        switch mode {
        case .list:
            body = listBody(width: width, height: bodyHeight)
        case .confirmDelete(let company):
            body = listBody(width: width, height: bodyHeight)
            statusLine = ScreenFrame.Line(text: " Delete \(company.name)? (y/n)", style: .error)
            hints = "y delete · any other key keeps"
        case .staffed(let company, let count):
            body = listBody(width: width, height: bodyHeight)
            statusLine = ScreenFrame.Line(
                text: " \(company.name) still has \(count.counted("employee")); not deleted.",
                style: .error)
            hints = "m move them elsewhere · f force delete · any other key keeps"
        case .form(let form):
            heading = form.title
            (body, cursor) = formBody(form)
            hints = EmployeeListScreen.formHints
            if let error = form.error {
                body.append(ScreenFrame.Line(text: "   " + error, style: .error))
            }
        case .reassign(_, let picker):
            heading = picker.title
            (body, cursor) = picker.body(height: bodyHeight)
            hints = "↑↓ choose · type to search · Enter move and delete · Esc keep"
        }
        return ScreenFrame.layout(
            heading: heading, count: rows.count.counted("company", plural: "companies"),
            body: body, cursor: cursor, status: statusLine, hints: hints, width: width,
            height: height)
    }

    private func listBody(width: Int, height: Int) -> [ScreenFrame.Line] {
        let countWidth = max(9, rows.map { String($0.employeeCount).count }.max() ?? 0)
        let header = ScreenFrame.Line(
            text: .spread(
                "   NAME — CITY", "EMPLOYEES".alignedRight(to: countWidth) + " ", width: width),
            style: .dim)
        return list.lines(
            header: header, empty: "No companies yet. Press a to add one.", width: width,
            height: height
        ) { company in
            (
                company.city.map { "\(company.name) — \($0)" } ?? company.name,
                String(company.employeeCount).alignedRight(to: countWidth) + " "
            )
        }
    }

    private func formBody(_ form: CompanyForm) -> ([ScreenFrame.Line], (row: Int, column: Int)?) {
        var lines = [ScreenFrame.Line(text: "")]
        var cursor: (row: Int, column: Int)?
        for field in CompanyForm.Field.allCases {
            let text = form.fields[field] ?? TextField()
            let isFocused = field == form.focus
            let drawn = ScreenFrame.field(
                field.label, labelWidth: 4, value: text.text, isFocused: isFocused,
                cursorAfter: isFocused ? text.textBeforeCursor : nil)
            if let column = drawn.cursorColumn { cursor = (row: lines.count, column: column) }
            lines.append(drawn.line)
        }
        lines.append(ScreenFrame.Line(text: ""))
        return (lines, cursor)
    }
}
