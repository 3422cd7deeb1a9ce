import Foundation
import Logbook

/// How attribute values show on the pages: always escaped, `nil` marked as such, long text and
/// data cut in the grid (the object's own page shows them whole, data up to a bound).
enum ValueText {
    /// Characters of a string shown in a grid cell.
    static let cellCharacters = 80
    /// Bytes of data shown (as hex) on an object's page.
    static let dataBytesShown = 4096

    /// The value in a grid cell.
    static func cell(_ value: AttributeValue) -> HTML {
        show(value, characters: cellCharacters, dataBytes: 16)
    }

    /// The value on its object's page.
    static func full(_ value: AttributeValue) -> HTML {
        show(value, characters: .max, dataBytes: dataBytesShown)
    }

    /// The value as it is typed in an edit form (``AttributeValue/init(text:as:)`` reads it
    /// back); empty for `nil`.
    static func editable(_ value: AttributeValue) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        // The plain text of the other types, which CSV never quotes.
        default: return value.text(as: .csv)
        }
    }

    private static func show(_ value: AttributeValue, characters: Int, dataBytes: Int) -> HTML {
        switch value {
        case .null: return "<span class=\"null\">nil</span>"
        case .string(let text):
            if text.isEmpty { return "<span class=\"empty\">(empty)</span>" }
            guard text.count > characters else { return "<span class=\"text\">\(text)</span>" }
            return
                "<span class=\"text\">\(text.prefix(characters))</span><span class=\"more\" title=\"cut\">…</span>"
        case .data(let data):
            let hex = AttributeValue.data(data.prefix(dataBytes)).text(as: .csv)
            let more: HTML = data.count > dataBytes ? "<span class=\"more\">…</span>" : ""
            return "<span class=\"data\">\(data.count) bytes</span> <code>\(hex)</code>\(more)"
        case .bool(let flag): return "<span class=\"bool\">\(flag ? "true" : "false")</span>"
        default:
            return
                "<span class=\"\(value.type.map { "\($0)" } ?? "")\">\(value.text(as: .csv))</span>"
        }
    }
}
