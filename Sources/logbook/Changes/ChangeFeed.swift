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
    /// PostgreSQL: `CREATE TABLE IF NOT EXISTS` per entity first (the tables of `logbook export
    /// --format sql`), then one transaction per save: per entity one `DELETE … WHERE "id" IN
    /// (…)` and one multi-row `INSERT … ON CONFLICT ("id") DO UPDATE`, each followed by a
    /// `-- token …` comment.
    case sql
}

/// Writes the changes of saves in one ``ChangeFeedFormat``. Not thread-safe.
struct ChangeFeedWriter {
    let format: ChangeFeedFormat
    let schema: Schema

    /// What comes before the first save: for SQL, the tables (those of `logbook export`, with
    /// PostgreSQL's own types: `BYTEA`, `UUID`, `TIMESTAMPTZ`, and its constraints and indexes,
    /// and a join table per many-to-many, whose rows each upsert rewrites for its object).
    func header() -> String {
        guard format == .sql else { return "" }
        return schema.entities.map { PostgreSQLTable.create($0, ifNotExists: true) }.joined()
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
        case .sql: writeSQL(transaction, to: &out)
        }
    }

    /// Rows per `INSERT` or `DELETE` statement: large enough that statement overhead vanishes,
    /// small enough that one statement of wide rows stays a few megabytes.
    static let rowsPerStatement = 1_000

    /// One transaction: the save's deletes, one `DELETE … WHERE "id" IN (…)` per entity, then its
    /// upserts, one `INSERT … VALUES (…), (…) ON CONFLICT ("id") DO UPDATE` per entity, each
    /// chunked at ``rowsPerStatement`` rows. Only the last change of an object counts (a commit
    /// may write a key twice; PostgreSQL refuses to upsert one row twice in a statement), and
    /// deletes go first, so a save that frees a unique value and reuses it applies cleanly.
    ///
    /// Before each upsert of an entity with unique attributes, other rows that hold one of the
    /// upserted unique values are deleted. Applied in order this deletes nothing (the store
    /// allowed the save, so no other object held the value). Replayed over a newer state, it
    /// removes a row that a later save of the feed gave the value, and that later save writes
    /// the row again whole, so the replay still converges instead of stopping at a clash.
    private func writeSQL(_ transaction: HistoryTransaction, to out: inout [UInt8]) {
        append("BEGIN;\n", to: &out)
        let changes = transaction.changes
        // Indices of the changes that count, grouped by entity in order of first appearance.
        var last: [PersistentIdentifier: Int] = [:]
        var duplicated = false
        if changes.count > 1 {
            last.reserveCapacity(changes.count)
            for (i, change) in changes.enumerated() {
                if last.updateValue(i, forKey: change.identifier) != nil { duplicated = true }
            }
        }
        var deletes: [(entity: String, ids: [UInt64])] = []
        var upserts: [(entity: String, changes: [Int])] = []
        for (i, change) in changes.enumerated() {
            if duplicated && last[change.identifier] != i { continue }
            let entity = change.identifier.entityName
            if change.kind == .delete || change.record == nil {
                if let g = deletes.firstIndex(where: { $0.entity == entity }) {
                    deletes[g].ids.append(change.identifier.primaryKey)
                } else {
                    deletes.append((entity, [change.identifier.primaryKey]))
                }
            } else if let g = upserts.firstIndex(where: { $0.entity == entity }) {
                upserts[g].changes.append(i)
            } else {
                upserts.append((entity, [i]))
            }
        }
        for (entity, ids) in deletes {
            let table = PostgreSQLTable.identifier(entity)
            var start = 0
            while start < ids.count {
                let end = min(start + Self.rowsPerStatement, ids.count)
                for join in joins(entity) {
                    append(join.deleteLinks(of: ids[start..<end]), to: &out)
                }
                append("DELETE FROM \(table) WHERE \"id\" IN (", to: &out)
                for k in start..<end {
                    if k > start { append(", ", to: &out) }
                    out.appendNumber(ids[k])
                }
                append(");\n", to: &out)
                start = end
            }
        }
        for (entity, group) in upserts {
            let table = PostgreSQLTable.identifier(entity)
            var start = 0
            while start < group.count {
                // One statement: rows of the same columns (a schema change between two
                // commits of one read never splits a save; this guards a mixed one anyway).
                let first = changes[group[start]].record!.attributes
                var end = start + 1
                while end < group.count && end - start < Self.rowsPerStatement
                    && changes[group[end]].record!.attributes.elementsEqual(
                        first, by: { $0.name == $1.name })
                {
                    end += 1
                }
                evictHolders(of: unique(entity), in: table, changes, group[start..<end], &out)
                // A many-to-many's links are rows of its join table, written after the objects.
                let joins = joins(entity)
                let linked = joins.map(\.relationship)
                var links = joins.map { _ in [UInt8]() }
                let names = first.filter { !linked.contains($0.name) }.map {
                    PostgreSQLTable.identifier($0.name)
                }
                append("INSERT INTO \(table) (\"id\"", to: &out)
                for name in names { append(", " + name, to: &out) }
                append(") VALUES\n", to: &out)
                let fields = schema.entity(named: entity)?.fieldDescriptions ?? []
                for k in start..<end {
                    let change = changes[group[k]]
                    append(k == start ? "(" : ",\n(", to: &out)
                    out.appendNumber(change.identifier.primaryKey)
                    for (f, (name, value)) in change.record!.attributes.enumerated() {
                        if let j = linked.firstIndex(of: name) {
                            joins[j].appendRows(
                                owner: change.identifier.primaryKey,
                                keys: PostgreSQLJoinTable.keys(value) ?? [], to: &links[j])
                            continue
                        }
                        append(", ", to: &out)
                        let field =
                            f < fields.count && fields[f].name == name
                            ? fields[f] : AttributeDescription(name, value.type ?? .string)
                        PostgreSQLLiteral.append(value, as: field, to: &out)
                    }
                    append(")", to: &out)
                }
                append("\nON CONFLICT (\"id\") DO ", to: &out)
                if names.isEmpty {
                    append("NOTHING;\n", to: &out)
                } else {
                    append(
                        "UPDATE SET "
                            + names.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
                            + ";\n", to: &out)
                }
                let ids = group[start..<end].map { changes[$0].identifier.primaryKey }
                for (join, rows) in zip(joins, links) {
                    append(join.deleteLinks(of: ids) + join.insert(rows), to: &out)
                }
                start = end
            }
        }
        append("COMMIT;\n-- token \(transaction.token)\n", to: &out)
    }

    /// The join tables of `entity`'s many-to-many relationships.
    private func joins(_ entity: String) -> [PostgreSQLJoinTable] {
        schema.entity(named: entity).map { PostgreSQLJoinTable.all(of: $0) } ?? []
    }

    /// The names of `entity`'s unique attributes.
    private func unique(_ entity: String) -> [String] {
        // A unique composite is a constraint over its fields, not over its marker column.
        schema.entities.first { $0.name == entity }?.attributes
            .filter { $0.isUnique && $0.type != .composite }.map(\.name) ?? []
    }

    /// `DELETE FROM table WHERE "attribute" IN (values) AND "id" NOT IN (ids)` for each of
    /// `attributes`, over the values the upserts of `rows` give it (`NULL` is never a clash).
    private func evictHolders(
        of attributes: [String], in table: String, _ changes: [HistoryChange],
        _ rows: ArraySlice<Int>, _ out: inout [UInt8]
    ) {
        for attribute in attributes {
            let values = rows.compactMap { k in
                changes[k].record!.attributes.first { $0.name == attribute }?.value
            }.filter { $0 != .null }
            guard !values.isEmpty else { continue }
            append(
                "DELETE FROM \(table) WHERE \(PostgreSQLTable.identifier(attribute)) IN (", to: &out
            )
            for (n, value) in values.enumerated() {
                if n > 0 { append(", ", to: &out) }
                PostgreSQLLiteral.append(value, to: &out)
            }
            append(") AND \"id\" NOT IN (", to: &out)
            for k in rows {
                if k != rows.first { append(", ", to: &out) }
                out.appendNumber(changes[k].identifier.primaryKey)
            }
            append(");\n", to: &out)
        }
    }

    /// What ends the output: the token to resume from (after every commit read, saves or not).
    func footer(resume token: HistoryToken) -> String {
        format == .sql ? "-- resume \(token)\n" : "{\"_resume\":\"\(token)\"}\n"
    }

    private func append(_ text: String, to out: inout [UInt8]) { out.append(contentsOf: text.utf8) }
}
