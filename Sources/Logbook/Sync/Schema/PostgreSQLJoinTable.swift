import Foundation

/// The table that holds the links of a many-to-many relationship in PostgreSQL (export, feed and
/// replica alike): one per relationship, on its storing side, named `<entity>_<relationship>`,
/// with two `BIGINT` columns, `<entity>_id` (the object that stores the links) and
/// `<relationship>_id` (the linked object), a primary key over both, and an index on the
/// second. A row per link; no links, no row. Like a to-one's column, neither column is a
/// `REFERENCES` constraint: a store applies its saves in PostgreSQL whole, in whatever order
/// their objects come.
package struct PostgreSQLJoinTable: Sendable, Hashable {
    /// The storing entity and relationship, and the position of the relationship's field in the
    /// entity's stored fields (``Entity/storedFields``).
    package let entity: String
    package let relationship: String
    package let field: Int

    /// The join tables of `entity`'s many-to-many relationships, in stored order.
    package static func all(of entity: Entity) -> [PostgreSQLJoinTable] {
        var tables: [PostgreSQLJoinTable] = []
        for (k, relationship) in entity.storedRelationships.enumerated() where relationship.isToMany
        {
            tables.append(
                PostgreSQLJoinTable(
                    entity: entity.name, relationship: relationship.name,
                    field: entity.attributes.count + k))
        }
        return tables
    }

    /// The table's name, and as a quoted identifier.
    package var name: String { entity + "_" + relationship }
    package var table: String { PostgreSQLTable.identifier(name) }
    /// The quoted columns of the storing object and of the linked one.
    package var owner: String { PostgreSQLTable.identifier(entity + "_id") }
    package var target: String { PostgreSQLTable.identifier(relationship + "_id") }

    /// `CREATE TABLE` and `CREATE INDEX` (with `IF NOT EXISTS` on each when `ifNotExists`).
    package func create(ifNotExists: Bool) -> String {
        let exists = ifNotExists ? "IF NOT EXISTS " : ""
        return "CREATE TABLE \(exists)\(table) (\n  \(owner) BIGINT NOT NULL,\n"
            + "  \(target) BIGINT NOT NULL,\n  PRIMARY KEY (\(owner), \(target))\n);\n"
            + "CREATE INDEX \(exists)\(PostgreSQLTable.identifier(name + "_" + relationship + "_id")) "
            + "ON \(table) (\(target));\n"
    }

    /// The linked objects' primary keys in `value`, a stored link list (`null`: none), or
    /// `nil` if it is not one.
    package static func keys(_ value: AttributeValue) -> [UInt64]? { LinkList.keys(value) }

    /// The stored link list of `keys`.
    package static func value(_ keys: [UInt64]) -> AttributeValue { LinkList.value(keys) }

    /// Appends `(owner, key), …` for `keys` to a `VALUES` list in `out` (a comma first unless
    /// `out` is empty).
    package func appendRows(owner: UInt64, keys: [UInt64], to out: inout [UInt8]) {
        for key in keys {
            if !out.isEmpty { out.append(contentsOf: ",\n".utf8) }
            out.append(contentsOf: "(\(owner), \(key))".utf8)
        }
    }

    /// `INSERT INTO … VALUES <rows> ON CONFLICT DO NOTHING;` (empty for no rows).
    package func insert(_ rows: [UInt8]) -> String {
        guard !rows.isEmpty else { return "" }
        return "INSERT INTO \(table) (\(owner), \(target)) VALUES\n"
            + String(decoding: rows, as: UTF8.self) + "\nON CONFLICT DO NOTHING;\n"
    }

    /// `DELETE FROM … WHERE <owner> IN (ids);` (empty for no ids).
    package func deleteLinks(of owners: some Collection<UInt64>) -> String {
        guard !owners.isEmpty else { return "" }
        return "DELETE FROM \(table) WHERE \(owner) IN ("
            + owners.map { String($0) }.joined(separator: ", ") + ");\n"
    }

    /// The SQL expression of the links of the object whose id is `id` (an SQL expression) in
    /// the replica's canonical text: `{2,7}`, ascending; `NULL` for none.
    package func linksExpression(of id: String) -> String {
        "(SELECT array_agg(logbook_j.\(target) ORDER BY logbook_j.\(target))::text "
            + "FROM \(table) logbook_j WHERE logbook_j.\(owner) = \(id))"
    }
}
