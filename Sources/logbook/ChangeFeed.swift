import Foundation
import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The forms of `logbook changes`: a save's changes as upserts (the object's whole stored state
/// after the save) and deletes, applied in order, so replaying a feed from any token at or
/// before the last one applied converges to the store's state.
enum ChangeFeedFormat: String, CaseIterable {
    /// One line per change, `{"_op": "upsert"|"delete", "_entity": …, "_id": …, fields…}` (the
    /// values as `logbook export` writes them), then `{"_token": …, "_sequence": …, "_time": …,
    /// "_author": …}` after each save.
    case jsonl
    /// PostgreSQL: `CREATE TABLE IF NOT EXISTS` per entity first, then one transaction per save
    /// of `INSERT … ON CONFLICT ("id") DO UPDATE` and `DELETE`, each followed by a
    /// `-- token …` comment.
    case sql
}

/// Writes the changes of saves in one ``ChangeFeedFormat``. Not thread-safe.
struct ChangeFeedWriter {
    let format: ChangeFeedFormat
    let schema: Schema

    /// What comes before the first save: for SQL, the tables (the same columns as `logbook
    /// export`, with PostgreSQL's own types: `BYTEA`, `UUID`, `TIMESTAMPTZ`).
    func header() -> String {
        guard format == .sql else { return "" }
        return schema.entities.map(Self.createTable).joined()
    }

    /// Renders `transaction` (read with values) into `out`.
    func write(_ transaction: HistoryTransaction, to out: inout [UInt8]) {
        switch format {
        case .jsonl:
            for change in transaction.changes {
                append("{\"_op\":\"", to: &out)
                append(change.kind == .delete ? "delete" : "upsert", to: &out)
                append(
                    "\",\"_entity\":" + Formatting.quoted(change.identifier.entityName), to: &out)
                append(",\"_id\":\(change.identifier.primaryKey)", to: &out)
                for (name, value) in change.record?.attributes ?? [] {
                    append("," + Formatting.quoted(name) + ":", to: &out)
                    value.append(as: .json, to: &out)
                }
                append("}\n", to: &out)
            }
            append(
                "{\"_token\":\"\(transaction.token)\",\"_sequence\":\(transaction.sequence)",
                to: &out)
            append(",\"_time\":", to: &out)
            AttributeValue.date(transaction.timestamp).append(as: .json, to: &out)
            append(
                ",\"_author\":" + (transaction.author.map(Formatting.quoted) ?? "null") + "}\n",
                to: &out)
        case .sql:
            append("BEGIN;\n", to: &out)
            for change in transaction.changes {
                let table = Exporter.identifier(change.identifier.entityName)
                guard change.kind != .delete, let record = change.record else {
                    append(
                        "DELETE FROM \(table) WHERE \"id\" = \(change.identifier.primaryKey);\n",
                        to: &out)
                    continue
                }
                let names = record.attributes.map { Exporter.identifier($0.name) }
                append("INSERT INTO \(table) (\"id\"", to: &out)
                for name in names { append(", " + name, to: &out) }
                append(") VALUES (\(change.identifier.primaryKey)", to: &out)
                for (_, value) in record.attributes {
                    append(", ", to: &out)
                    PostgreSQLLiteral.append(value, to: &out)
                }
                append(") ON CONFLICT (\"id\") DO ", to: &out)
                if names.isEmpty {
                    append("NOTHING;\n", to: &out)
                } else {
                    append(
                        "UPDATE SET "
                            + names.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
                            + ";\n", to: &out)
                }
            }
            append("COMMIT;\n-- token \(transaction.token)\n", to: &out)
        }
    }

    /// What ends the output: the token to resume from (after every commit read, saves or not).
    func footer(resume token: HistoryToken) -> String {
        format == .sql ? "-- resume \(token)\n" : "{\"_resume\":\"\(token)\"}\n"
    }

    /// `CREATE TABLE IF NOT EXISTS` for `entity`: `id BIGINT PRIMARY KEY`, a column per
    /// attribute, a `BIGINT` per to-one relationship.
    static func createTable(_ entity: Entity) -> String {
        var columns = ["  \"id\" BIGINT PRIMARY KEY"]
        for attribute in entity.attributes {
            var column =
                "  \(Exporter.identifier(attribute.name)) \(PostgreSQLLiteral.type(attribute.type))"
            if !attribute.isOptional { column += " NOT NULL" }
            columns.append(column)
        }
        for relationship in entity.relationships where !relationship.isToMany {
            columns.append("  \(Exporter.identifier(relationship.name)) BIGINT")
        }
        return "CREATE TABLE IF NOT EXISTS \(Exporter.identifier(entity.name)) (\n"
            + columns.joined(separator: ",\n") + "\n);\n"
    }

    private func append(_ text: String, to out: inout [UInt8]) { out.append(contentsOf: text.utf8) }
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
