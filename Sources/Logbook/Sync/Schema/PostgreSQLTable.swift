import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQL that `logbook export --format sql` and `logbook changes --format sql` share, so a
/// feed applies to the tables an export built: the tables, with PostgreSQL's own column types,
/// and the values as PostgreSQL literals. (SQLite reads both too: it takes any type name, and
/// the literals are strings and numbers it stores as they are written.)
package enum PostgreSQLTable {
    /// `CREATE TABLE` for `entity`: `id BIGINT PRIMARY KEY`, a column per attribute of its
    /// ``PostgreSQLLiteral/type(_:)`` (`NOT NULL` unless optional, `UNIQUE` where the schema
    /// says so), a `BIGINT` per to-one relationship (the related object's id, or `NULL`), then a
    /// `CREATE INDEX` per other indexed attribute, and the ``PostgreSQLJoinTable`` of each
    /// many-to-many relationship the entity stores. With `ifNotExists`, `IF NOT EXISTS` on each
    /// (the change feed, which may run again).
    ///
    /// A `UNIQUE` constraint is `DEFERRABLE INITIALLY DEFERRED`: PostgreSQL checks it when a
    /// save's transaction commits, not row by row, so a save that swaps two values, or hands
    /// one from object to object, applies (the feed's upserts name their arbiter, the primary
    /// key, which stays immediate). SQLite takes the clause and ignores it.
    package static func create(_ entity: Entity, ifNotExists: Bool) -> String {
        var columns = ["  \"id\" BIGINT PRIMARY KEY"]
        let exists = ifNotExists ? "IF NOT EXISTS " : ""
        var indexes = ""
        for (i, attribute) in entity.attributes.enumerated() {
            var column = "  \(identifier(attribute.name)) \(PostgreSQLLiteral.type(attribute))"
            if !attribute.isOptional { column += " NOT NULL" }
            // A composite's marker stands for its fields: its constraint and index are theirs.
            let fields = entity.compositeFields(of: i).map {
                identifier(entity.attributes[$0].name)
            }
            if attribute.isUnique && fields.isEmpty {
                column += " UNIQUE DEFERRABLE INITIALLY DEFERRED"
            }
            columns.append(column)
            if attribute.isUnique && !fields.isEmpty {
                indexes +=
                    "CREATE UNIQUE INDEX \(exists)\(identifier(entity.name + "_" + attribute.name)) ON "
                indexes += "\(identifier(entity.name)) (\(fields.joined(separator: ", ")));\n"
            } else if attribute.isIndexed && !attribute.isUnique {
                indexes +=
                    "CREATE INDEX \(exists)\(identifier(entity.name + "_" + attribute.name)) ON "
                indexes += "\(identifier(entity.name)) ("
                indexes += (fields.isEmpty ? [identifier(attribute.name)] : fields).joined(
                    separator: ", ")
                indexes += ");\n"
            }
        }
        for relationship in entity.relationships
        where relationship.isStored && !relationship.isToMany {
            columns.append("  \(identifier(relationship.name)) BIGINT")
        }
        var text = "CREATE TABLE \(exists)\(identifier(entity.name)) (\n"
        text += columns.joined(separator: ",\n") + "\n);\n"
        // The links of a many-to-many's storing side: a join table each.
        for join in PostgreSQLJoinTable.all(of: entity) {
            indexes += join.create(ifNotExists: ifNotExists)
        }
        return text + indexes
    }

    /// A double-quoted SQL identifier.
    package static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Values as PostgreSQL literals that read back to the same value: doubles and floats quoted
/// (so `-0.0` stays negative; `NaN`, `Infinity`), decimals with all their digits, dates to the
/// microsecond in UTC, data as `bytea` hex (`'\x…'`), UUIDs as `uuid`, strings with quotes
/// doubled (standard-conforming strings), arrays and sets of scalars as array literals
/// (`'{"a","b"}'`), other arrays as `jsonb`, a composite's marker as `TRUE`.
package enum PostgreSQLLiteral {
    /// The column type of `attribute`: PostgreSQL's own for each type (`SMALLINT` for `Int8`,
    /// `UInt8` and `Int16`, `INTEGER` for `Int32` and `UInt16`, `BIGINT` for `UInt32`,
    /// `NUMERIC(20, 0)` for `UInt64`, `REAL` for `Float`, `NUMERIC` for `Decimal`, `TEXT` for a
    /// URL); an array or set of scalars as an array of the element's type (`TEXT[]`), of
    /// arrays or composites as `JSONB`; a composite attribute as `BOOLEAN` (its fields are
    /// columns of their own).
    package static func type(_ attribute: AttributeDescription) -> String {
        switch attribute.type {
        case .array, .set:
            guard let element = attribute.members.first, isScalar(element.type) else {
                return "JSONB"
            }
            return type(element) + "[]"
        default: return type(attribute.type)
        }
    }

    private static func isScalar(_ type: AttributeType) -> Bool {
        type != .array && type != .set && type != .composite
    }

    private static func type(_ type: AttributeType) -> String {
        switch type {
        case .string, .url: return "TEXT"
        case .integer, .uint32: return "BIGINT"
        case .int8, .int16, .uint8: return "SMALLINT"
        case .int32, .uint16: return "INTEGER"
        case .uint64: return "NUMERIC(20, 0)"
        case .double: return "DOUBLE PRECISION"
        case .float: return "REAL"
        case .decimal: return "NUMERIC"
        case .bool, .composite: return "BOOLEAN"
        case .date: return "TIMESTAMP WITH TIME ZONE"
        case .data: return "BYTEA"
        case .uuid: return "UUID"
        case .array, .set: return "JSONB"
        }
    }

    /// Appends `value`, a value of `attribute` (a to-one relationship's an integer).
    package static func append(
        _ value: AttributeValue, as attribute: AttributeDescription, to out: inout [UInt8]
    ) {
        if case .array(let items) = value {
            if type(attribute).hasSuffix("[]") {
                var literal: [UInt8] = [UInt8(ascii: "{")]
                for (i, item) in items.enumerated() {
                    if i > 0 { literal.append(UInt8(ascii: ",")) }
                    appendArrayElement(item, to: &literal)
                }
                literal.append(UInt8(ascii: "}"))
                AttributeValue.string(String(decoding: literal, as: UTF8.self)).append(
                    as: .sql, to: &out)
            } else {
                value.append(as: .sql, to: &out)  // the JSON text, quoted
            }
            return
        }
        append(value, to: &out)
    }

    /// An element of an array literal: `NULL`, a number or `t`/`f` as it is, anything else
    /// double-quoted with `"` and `\` escaped.
    private static func appendArrayElement(_ value: AttributeValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "NULL".utf8)
        case .integer, .unsigned: value.append(as: .csv, to: &out)
        case .decimal(let d) where !d.isNaN: value.append(as: .csv, to: &out)
        case .bool(let b): out.append(b ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        default:
            var text: [UInt8] = []
            append(value, to: &text)
            // The scalar literal without its SQL quotes.
            if text.first == UInt8(ascii: "'") && text.last == UInt8(ascii: "'") {
                text = Array(text.dropFirst().dropLast())
                text = Array(
                    String(decoding: text, as: UTF8.self).replacingOccurrences(of: "''", with: "'")
                        .utf8)
            }
            out.append(UInt8(ascii: "\""))
            for byte in text {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    out.append(UInt8(ascii: "\\"))
                }
                out.append(byte)
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    package static func append(_ value: AttributeValue, to out: inout [UInt8]) {
        switch value {
        case .double(let d):
            let text =
                d.isNaN
                ? "NaN" : d == .infinity ? "Infinity" : d == -.infinity ? "-Infinity" : "\(d)"
            out.append(contentsOf: "'\(text)'".utf8)
        case .float(let f):
            let text =
                f.isNaN
                ? "NaN" : f == .infinity ? "Infinity" : f == -.infinity ? "-Infinity" : "\(f)"
            out.append(contentsOf: "'\(text)'".utf8)
        case .decimal(let d) where d.isNaN: out.append(contentsOf: "'NaN'".utf8)
        case .composite: out.append(contentsOf: "TRUE".utf8)
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
    package static func timestamp(_ date: Date) -> String {
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
