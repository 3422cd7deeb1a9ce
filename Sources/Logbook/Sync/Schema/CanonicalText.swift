import Foundation

/// The exact text of a value as the replica moves it through PostgreSQL: what the change log
/// (`logbook_sync.changes`) holds, what a snapshot reads from a table, and what the convergence
/// checks compare. Unlike PostgreSQL's own output it depends on no session setting
/// (`DateStyle`, `TimeZone`, `extra_float_digits`, `bytea_output`), and it reads back to the
/// very value:
/// - a string or URL as itself, an integer of any width in decimal, a bool as `true` or
///   `false`, a UUID in lower case;
/// - a double or float as the hex digits of its IEEE 754 bits (16 or 8);
/// - a decimal with all its digits and no trailing zero after the point (`NaN`);
/// - a date as microseconds since 1970 in decimal (PostgreSQL keeps microseconds);
/// - data as lower-case hex;
/// - a composite attribute's marker as `true` (its fields are attributes of their own);
/// - an array or set of scalars (a PostgreSQL array column) as PostgreSQL's text of a `text[]`
///   of its elements' canonical texts (`{a,"b c",NULL}`);
/// - the links of a many-to-many (rows of its ``PostgreSQLJoinTable``) as the linked primary
///   keys in ascending order, as PostgreSQL writes a `bigint[]` (`{2,7}`); none is `NULL`;
/// - an array of arrays or composites (a `JSONB` column) as JSON: the replica writes
///   ``AttributeValue/TextFormat/json``, PostgreSQL writes `jsonb`'s text, and either reads
///   back to the value (member order and spacing aside).
///
/// `NULL` stays `NULL`. Each case has its SQL twin in ``expression(_:_:)``, so a trigger and
/// this code write the same text. New attribute types add a case to each of the three
/// functions.
package enum CanonicalText {
    /// The SQL expression that turns `column` (an expression of the column type
    /// ``PostgreSQLLiteral/type(_:)-(AttributeDescription)`` gives `attribute`) into its text.
    package static func expression(_ column: String, _ attribute: AttributeDescription) -> String {
        if let element = arrayElement(attribute) {
            // Element by element, in order; an empty array stays `{}`, not `NULL`.
            return "(CASE WHEN \(column) IS NULL THEN NULL ELSE coalesce((SELECT "
                + "array_agg(\(expression("logbook_e", element)) ORDER BY logbook_o) "
                + "FROM unnest(\(column)) WITH ORDINALITY AS logbook_u(logbook_e, logbook_o)), "
                + "'{}'::text[])::text END)"
        }
        switch attribute.type {
        case .string, .url: return column
        case .double: return "encode(float8send(\(column)), 'hex')"
        case .float: return "encode(float4send(\(column)), 'hex')"
        case .decimal: return "trim_scale(\(column))::text"
        case .date: return "(extract(epoch FROM \(column)) * 1000000)::bigint::text"
        case .data: return "encode(\(column), 'hex')"
        default: return "\(column)::text"  // integers, bools, UUIDs, markers, JSONB
        }
    }

    /// The ``AttributeDescription/typeName`` the replica gives the field of a many-to-many's
    /// links (optional data in the record, rows of a join table in PostgreSQL).
    package static let linksTypeName = "logbook.links"

    static func isLinks(_ attribute: AttributeDescription) -> Bool {
        attribute.typeName == linksTypeName && attribute.type == .data
    }

    /// The element of an array or set attribute stored as a PostgreSQL array (of scalars), or
    /// `nil` for another attribute (a `JSONB` one included).
    static func arrayElement(_ attribute: AttributeDescription) -> AttributeDescription? {
        guard attribute.type == .array || attribute.type == .set else { return nil }
        guard PostgreSQLLiteral.type(attribute).hasSuffix("[]") else { return nil }
        return attribute.members.first
    }

    /// The text of `value` as its type alone says (an array of scalars as an array).
    private static func plainText(_ value: AttributeValue) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .unsigned(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .double(let number): return hexBits(number.bitPattern, digits: 16)
        case .float(let number): return hexBits(UInt64(number.bitPattern), digits: 8)
        case .decimal(let number): return number.isNaN ? "NaN" : number.description
        case .date(let date): return String(microseconds(date))
        case .data(let data):
            var bytes: [UInt8] = []
            TextRendering.appendHex(data, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        case .uuid(let uuid): return uuid.uuidString.lowercased()
        case .composite(let composite) where composite.fields.isEmpty: return "true"
        case .array(let items) where items.allSatisfy(isScalar):
            return arrayText(items.map(plainText))
        case .array, .composite: return value.text(as: .json)
        }
    }

    /// The text of `value`, a value of `attribute` (or `nil` for `null`): an array kept as
    /// `JSONB` is JSON even when it holds no element.
    package static func text(_ value: AttributeValue, _ attribute: AttributeDescription)
        -> String?
    {
        if isLinks(attribute) {
            guard let keys = PostgreSQLJoinTable.keys(value), !keys.isEmpty else { return nil }
            return "{" + keys.map { String($0) }.joined(separator: ",") + "}"
        }
        if case .array = value, arrayElement(attribute) == nil { return value.text(as: .json) }
        return plainText(value)
    }

    private static func isScalar(_ value: AttributeValue) -> Bool {
        switch value {
        case .array: return false
        case .composite(let composite): return composite.fields.isEmpty
        default: return true
        }
    }

    private static func hexBits(_ bits: UInt64, digits: Int) -> String {
        let hex = String(bits, radix: 16)
        return String(repeating: "0", count: digits - hex.count) + hex
    }

    /// PostgreSQL's text of a `text[]` holding `items` (`array_out`): an element in double
    /// quotes, with `"` and `\` escaped, when it is empty, is `NULL` in any case, or holds a
    /// brace, a quote, a backslash, a comma or white space.
    static func arrayText(_ items: [String?]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            guard let item else {
                out.append(contentsOf: "NULL".utf8)
                continue
            }
            let quote =
                item.isEmpty || item.uppercased() == "NULL"
                || item.utf8.contains { "{}\",\\ \t\n\r\u{0B}\u{0C}".utf8.contains($0) }
            if quote { out.append(UInt8(ascii: "\"")) }
            for byte in item.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    out.append(UInt8(ascii: "\\"))
                }
                out.append(byte)
            }
            if quote { out.append(UInt8(ascii: "\"")) }
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of `attribute`'s type that `text` holds (`nil` text: `null`).
    /// - Returns: `nil` if `text` is not the text of such a value (an integer out of its
    ///   type's range, a decimal with more digits than a `Decimal` keeps, an invalid URL).
    package static func value(_ text: String?, _ attribute: AttributeDescription)
        -> AttributeValue?
    {
        guard let text else { return .null }
        if isLinks(attribute) {
            guard let items = SyncSQL.parseArray(text) else { return nil }
            var keys: [UInt64] = []
            for item in items {
                guard let key = item.flatMap({ UInt64($0) }), key > 0 else { return nil }
                keys.append(key)
            }
            return PostgreSQLJoinTable.value(keys)
        }
        switch attribute.type {
        case .array, .set:
            guard let element = attribute.members.first else { return nil }
            var items: [AttributeValue] = []
            if arrayElement(attribute) != nil {
                guard let texts = SyncSQL.parseArray(text) else { return nil }
                for item in texts {
                    guard let value = value(item, element), !value.isNull || element.isOptional
                    else { return nil }
                    items.append(value)
                }
                return AttributeValue.converting(AttributeValue.array(items), to: attribute)
            }
            return json(text, attribute)
        case .composite:
            guard attribute.members.isEmpty else { return json(text, attribute) }
            return text == "true" || text == "t" ? .composite(.present) : nil
        case .bool:
            switch text {
            case "true", "t": return .bool(true)
            case "false", "f": return .bool(false)
            default: return nil
            }
        case .double:
            guard text.utf8.count == 16, let bits = UInt64(text, radix: 16) else { return nil }
            return .double(Double(bitPattern: bits))
        case .float:
            guard text.utf8.count == 8, let bits = UInt32(text, radix: 16) else { return nil }
            return .float(Float(bitPattern: bits))
        case .decimal:
            if text == "NaN" { return .decimal(.nan) }
            // Exactly: a number with more digits than a Decimal keeps does not read.
            guard let number = TextRendering.parseDecimal(text), number.description == text
            else { return nil }
            return .decimal(number)
        case .date:
            guard let micros = Int64(text) else { return nil }
            return .date(Date(timeIntervalSince1970: Double(micros) / 1_000_000))
        case .uuid: return UUID(uuidString: text).map { .uuid($0) }
        default:
            // The string, the integers of every width (in range), a URL: their plain text.
            return AttributeValue(text: text, as: attribute.type)
        }
    }

    /// A value of `attribute` from JSON text.
    private static func json(_ text: String, _ attribute: AttributeDescription) -> AttributeValue? {
        var bytes = Array(text.utf8)
        let parsed = bytes.withUnsafeMutableBufferPointer {
            try? JSONParser.parse(UnsafeBufferPointer($0))
        }
        return parsed.flatMap { AttributeValue(json: $0, as: attribute) }
    }

    /// `date` in microseconds since 1970, rounded as PostgreSQL stores it.
    package static func microseconds(_ date: Date) -> Int64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        return micros.isFinite && abs(micros) < 9.2e18 ? Int64(micros) : 0
    }
}
