/// What the screen wants shown: plain-text lines with a style each, and where the cursor goes.
/// ``TerminalRenderer`` turns it into escape sequences; tests read `lines` directly.
struct ScreenFrame: Sendable, Equatable {
    /// How a line is drawn.
    enum Style: Sendable, Equatable {
        case normal, title, selected, dim, error
    }

    /// One line of text, exactly the frame's width in columns (see ``Swift/String/displayWidth``).
    struct Line: Sendable, Equatable {
        var text: String
        var style: Style = .normal
    }

    /// Exactly `height` lines.
    var lines: [Line]
    /// Zero-based row and column of the visible cursor, or `nil` to hide it.
    var cursor: (row: Int, column: Int)?

    /// The lines' text, for tests and plain output.
    var texts: [String] { lines.map(\.text) }

    static func == (lhs: ScreenFrame, rhs: ScreenFrame) -> Bool {
        lhs.lines == rhs.lines && lhs.cursor?.row == rhs.cursor?.row
            && lhs.cursor?.column == rhs.cursor?.column
    }
}

extension ScreenFrame {
    /// The parts every screen has, laid out on `width` × `height`: a title line (`heading`
    /// left, `count` right), the body (cut to fit), blank lines, `status` and a hint line.
    /// `cursor` is relative to the body; it is hidden if its row is cut off.
    static func layout(
        heading: String, count: String, body: [Line], cursor: (row: Int, column: Int)?,
        status: Line, hints: String, width: Int, height: Int
    ) -> ScreenFrame {
        let width = max(width, 1)
        let height = max(height, 1)
        let bodyHeight = max(0, height - 3)
        var lines = [Line(text: .spread(" " + heading, count + " ", width: width), style: .title)]
        lines += body.prefix(bodyHeight)
        while lines.count < height - 2 { lines.append(Line(text: "")) }
        lines.append(status)
        lines.append(Line(text: " " + hints, style: .dim))
        lines = lines.suffix(height).map {
            Line(text: $0.text.displayable.fitted(to: width), style: $0.style)
        }
        // +1 for the title line above the body.
        var placed = cursor.map { (row: $0.row + 1, column: min($0.column, width - 1)) }
        if let position = placed, position.row >= lines.count || position.row > bodyHeight {
            placed = nil
        }
        return ScreenFrame(lines: lines, cursor: placed)
    }

    /// The rows of a list of `count` items to show in `height` lines so that `selection` is
    /// visible.
    static func window(count: Int, selection: Int, height: Int) -> Range<Int> {
        let visible = max(1, height)
        let top = selection < visible ? 0 : selection - visible + 1
        return top..<min(count, top + visible)
    }

    /// A form's text field on one line: marker, label padded to `labelWidth`, the value; and
    /// the column of the cursor if the field is focused.
    static func field(
        _ label: String, labelWidth: Int, value: String, isFocused: Bool,
        cursorAfter prefix: Substring? = nil
    ) -> (line: Line, cursorColumn: Int?) {
        let start = (isFocused ? " > " : "   ") + (label + ":").fitted(to: labelWidth + 2)
        let column = prefix.map { start.displayWidth + String($0).displayable.displayWidth }
        return (Line(text: start + value, style: isFocused ? .selected : .normal), column)
    }
}
