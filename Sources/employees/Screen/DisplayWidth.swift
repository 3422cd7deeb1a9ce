import Logbook

/// Text measured in terminal columns, so tables and the screen stay aligned when names hold
/// double-width characters (李小龙, emoji) or combining marks.
///
/// A character takes 2 columns if it is East Asian Wide or Fullwidth, or an emoji presented
/// as one (by default or with U+FE0F); 0 if it starts with a combining mark, a format
/// character (zero-width space, joiners) or a control; else 1. Ambiguous-width characters
/// count as 1, as terminals outside East Asian locales draw them.
extension Character {
    var displayWidth: Int {
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if first.properties.isEmoji && scalars.contains("\u{FE0F}") { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return Self.isWide(first.value) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth code points (Unicode 15; emoji are handled above).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF,
            0x1B000...0x1B2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension String {
    /// The columns a terminal uses to draw this text.
    var displayWidth: Int {
        isPrintableASCII ? utf8.count : reduce(0) { $0 + $1.displayWidth }
    }

    /// Whether the text is all printable ASCII (space to `~`): then it is its own
    /// ``displayable`` form and takes one column a byte. Checked on the bytes, for speed.
    var isPrintableASCII: Bool {
        utf8.withContiguousStorageIfAvailable { ASCIIScan.isPrintableASCII($0) }
            ?? utf8.allSatisfy { $0 &- 0x20 < 0x5F }
    }

    /// The text with control characters (which would move the cursor or inject escape
    /// sequences) shown as `�`.
    var displayable: String {
        guard !isPrintableASCII,
            unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            return self
        }
        return String(
            String.UnicodeScalarView(
                unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }))
    }

    /// This text cut (ending in `…`) or padded with spaces to exactly `width` columns. A
    /// double-width character that would straddle the edge is left out and replaced by a space.
    func fitted(to width: Int) -> String {
        guard width > 0 else { return "" }
        let total = displayWidth
        if total <= width { return self + String(repeating: " ", count: width - total) }
        var kept = ""
        var used = 0
        for character in self {
            let characterWidth = character.displayWidth
            if used + characterWidth > width - 1 { break }
            kept.append(character)
            used += characterWidth
        }
        return kept + "…" + String(repeating: " ", count: width - 1 - used)
    }

    /// This text with spaces in front to fill `width` columns (unchanged if it is wider).
    func alignedRight(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - displayWidth)) + self
    }

    /// `left` and `right` on one line of `width` columns, `right` flush right; `left` is cut
    /// first.
    static func spread(_ left: String, _ right: String, width: Int) -> String {
        let room = width - right.displayWidth - 1
        guard room > 0 else { return left.fitted(to: width) }
        return left.fitted(to: room) + " " + right
    }
}
