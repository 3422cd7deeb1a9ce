/// The object identifiers (OIDs) of the built-in types the client encodes and decodes, from
/// PostgreSQL's `pg_type.dat`; stable across server versions.
package enum PostgreSQLType {
    package static let unspecified: UInt32 = 0
    package static let bool: UInt32 = 16
    package static let bytea: UInt32 = 17
    package static let name: UInt32 = 19
    package static let int8: UInt32 = 20
    package static let int2: UInt32 = 21
    package static let int4: UInt32 = 23
    package static let text: UInt32 = 25
    package static let oid: UInt32 = 26
    package static let json: UInt32 = 114
    package static let float4: UInt32 = 700
    package static let float8: UInt32 = 701
    package static let unknown: UInt32 = 705
    package static let bpchar: UInt32 = 1042
    package static let varchar: UInt32 = 1043
    package static let date: UInt32 = 1082
    package static let timestamp: UInt32 = 1114
    package static let timestamptz: UInt32 = 1184
    package static let numeric: UInt32 = 1700
    package static let uuid: UInt32 = 2950
    package static let jsonb: UInt32 = 3802

    /// The type's SQL name for messages, or `type <oid>`.
    package static func name(_ oid: UInt32) -> String {
        switch oid {
        case bool: return "boolean"
        case bytea: return "bytea"
        case name: return "name"
        case int8: return "bigint"
        case int2: return "smallint"
        case int4: return "integer"
        case text: return "text"
        case oid: return "oid"
        case json: return "json"
        case float4: return "real"
        case float8: return "double precision"
        case unknown: return "unknown"
        case bpchar: return "character"
        case varchar: return "character varying"
        case date: return "date"
        case timestamp: return "timestamp"
        case timestamptz: return "timestamp with time zone"
        case numeric: return "numeric"
        case uuid: return "uuid"
        case jsonb: return "jsonb"
        default: return "type \(oid)"
        }
    }

    /// Types whose binary form is their text in UTF-8 (jsonb adds a version byte first).
    static func isTextual(_ oid: UInt32) -> Bool {
        [text, varchar, bpchar, name, json, unknown].contains(oid)
    }
}

/// How a value travels: as text (the type's input/output form) or in the type's binary form.
package enum PostgreSQLFormat: Int16, Sendable {
    case text = 0
    case binary = 1
}
