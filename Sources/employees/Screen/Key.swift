/// One decoded key press, as the screen sees it. Terminal byte sequences are turned into these
/// by ``KeyDecoder``; tests build them directly.
enum Key: Sendable, Equatable {
    case character(Character)
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, tab, backTab, backspace, delete, escape
    /// Ctrl-C (the terminal is in raw mode, so it arrives as a key, not as SIGINT).
    case interrupt
    /// Ctrl-D, or the end of the input.
    case endOfInput
    /// Ctrl-U: clear the field being edited.
    case clearLine
    /// Any other control byte or escape sequence; ignored.
    case unknown

    /// The keys typing `text` produces.
    static func typing(_ text: String) -> [Key] { text.map { Key.character($0) } }
}

/// Turns the bytes a raw-mode terminal sends into ``Key``s.
///
/// Understands UTF-8 text, the control keys (Ctrl-A and Ctrl-E are Home and End, as in a
/// shell), and the VT100/xterm sequences for arrows,
/// Home/End, Page Up/Down, Delete and Shift-Tab (`ESC [ …` and `ESC O …`). An escape byte at
/// the end of a chunk is the Escape key: terminals send a whole sequence in one write.
struct KeyDecoder: Sendable {
    /// The start of a UTF-8 character split across two reads.
    private var pending: [UInt8] = []

    init() {}

    mutating func decode(_ chunk: [UInt8]) -> [Key] {
        let bytes = pending + chunk
        pending = []
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x1B:
                let (key, length) = Self.escapeSequence(bytes[(index + 1)...])
                keys.append(key)
                index += 1 + length
                continue
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x09: keys.append(.tab)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x03: keys.append(.interrupt)
            case 0x04: keys.append(.endOfInput)
            case 0x15: keys.append(.clearLine)
            case 0x01: keys.append(.home)
            case 0x05: keys.append(.end)
            case 0x00..<0x20: keys.append(.unknown)
            case 0x20..<0x80: keys.append(.character(Character(Unicode.Scalar(byte))))
            default:
                let length = Self.utf8Length(leadingByte: byte)
                if index + length > bytes.count {
                    pending = Array(bytes[index...])
                    return keys
                }
                let scalarBytes = bytes[index..<(index + length)]
                if let text = String(validating: scalarBytes, as: UTF8.self), let first = text.first
                {
                    keys.append(.character(first))
                } else {
                    keys.append(.unknown)
                }
                index += length
                continue
            }
            index += 1
        }
        return keys
    }

    private static func utf8Length(leadingByte byte: UInt8) -> Int {
        switch byte {
        case 0xC0..<0xE0: return 2
        case 0xE0..<0xF0: return 3
        case 0xF0..<0xF8: return 4
        default: return 1
        }
    }

    /// The key for the bytes after an escape, and how many of them it used.
    private static func escapeSequence(_ rest: ArraySlice<UInt8>) -> (Key, Int) {
        guard let introducer = rest.first else { return (.escape, 0) }
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            return (.escape, 0)
        }
        // CSI: parameters (digits and ';') then one final byte.
        var length = 1
        var parameters = ""
        for byte in rest.dropFirst() {
            length += 1
            if byte >= 0x40 && byte <= 0x7E {
                return (key(final: byte, parameters: parameters), length)
            }
            parameters.append(Character(Unicode.Scalar(byte)))
        }
        return (.unknown, length)
    }

    private static func key(final: UInt8, parameters: String) -> Key {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .backTab
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return .unknown
            }
        default: return .unknown
        }
    }
}
