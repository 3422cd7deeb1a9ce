import Foundation

/// The exact text of a value as the replica moves it through PostgreSQL: what the change log
/// (`logbook_sync.changes`) holds, what a snapshot reads from a table, and what the convergence
/// checks compare. Unlike PostgreSQL's own output it depends on no session setting
/// (`DateStyle`, `TimeZone`, `extra_float_digits`, `bytea_output`), and it reads back to the
/// very value: a string as itself, an integer in decimal, a double as the 16 hex digits of its
/// IEEE 754 bits, a bool as `true` or `false`, a date as microseconds since 1970 in decimal
/// (PostgreSQL keeps microseconds), data as lower-case hex, a UUID in lower case. `NULL` stays
/// `NULL`.
///
/// Each case has its SQL twin in ``expression(_:_:)``, so a trigger and this code write the
/// same text. New attribute types add a case to each of the three functions.
package enum CanonicalText {
    /// The SQL expression that turns `column` (an expression of the column type
    /// ``PostgreSQLLiteral/type(_:)-(AttributeDescription)`` gives `attribute`) into its text.
    package static func expression(_ column: String, _ attribute: AttributeDescription) -> String {
        switch attribute.type {
        case .string: return column
        case .integer, .bool, .uuid: return "\(column)::text"
        case .double: return "encode(float8send(\(column)), 'hex')"
        case .date: return "(extract(epoch FROM \(column)) * 1000000)::bigint::text"
        case .data: return "encode(\(column), 'hex')"
        default: return "\(column)::text"  // not synced: SyncSetup refuses the type
        }
    }

    /// The text of `value`, or `nil` for `null`.
    package static func text(_ value: AttributeValue) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .double(let number):
            let hex = String(number.bitPattern, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        case .date(let date): return String(microseconds(date))
        case .data(let data):
            var bytes: [UInt8] = []
            TextRendering.appendHex(data, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        case .uuid(let uuid): return uuid.uuidString.lowercased()
        default: return value.description  // not synced: SyncSetup refuses the type
        }
    }

    /// The value of `attribute`'s type that `text` holds (`nil` text: `null`).
    /// - Returns: `nil` if `text` is not the text of such a value.
    package static func value(_ text: String?, _ attribute: AttributeDescription)
        -> AttributeValue?
    {
        guard let text else { return .null }
        switch attribute.type {
        case .string: return .string(text)
        case .integer: return Int64(text).map { .integer($0) }
        case .bool:
            switch text {
            case "true", "t": return .bool(true)
            case "false", "f": return .bool(false)
            default: return nil
            }
        case .double:
            guard text.utf8.count == 16, let bits = UInt64(text, radix: 16) else { return nil }
            return .double(Double(bitPattern: bits))
        case .date:
            guard let micros = Int64(text) else { return nil }
            return .date(Date(timeIntervalSince1970: Double(micros) / 1_000_000))
        case .data:
            return TextRendering.parseHex(text.utf8).map { .data($0) }
        case .uuid: return UUID(uuidString: text).map { .uuid($0) }
        default: return nil  // not synced: SyncSetup refuses the type
        }
    }

    /// `date` in microseconds since 1970, rounded as PostgreSQL stores it.
    package static func microseconds(_ date: Date) -> Int64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        return micros.isFinite && abs(micros) < 9.2e18 ? Int64(micros) : 0
    }
}
