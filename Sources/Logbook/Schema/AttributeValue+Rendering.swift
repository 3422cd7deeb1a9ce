import Foundation

extension AttributeValue {
    /// The text forms in which tools exchange attribute values (`logbook dump`, `export`,
    /// `import`; FORMAT.md, "Appendix: the JSON of the tools"). The JSON form is public as
    /// ``jsonText``; the CSV and SQL forms are the tools' own.
    package enum TextFormat: Sendable, Hashable {
        /// JSON, as ``jsonText`` describes it.
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

    /// Appends the string a record stores as `bytes` in `format` to `output`, as
    /// `AttributeValue.string(String(decoding: bytes, as: UTF8.self))` appends itself, without
    /// building the string when the bytes are ASCII.
    /// - Parameters:
    ///   - bytes: the string's stored UTF-8 (not checked: bytes that are not valid UTF-8 are
    ///     repaired as `String(decoding:as:)` repairs them).
    ///   - format: the text format to write.
    ///   - output: where the text is appended.
    /// - Complexity: O(`bytes.count`).
    package static func appendString(
        utf8 bytes: UnsafeRawBufferPointer, as format: TextFormat, to output: inout [UInt8]
    ) {
        guard ASCIIScan.isASCII(bytes) else {
            return AttributeValue.string(String(decoding: bytes, as: UTF8.self)).append(
                as: format, to: &output)
        }
        let utf8 = bytes.assumingMemoryBound(to: UInt8.self)
        switch format {
        case .json: TextRendering.appendJSONString(utf8: utf8, to: &output)
        case .csv: TextRendering.appendCSVField(utf8: utf8, to: &output)
        case .sql: TextRendering.appendSQLString(utf8: utf8, to: &output)
        }
    }

    /// Appends the value in `format` to `output` as UTF-8.
    /// - Complexity: O(length of the text).
    package func append(as format: TextFormat, to output: inout [UInt8]) {
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
            case .csv:
                TextRendering.appendCSVField(String(decoding: json, as: UTF8.self), to: &output)
            case .sql:
                TextRendering.appendSQLString(String(decoding: json, as: UTF8.self), to: &output)
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
    package func text(as format: TextFormat) -> String {
        var bytes: [UInt8] = []
        append(as: format, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
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
