/// One line of editable text with a cursor, for the forms.
///
/// Keys: characters insert at the cursor; ← → move by one character, Home/End (and Ctrl-A,
/// Ctrl-E) to the ends; Backspace deletes before the cursor, Delete at it; Ctrl-U clears the
/// field. The cursor counts characters (grapheme clusters), so it never splits 李 or an emoji.
struct TextField: Sendable, Equatable {
    private(set) var text: String
    /// The number of characters before the cursor, `0...text.count`.
    private(set) var cursor: Int

    /// A field holding `text`, the cursor at its end.
    init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    /// The text before the cursor (to place the terminal's cursor after it).
    var textBeforeCursor: Substring { text.prefix(cursor) }

    /// Applies `key`; returns whether the field used it.
    mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let character):
            let count = text.count
            text.insert(character, at: index(cursor))
            // A combining mark joins the character before it: the count may not grow.
            cursor += text.count - count
        case .left:
            cursor = max(0, cursor - 1)
        case .right:
            cursor = min(text.count, cursor + 1)
        case .home:
            cursor = 0
        case .end:
            cursor = text.count
        case .backspace:
            guard cursor > 0 else { return true }
            text.remove(at: index(cursor - 1))
            cursor -= 1
        case .delete:
            guard cursor < text.count else { return true }
            text.remove(at: index(cursor))
        case .clearLine:
            text = ""
            cursor = 0
        default:
            return false
        }
        return true
    }

    private func index(_ offset: Int) -> String.Index {
        text.index(text.startIndex, offsetBy: offset)
    }
}
