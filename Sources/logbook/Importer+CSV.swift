import Foundation
import Logbook

extension Importer {
    /// Parses CSV `text` (the contents of `file`, as `export --format csv` writes it) as objects
    /// of `entity`: a header row naming the columns (`id` is skipped), then one row per object.
    /// An empty field is `nil` for an optional attribute and `""` for a required string.
    /// - Throws: ``LineError`` at the first row that does not parse or does not fit the schema
    ///   (the line is where the row starts).
    init(csv text: String, file: String, entity: Entity) throws {
        var rows = CSVReader(text)
        guard let header = try rows.next(file: file) else {
            throw LineError(
                file: file, line: 1, message: "the file is empty; it needs a header row")
        }
        var columns: [AttributeDescription?] = []
        for name in header.fields {
            if name == "id" || name == "_id" {
                columns.append(nil)
                continue
            }
            guard let attribute = entity.attributes.first(where: { $0.name == name }) else {
                throw LineError(
                    file: file, line: header.line,
                    message: "\(entity.name) has no attribute \"\(name)\" (a column of the header)")
            }
            columns.append(attribute)
        }
        var objects: [(entity: String, values: [String: AttributeValue])] = []
        var lines: [Int] = []
        while let row = try rows.next(file: file) {
            func fail(_ message: String) -> LineError {
                LineError(file: file, line: row.line, message: message)
            }
            if row.fields == [""] { continue }
            guard row.fields.count == columns.count else {
                throw fail("\(row.fields.count) fields, but the header has \(columns.count)")
            }
            var values: [String: AttributeValue] = [:]
            for (field, column) in zip(row.fields, columns) {
                guard let attribute = column else { continue }
                guard let value = AttributeValue(csvField: field, as: attribute) else {
                    throw fail(
                        "\(entity.name).\(attribute.name) holds \(attribute.type), not "
                            + Formatting.quoted(String(field.prefix(40))))
                }
                values[attribute.name] = value
            }
            for attribute in entity.attributes
            where values[attribute.name] == nil && !attribute.isOptional
                && attribute.defaultValue == nil
            {
                throw fail("\(entity.name).\(attribute.name) is required but has no column")
            }
            objects.append((entity.name, values))
            lines.append(row.line)
        }
        self.init(file: file, objects: objects, lines: lines)
    }
}

extension AttributeValue {
    /// Reads a CSV field as a value of `attribute`: empty is `nil` (optional) or `""` (required
    /// string); else the plain text of ``init(text:as:)``. `nil` if the text is none of these.
    init?(csvField text: String, as attribute: AttributeDescription) {
        if text.isEmpty {
            if attribute.isOptional {
                self = .null
            } else if attribute.type == .string {
                self = .string("")
            } else {
                return nil
            }
            return
        }
        self.init(text: text, as: attribute.type)
    }
}

/// Splits RFC 4180 CSV into rows of fields: commas between fields, `"` around a field that
/// holds commas, quotes (doubled) or line breaks; rows end with CRLF or LF.
struct CSVReader {
    /// One row and the 1-based line it starts on.
    struct Row {
        /// The fields, unquoted.
        var fields: [String]
        /// The 1-based line the row starts on.
        var line: Int
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var line = 1

    /// A reader of `text`.
    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// The next row, or `nil` at the end.
    /// - Throws: ``Importer/LineError`` for a quote that is never closed or text after a
    ///   closing quote.
    mutating func next(file: String) throws -> Row? {
        guard position < scalars.count else { return nil }
        let start = line
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false
        var wasQuoted = false
        while position < scalars.count {
            let c = scalars[position]
            position += 1
            if quoted {
                if c == "\"" {
                    if position < scalars.count && scalars[position] == "\"" {
                        field.append("\"")
                        position += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if c == "\n" { line += 1 }
                    field.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty && !wasQuoted else {
                    throw Importer.LineError(
                        file: file, line: line, message: "a quote inside an unquoted field")
                }
                quoted = true
                wasQuoted = true
            case ",":
                fields.append(String(field))
                field = String.UnicodeScalarView()
                wasQuoted = false
            case "\r" where position < scalars.count && scalars[position] == "\n":
                continue
            case "\n":
                line += 1
                fields.append(String(field))
                return Row(fields: fields, line: start)
            default:
                if wasQuoted {
                    throw Importer.LineError(
                        file: file, line: line, message: "text after a closing quote")
                }
                field.append(c)
            }
        }
        if quoted {
            throw Importer.LineError(file: file, line: start, message: "a quote is never closed")
        }
        fields.append(String(field))
        return Row(fields: fields, line: start)
    }
}
