import Foundation
import Logbook

/// Reads CSV as `logbook export --format csv` writes it, one row at a time: a header row
/// naming the columns, then one row per object of `entity`. An empty field is `nil` for an
/// optional attribute and `""` for a required string. The `id` column is the object's `_id`
/// (``FileKeys``); a stored relationship's column holds a to-one's key or a link list's hex,
/// as export writes them (empty: none).
struct CSVSource: ImportSource {
    /// What a column of the header holds.
    private enum Column {
        case id
        case attribute(index: Int, AttributeDescription)
        case relationship(index: Int, toMany: Bool)
    }

    private let input: InputReader
    private let file: String
    private let entity: Entity
    private var rows = CSVRows()
    /// The columns, once the header is read.
    private var columns: [Column]?
    var fileSchema: Schema? { nil }

    /// A source reading `input` (the file named `file` on the command line) as objects of
    /// `entity`.
    init(input: InputReader, file: String, entity: Entity) {
        self.input = input
        self.file = file
        self.entity = entity
    }

    mutating func next() throws -> ImportedObject? {
        if columns == nil {
            guard let header = try row() else {
                throw LineError(
                    file: file, line: 1, message: "the file is empty; it needs a header row")
            }
            columns = try header.fields.map { name in
                if name == "id" || name == "_id" { return .id }
                if let index = entity.attributeIndex(name) {
                    return .attribute(index: index, entity.attributes[index])
                }
                if let r = entity.relationships.firstIndex(where: { $0.name == name && $0.isStored }
                ) {
                    return .relationship(index: r, toMany: entity.relationships[r].isToMany)
                }
                throw LineError(
                    file: file, line: header.line,
                    message:
                        "\(entity.name) has no attribute or stored relationship \"\(name)\" (a column of the header)"
                )
            }
        }
        let columns = self.columns ?? []
        while let row = try row() {
            func fail(_ message: String) -> LineError {
                LineError(file: file, line: row.line, message: message)
            }
            if row.fields == [""] { continue }
            guard row.fields.count == columns.count else {
                throw fail("\(row.fields.count) fields, but the header has \(columns.count)")
            }
            var object = ImportedObject(
                entity: entity,
                values: [AttributeValue?](repeating: nil, count: entity.attributes.count),
                line: row.line)
            for (f, (field, column)) in zip(row.fields, columns).enumerated() {
                switch column {
                case .id:
                    guard !field.isEmpty else { continue }
                    guard let id = Int64(field), id > 0 else {
                        throw fail(
                            "id holds \(Formatting.quoted(String(field.prefix(40)))), not a key of 1 or more"
                        )
                    }
                    object.id = id
                case .attribute(let index, let attribute):
                    let quoted = f < row.quoted.count && row.quoted[f]
                    guard let value = AttributeValue(csvField: field, quoted: quoted, as: attribute)
                    else {
                        throw fail(
                            "\(entity.name).\(attribute.name) holds \(attribute.declaredType), not "
                                + Formatting.quoted(String(field.prefix(40))))
                    }
                    object.values[index] = value
                case .relationship(let index, let toMany):
                    guard let keys = FileKeys.keys(csvField: field, toMany: toMany) else {
                        throw fail(
                            "\(entity.name).\(entity.relationships[index].name) holds "
                                + (toMany ? "a link list (the hex of its keys)" : "a key")
                                + ", not " + Formatting.quoted(String(field.prefix(40))))
                    }
                    if !keys.isEmpty { object.links.append((index, keys)) }
                }
            }
            for (attribute, value) in zip(entity.attributes, object.values)
            where value == nil && !attribute.isOptional && attribute.defaultValue == nil {
                throw fail("\(entity.name).\(attribute.name) is required but has no column")
            }
            return object
        }
        return nil
    }

    private mutating func row() throws -> CSVRows.Row? {
        let file = self.file
        return try input.next { bytes, isLast in try rows.parse(bytes, isLast: isLast, file: file) }
    }
}

