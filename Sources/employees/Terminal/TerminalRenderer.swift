/// Turns a ``ScreenFrame`` into the ANSI escape sequences that draw it over the whole window.
enum TerminalRenderer {
    private static let escape = "\u{1B}["

    /// A full redraw: every line cleared and written, then the cursor placed (or hidden).
    static func draw(_ frame: ScreenFrame, width: Int) -> String {
        var output = escape + "?25l" + escape + "H"
        for (row, line) in frame.lines.enumerated() {
            output += escape + "\(row + 1);1H" + escape + "2K"
            let text =
                line.style == .selected || line.style == .title
                ? line.text.fitted(to: width) : line.text
            switch line.style {
            case .normal: output += text
            case .title: output += escape + "1;7m" + text + escape + "0m"
            case .selected: output += escape + "7m" + text + escape + "0m"
            case .dim: output += escape + "2m" + text + escape + "0m"
            case .error: output += escape + "31m" + text + escape + "0m"
            }
        }
        if let cursor = frame.cursor {
            output += escape + "\(cursor.row + 1);\(cursor.column + 1)H" + escape + "?25h"
        }
        return output
    }
}
