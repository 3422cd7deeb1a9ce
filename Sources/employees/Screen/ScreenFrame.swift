/// What the screen wants shown: plain-text lines with a style each, and where the cursor goes.
/// ``TerminalRenderer`` turns it into escape sequences; tests read `lines` directly.
struct ScreenFrame: Sendable, Equatable {
    /// How a line is drawn.
    enum Style: Sendable, Equatable {
        case normal, title, selected, dim, error
    }

    /// One line of text, at most the frame's width in characters.
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

extension String {
    /// The text with control characters (which would move the cursor or inject escape
    /// sequences) shown as `�`.
    var displayable: String {
        guard unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return self
        }
        return String(
            String.UnicodeScalarView(
                unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }))
    }

    /// This text cut or padded with spaces to exactly `width` characters.
    func fitted(to width: Int) -> String {
        guard width > 0 else { return "" }
        if count > width { return String(prefix(max(0, width - 1))) + "…" }
        return self + String(repeating: " ", count: width - count)
    }

    /// `left` and `right` on one line of `width`, `right` flush right; `left` is cut first.
    static func spread(_ left: String, _ right: String, width: Int) -> String {
        let room = width - right.count - 1
        guard room > 0 else { return left.fitted(to: width) }
        return left.fitted(to: room) + " " + right
    }
}
