import Foundation

/// The type of an attribute as the tool shows and exports it; the names are the ones the
/// schema uses (`String`, `Int64`, …).
enum FieldType: String, Sendable, CaseIterable {
    case string = "String"
    case integer = "Int64"
    case double = "Double"
    case bool = "Bool"
    case date = "Date"
    case data = "Data"
    case uuid = "UUID"

    /// The column type in `export --format sql`, accepted by SQLite and PostgreSQL alike.
    var sqlType: String {
        switch self {
        case .string: return "TEXT"
        case .integer: return "BIGINT"
        case .double: return "DOUBLE PRECISION"
        case .bool: return "BOOLEAN"
        case .date: return "TIMESTAMP WITH TIME ZONE"
        case .data: return "TEXT"  // hex: no binary literal means the same in both
        case .uuid: return "TEXT"
        }
    }
}

/// One attribute value of a decoded object, in the tool's own terms (the object layer's values
/// are converted in `StoredSchema.swift`, the one file that speaks its API).
enum FieldValue: Sendable, Equatable {
    case null
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case data([UInt8])
    case uuid(UUID)

    /// How the value reads in text output: strings quoted, dates ISO 8601, data as `0x…`.
    var display: String {
        switch self {
        case .null: return "nil"
        case .string(let s): return Formatting.quoted(s)
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return String(b)
        case .date(let d): return Self.iso8601(d)
        case .data(let bytes): return "0x" + Formatting.hex(bytes)
        case .uuid(let u): return u.uuidString
        }
    }

    /// The value as JSON: numbers and booleans as such, dates as ISO 8601 strings, data as hex
    /// strings, non-finite doubles as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.
    var json: String {
        switch self {
        case .null: return "null"
        case .string(let s): return Formatting.quoted(s)
        case .integer(let i): return String(i)
        case .double(let d): return d.isFinite ? Self.jsonNumber(d) : Formatting.quoted(String(d))
        case .bool(let b): return String(b)
        case .date(let d): return Formatting.quoted(Self.iso8601(d))
        case .data(let bytes): return Formatting.quoted(Formatting.hex(bytes))
        case .uuid(let u): return Formatting.quoted(u.uuidString)
        }
    }

    /// The value as a CSV field (RFC 4180: quoted when it holds a comma, quote or line break;
    /// empty for `nil`).
    var csv: String {
        let text: String
        switch self {
        case .null: return ""
        case .string(let s): text = s
        case .date(let d): text = Self.iso8601(d)
        case .data(let bytes): text = Formatting.hex(bytes)
        case .uuid(let u): text = u.uuidString
        default: text = json
        }
        if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }

    /// The value as an SQL literal that SQLite and PostgreSQL read the same way.
    var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .string(let s): return Self.sqlString(s)
        case .integer(let i): return String(i)
        case .double(let d): return d.isFinite ? Self.jsonNumber(d) : Self.sqlString(String(d))
        case .bool(let b): return b ? "TRUE" : "FALSE"
        case .date(let d): return Self.sqlString(Self.iso8601(d))
        case .data(let bytes): return Self.sqlString(Formatting.hex(bytes))
        case .uuid(let u): return Self.sqlString(u.uuidString)
        }
    }

    /// Reads a value of `type` from its JSON form (as ``json`` writes it); `nil` if it is not
    /// one. Integers convert to doubles; nothing else converts.
    static func fromJSON(_ json: JSONValue, as type: FieldType) -> FieldValue? {
        if case .null = json { return .null }
        switch (type, json) {
        case (.string, .string(let s)): return .string(s)
        case (.integer, .number(let text)): return Int64(text).map { .integer($0) }
        case (.double, .number(let text)): return Double(text).map { .double($0) }
        case (.double, .string(let text)):
            guard let d = Double(text), !d.isFinite else { return nil }
            return .double(d)
        case (.bool, .bool(let b)): return .bool(b)
        case (.date, .string(let text)): return parseISO8601(text).map { .date($0) }
        case (.data, .string(let text)): return parseHex(text).map { .data($0) }
        case (.uuid, .string(let text)): return UUID(uuidString: text).map { .uuid($0) }
        default: return nil
        }
    }

    /// A finite double as the shortest text that reads back the same (`2.0`, `1e+20`), valid
    /// in JSON and SQL.
    private static func jsonNumber(_ d: Double) -> String { String(d) }

    private static func sqlString(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `2024-05-01T12:00:00.250Z` (milliseconds only when there are some).
    static func iso8601(_ date: Date) -> String {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let hasFraction = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) != 0
        return hasFraction ? date.formatted(style) : date.formatted(.iso8601)
    }

    /// Parses ISO 8601 with or without fractional seconds.
    static func parseISO8601(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) {
            return date
        }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// Parses lower- or upper-case hex with an even number of digits.
    static func parseHex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            i += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
