import Foundation

/// A parameter of a statement (`$1`, `$2`, …).
///
/// In a one-shot query every value but `.bytes` and `.typed` goes as text of no declared type,
/// as libpq sends parameters: the server gives it the type the statement needs, so an integer
/// fills an `integer` argument of a function and a string a `uuid` or `jsonb` column. Where
/// the statement does not say, the server takes `text`: cast the parameter (`$1::bigint`).
/// `.bytes` is sent as `bytea`, in binary; `.typed` declares its type. A prepared statement's
/// parameters have the types the server settled on at ``PostgreSQLConnection/prepare(_:parameterTypes:)``;
/// a value of that very type goes in binary, any other as text the server converts.
package enum PostgreSQLValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case text(String)
    case bytes([UInt8])
    case uuid(UUID)
    /// A `timestamp with time zone`, to the microsecond.
    case timestamp(Date)
    /// A value in its PostgreSQL text form, of the type with that OID (0: inferred).
    case typed(String, oid: UInt32)

    /// The type the value declares, and its binary encoding when it has one.
    var binary: (type: UInt32, bytes: [UInt8])? {
        switch self {
        case .bool(let value): return (PostgreSQLType.bool, [value ? 1 : 0])
        case .int(let value):
            return (PostgreSQLType.int8, Self.bigEndian(UInt64(bitPattern: value)))
        case .double(let value): return (PostgreSQLType.float8, Self.bigEndian(value.bitPattern))
        case .bytes(let value): return (PostgreSQLType.bytea, value)
        case .uuid(let value):
            return (PostgreSQLType.uuid, withUnsafeBytes(of: value.uuid) { Array($0) })
        case .timestamp(let date):
            guard let micros = Self.microsecondsSince2000(date) else { return nil }
            return (PostgreSQLType.timestamptz, Self.bigEndian(UInt64(bitPattern: micros)))
        case .null, .text, .typed: return nil
        }
    }

    /// The type declared at Parse for a one-shot statement: `bytea` for bytes, the given type
    /// for a typed value, no type for the rest.
    var declaredType: UInt32 {
        switch self {
        case .typed(_, let oid): return oid
        case .bytes: return PostgreSQLType.bytea
        default: return PostgreSQLType.unspecified
        }
    }

    /// The value in PostgreSQL's text input form (`nil` for NULL).
    ///
    /// - Throws: ``PostgreSQLError/invalidRequest(reason:)`` for a date too far out to hold.
    var textForm: String? {
        get throws {
            switch self {
            case .null: return nil
            case .bool(let value): return value ? "t" : "f"
            case .int(let value): return String(value)
            case .double(let value):
                if value.isNaN { return "NaN" }
                if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
                return "\(value)"
            case .text(let value), .typed(let value, _): return value
            case .bytes(let value): return "\\x" + PostgreSQLCell.hex(value)
            case .uuid(let value): return value.uuidString.lowercased()
            case .timestamp(let date):
                guard let micros = Self.microsecondsSince2000(date) else {
                    throw LogbookError.postgreSQL(
                        .invalidRequest(reason: "a date outside PostgreSQL's timestamp range"))
                }
                return PostgreSQLCell.isoTimestamp(microsecondsSince2000: micros)
            }
        }
    }

    /// Microseconds from PostgreSQL's epoch (2000-01-01) to Foundation's reference date
    /// (2001-01-01; 2000 is a leap year).
    static let referenceDateSince2000: Int64 = 366 * 86_400_000_000

    /// Microseconds since 2000-01-01 UTC, rounded; `nil` out of PostgreSQL's range
    /// (4713 BC to 294276 AD) or not finite.
    static func microsecondsSince2000(_ date: Date) -> Int64? {
        let micros = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        guard micros.isFinite, abs(micros) < 9_000_000_000_000_000_000 else { return nil }
        let value = Int64(micros) + referenceDateSince2000
        guard value >= -211_813_488_000_000_000, value < 9_214_646_400_000_000_000 else {
            return nil
        }
        return value
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) }
    }
}

extension PostgreSQLValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(stringLiteral value: String) { self = .text(value) }
}

/// A parameter as Bind sends it.
struct EncodedParameter {
    var format: PostgreSQLFormat
    var bytes: [UInt8]?

    /// `value` for a parameter of type `type`: binary when the value's binary type is that
    /// type, its text form otherwise.
    init(_ value: PostgreSQLValue, type: UInt32) throws {
        if let binary = value.binary, type == binary.type {
            format = .binary
            bytes = binary.bytes
        } else {
            format = .text
            bytes = try value.textForm.map { Array($0.utf8) }
        }
    }
}
