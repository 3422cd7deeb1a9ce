import Foundation

extension AttributeValue {
    /// The text forms in which tools exchange attribute values (`logbook dump`, `export`,
    /// `import`; FORMAT.md, "Appendix: the JSON of the tools").
    public enum TextFormat: Sendable, Hashable {
        /// JSON: `null`; numbers and `true`/`false` as such; strings escaped (`\"`, `\\`, `\n`,
        /// `\r`, `\t`, `\u00XX` for other control characters, U+007F and U+0080–U+009F); a date
        /// as an ISO 8601 string in UTC (`"2024-05-01T12:00:00Z"`, with milliseconds,
        /// `.250Z`, when the date has a fraction of a second); data as a string of lower-case
        /// hex; a UUID as its upper-case string; a non-finite double or float as the string
        /// `"nan"`, `"inf"` or `"-inf"`; a float in its own shortest form (`0.1`); a decimal as
        /// a number with all its digits (`12.50` is `12.5`), NaN as `"nan"`; an array or set as
        /// an array; a composite as an object of its fields.
        case json
        /// A CSV field (RFC 4180): the ``init(text:as:)`` form, in double quotes (doubled
        /// inside) when it holds a comma, a quote or a line break, or is empty (`""`, so that
        /// an empty string is not `null`); empty for `null`. An array, set or composite is its
        /// JSON text.
        case csv
        /// An SQL literal that SQLite and PostgreSQL read alike: `NULL`, numbers (a decimal
        /// with all its digits), `TRUE` and `FALSE`, and everything else as a single-quoted
        /// string in its ``init(text:as:)`` form (quotes doubled); an array, set or composite
        /// as its JSON text, quoted.
        case sql
    }

    /// Appends the value in `format` to `output` as UTF-8.
    /// - Complexity: O(length of the text).
    public func append(as format: TextFormat, to output: inout [UInt8]) {
        switch self {
        case .null:
            switch format {
            case .json: TextRendering.append("null", to: &output)
            case .csv: break
            case .sql: TextRendering.append("NULL", to: &output)
            }
        case .integer(let value): TextRendering.appendDecimal(value, to: &output)
        case .unsigned(let value): output.append(contentsOf: String(value).utf8)
        case .decimal(let value) where !value.isNaN:
            output.append(contentsOf: value.description.utf8)
        case .float(let value) where value.isFinite: output.append(contentsOf: String(value).utf8)
        case .array, .composite:
            var json: [UInt8] = []
            appendJSON(to: &json)
            switch format {
            case .json: output.append(contentsOf: json)
            case .csv: TextRendering.appendCSVField(String(decoding: json, as: UTF8.self), to: &output)
            case .sql: TextRendering.appendSQLString(String(decoding: json, as: UTF8.self), to: &output)
            }
        case .string(let value):
            switch format {
            case .json: TextRendering.appendJSONString(value, to: &output)
            case .csv: TextRendering.appendCSVField(value, to: &output)
            case .sql: TextRendering.appendSQLString(value, to: &output)
            }
        case .bool(let value):
            if format == .sql {
                TextRendering.append(value ? "TRUE" : "FALSE", to: &output)
            } else {
                TextRendering.append(value ? "true" : "false", to: &output)
            }
        case .double(let value) where value.isFinite: output.append(contentsOf: String(value).utf8)
        case .double, .date, .data, .uuid, .float, .decimal:
            // Their plain text, quoted for JSON and SQL; it never needs CSV quoting or escaping.
            let quote: UInt8? =
                format == .json ? UInt8(ascii: "\"") : format == .sql ? UInt8(ascii: "'") : nil
            if let quote { output.append(quote) }
            appendPlainText(to: &output)
            if let quote { output.append(quote) }
        }
    }

    /// The value in `format`.
    public func text(as format: TextFormat) -> String {
        var bytes: [UInt8] = []
        append(as: format, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

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

    /// Appends the JSON of an array or composite (of anything, through ``append(as:to:)``).
    private func appendJSON(to output: inout [UInt8]) {
        switch self {
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { output.append(UInt8(ascii: ",")) }
                item.append(as: .json, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .composite(let composite):
            output.append(UInt8(ascii: "{"))
            for (i, (field, item)) in zip(composite.fields, composite.values).enumerated() {
                if i > 0 { output.append(UInt8(ascii: ",")) }
                TextRendering.appendJSONString(field, to: &output)
                output.append(UInt8(ascii: ":"))
                item.append(as: .json, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        default: append(as: .json, to: &output)
        }
    }

    /// The unquoted text of a date, data, UUID or double.
    private func appendPlainText(to output: inout [UInt8]) {
        switch self {
        case .date(let date): output.append(contentsOf: TextRendering.iso8601(date).utf8)
        case .data(let data): TextRendering.appendHex(data, to: &output)
        case .uuid(let uuid): TextRendering.appendUUID(uuid, to: &output)
        case .double(let value): output.append(contentsOf: String(value).utf8)
        case .float(let value): output.append(contentsOf: String(value).utf8)
        case .decimal(let value):
            output.append(contentsOf: (value.isNaN ? "nan" : value.description).utf8)
        case .null, .string, .integer, .bool, .unsigned, .array, .composite:
            append(as: .csv, to: &output)
        }
    }
}
