import Foundation
import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQL that `logbook export --format sql` and `logbook changes --format sql` share, so a
/// feed applies to the tables an export built: the tables, with PostgreSQL's own column types,
/// and the values as PostgreSQL literals. (SQLite reads both too: it takes any type name, and
/// the literals are strings and numbers it stores as they are written.)
enum PostgreSQLTable {
    /// `CREATE TABLE` for `entity`: `id BIGINT PRIMARY KEY`, a column per attribute of its
    /// ``PostgreSQLLiteral/type(_:)`` (`NOT NULL` unless optional, `UNIQUE` where the schema
    /// says so), a `BIGINT` per to-one relationship (the related object's id, or `NULL`), then a
    /// `CREATE INDEX` per other indexed attribute. With `ifNotExists`, `IF NOT EXISTS` on each
    /// (the change feed, which may run again).
    ///
    /// A `UNIQUE` constraint is `DEFERRABLE INITIALLY DEFERRED`: PostgreSQL checks it when a
    /// save's transaction commits, not row by row, so a save that swaps two values, or hands
    /// one from object to object, applies (the feed's upserts name their arbiter, the primary
    /// key, which stays immediate). SQLite takes the clause and ignores it.
    static func create(_ entity: Entity, ifNotExists: Bool) -> String {
        var columns = ["  \"id\" BIGINT PRIMARY KEY"]
        for attribute in entity.attributes {
            var column = "  \(identifier(attribute.name)) \(PostgreSQLLiteral.type(attribute.type))"
            if !attribute.isOptional { column += " NOT NULL" }
            if attribute.isUnique { column += " UNIQUE DEFERRABLE INITIALLY DEFERRED" }
            columns.append(column)
        }
        for relationship in entity.relationships where relationship.isStored {
            // The links of a many-to-many's storing side: its stored value (FORMAT.md Part 2).
            columns.append(
                "  \(identifier(relationship.name)) \(relationship.isToMany ? "BYTEA" : "BIGINT")")
        }
        let exists = ifNotExists ? "IF NOT EXISTS " : ""
        var text = "CREATE TABLE \(exists)\(identifier(entity.name)) (\n"
        text += columns.joined(separator: ",\n") + "\n);\n"
        for attribute in entity.attributes where attribute.isIndexed && !attribute.isUnique {
            text += "CREATE INDEX \(exists)\(identifier(entity.name + "_" + attribute.name)) ON "
            text += "\(identifier(entity.name)) (\(identifier(attribute.name)));\n"
        }
        return text
    }

    /// A double-quoted SQL identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Values as PostgreSQL literals that read back to the same value: doubles quoted (so `-0.0`
/// stays negative; `NaN`, `Infinity`), dates to the microsecond in UTC, data as `bytea` hex
/// (`'\x…'`), UUIDs as `uuid`, strings with quotes doubled (standard-conforming strings).
enum PostgreSQLLiteral {
    /// The column type of `type`.
    static func type(_ type: AttributeType) -> String {
        switch type {
        case .string: return "TEXT"
        case .integer: return "BIGINT"
        case .double: return "DOUBLE PRECISION"
        case .bool: return "BOOLEAN"
        case .date: return "TIMESTAMP WITH TIME ZONE"
        case .data: return "BYTEA"
        case .uuid: return "UUID"
        }
    }

    static func append(_ value: AttributeValue, to out: inout [UInt8]) {
        switch value {
        case .double(let d):
            let text =
                d.isNaN
                ? "NaN" : d == .infinity ? "Infinity" : d == -.infinity ? "-Infinity" : "\(d)"
            out.append(contentsOf: "'\(text)'".utf8)
        case .date(let date):
            out.append(contentsOf: "'\(timestamp(date))'".utf8)
        case .data(let data):
            out.append(contentsOf: "'\\x".utf8)
            AttributeValue.data(data).append(as: .csv, to: &out)
            out.append(UInt8(ascii: "'"))
        default: value.append(as: .sql, to: &out)
        }
    }

    /// `YYYY-MM-DD HH:MM:SS.ffffff+00`, rounded to PostgreSQL's microsecond.
    static func timestamp(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = time_t(micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000)
        let fraction = micros - Int64(seconds) * 1_000_000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let digits = String(fraction)
        let year = Int(parts.tm_year) + 1900
        let yearText = year <= 0 ? String(1 - year) : String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
            + "-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec))."
            + String(repeating: "0", count: 6 - digits.count) + digits + "+00"
            + (year <= 0 ? " BC" : "")
    }
}
