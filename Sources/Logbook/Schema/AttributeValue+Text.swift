import Foundation

extension AttributeValue {
    /// The value as JSON, as the tools write it (FORMAT.md, "Appendix: the JSON of the tools"):
    /// `null`; numbers and `true`/`false` as such; strings escaped (`\"`, `\\`, `\n`, `\r`,
    /// `\t`, `\u00XX` for other control characters, U+007F and U+0080–U+009F); a date as an ISO
    /// 8601 string in UTC (`"2024-05-01T12:00:00Z"`, with milliseconds, `.250Z`, when the date
    /// has a fraction of a second); data as a string of lower-case hex; a UUID as its upper-case
    /// string; a non-finite double or float as the string `"nan"`, `"inf"` or `"-inf"`; a float
    /// in its own shortest form (`0.1`); a decimal as a number with all its digits (`12.50` is
    /// `12.5`), NaN as `"nan"`; an array or set as an array; a composite as an object of its
    /// fields.
    /// - Complexity: O(length of the text).
    public var jsonText: String { text(as: .json) }

    /// Reads a value of `type` from its plain text: the string itself, a decimal integer (in
    /// the type's range), a double or float as Swift writes it (`2.5`, `1e+20`, `nan`, `inf`), a
    /// decimal number (`-12.50`, `1e-3`, `nan`), `true` or `false`, an ISO 8601 date with or
    /// without fractional seconds, hex with an even number of digits (either case), a UUID
    /// string, or a URL. This is the CSV field unquoted, and what the JSON form holds inside
    /// its quotes or as a number. Arrays, sets and composites are JSON, which tools read with
    /// their descriptions.
    /// - Returns: `nil` if `text` is not a value of `type`.
    public init?(text: some StringProtocol, as type: AttributeType) {
        if let range = type.integerRange {
            guard let value = Int64(text), range.contains(value) else { return nil }
            self = .integer(value)
            return
        }
        switch type {
        case .string: self = .string(String(text))
        case .url:
            guard URL(string: String(text)) != nil else { return nil }
            self = .string(String(text))
        case .uint64:
            guard let value = UInt64(text) else { return nil }
            self = .unsigned(value)
        case .float:
            guard let value = Float(text) else { return nil }
            self = .float(value)
        case .decimal:
            guard let value = TextRendering.parseDecimal(text) else { return nil }
            self = .decimal(value)
        case .double:
            guard let value = Double(text) else { return nil }
            self = .double(value)
        case .bool:
            guard text == "true" || text == "false" else { return nil }
            self = .bool(text == "true")
        case .date:
            guard let value = TextRendering.parseISO8601(String(text)) else { return nil }
            self = .date(value)
        case .data:
            guard let value = TextRendering.parseHex(text.utf8) else { return nil }
            self = .data(value)
        case .uuid:
            guard let value = UUID(uuidString: String(text)) else { return nil }
            self = .uuid(value)
        default: return nil
        }
    }
}