extension AttributeValue {
    /// Reads a CSV field as a value of `attribute`: `""` (quoted) is an empty string; empty is
    /// `nil` (optional) or `""` (required string); an array, set or composite is its JSON; else
    /// the plain text of ``init(text:as:)``. `nil` if the text is none of these.
    init?(csvField text: String, quoted: Bool = false, as attribute: AttributeDescription) {
        if text.isEmpty && quoted && (attribute.type == .string || attribute.type == .url) {
            self.init(text: text, as: attribute.type)
            return
        }
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
        switch attribute.type {
        case .array, .set, .composite:
            var text = text
            let json = text.withUTF8 { try? JSONParser.parse($0) }
            guard let json else { return nil }
            self.init(json: json, as: attribute)
        default:
            self.init(text: text, as: attribute.type)
        }
    }
}

/// Splits RFC 4180 CSV into rows of fields: commas between fields, `"` around a field that
/// holds commas, quotes (doubled) or line breaks; rows end with CRLF or LF.
struct CSVRows {
    /// One row and the 1-based line it starts on.
    struct Row {
        /// The fields, unquoted.
        var fields: [String]
        /// Whether each field was in quotes (`""` is an empty string, an empty field `null`).
        var quoted: [Bool] = []
        /// The 1-based line the row starts on.
        var line: Int
    }

    /// The line the next row starts on.
    private var line = 1

    /// The row at the start of `bytes` and the bytes it takes, or `nil` if they end before the
    /// row does and more may come (`isLast` is false).
    /// - Throws: ``LineError`` for a quote that is never closed, a quote inside an unquoted
    ///   field, or text after a closing quote.
    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, isLast: Bool, file: String) throws
        -> (Row, Int)?
    {
        let start = line
        var current = line
        var fields: [String] = []
        var quoted: [Bool] = []
        var position = 0
        func fail(_ message: String, at line: Int) -> LineError {
            LineError(file: file, line: line, message: message)
        }
        while true {
            // One field, then what ends it.
            if position < bytes.count && bytes[position] == UInt8(ascii: "\"") {
                var field: [UInt8] = []
                position += 1
                while true {
                    guard position < bytes.count else {
                        guard isLast else { return nil }
                        throw fail("a quote is never closed", at: start)
                    }
                    let c = bytes[position]
                    position += 1
                    if c != UInt8(ascii: "\"") {
                        if c == 0x0A { current += 1 }
                        field.append(c)
                        continue
                    }
                    // A doubled quote is a quote; else the field ends (unless more may come).
                    guard position < bytes.count || isLast else { return nil }
                    guard position < bytes.count && bytes[position] == UInt8(ascii: "\"") else {
                        break
                    }
                    field.append(c)
                    position += 1
                }
                fields.append(String(decoding: field, as: UTF8.self))
                quoted.append(true)
                // After the closing quote: a comma, a line end or the end.
                if position + 1 < bytes.count && bytes[position] == 0x0D
                    && bytes[position + 1] == 0x0A
                {
                    position += 1
                } else if position + 1 == bytes.count && bytes[position] == 0x0D && !isLast {
                    return nil
                } else if position < bytes.count && bytes[position] != UInt8(ascii: ",")
                    && bytes[position] != 0x0A
                {
                    throw fail("text after a closing quote", at: current)
                }
            } else {
                let begin = position
                var end = position
                scan: while end < bytes.count {
                    switch bytes[end] {
                    case UInt8(ascii: ","), 0x0A: break scan
                    case UInt8(ascii: "\""):
                        throw fail("a quote inside an unquoted field", at: current)
                    case 0x0D where end + 1 < bytes.count && bytes[end + 1] == 0x0A: break scan
                    case 0x0D where end + 1 == bytes.count && !isLast: return nil
                    default: end += 1
                    }
                }
                fields.append(String(decoding: bytes.part(begin..<end), as: UTF8.self))
                quoted.append(false)
                position = end
                if position < bytes.count && bytes[position] == 0x0D { position += 1 }
            }
            guard position < bytes.count else {
                guard isLast else { return nil }
                line = current
                return (Row(fields: fields, quoted: quoted, line: start), position)
            }
            let delimiter = bytes[position]
            position += 1
            if delimiter == 0x0A {
                line = current + 1
                return (Row(fields: fields, quoted: quoted, line: start), position)
            }
        }
    }
}
