import Foundation

/// One entity as the replica syncs it: its stored fields (attributes, then stored
/// relationships), and each field's place in its row's stamps (`logbook_sync.tables`).
///
/// The links of a many-to-many are a field like any other here (last writer wins on the whole
/// set of an object's links), kept in PostgreSQL as the rows of its ``PostgreSQLJoinTable``:
/// their description carries ``CanonicalText/linksTypeName``.
struct SyncedEntity {
    let name: String
    /// The table, as a quoted identifier.
    let table: String
    let fields: [AttributeDescription]
    /// Field names by position.
    let fieldIndex: [String: Int]
    /// 1-based place of each field in `logbook_sync.rows.stamps`.
    let places: [String: Int]
    /// The positions of the fields with a `UNIQUE` constraint.
    let unique: [Int]
    /// The join table of each many-to-many field, by position.
    let joins: [Int: PostgreSQLJoinTable]

    init(_ entity: Entity, columns: [String]) {
        name = entity.name
        table = PostgreSQLTable.identifier(entity.name)
        var fields = entity.storedFields.attributes
        let joins = PostgreSQLJoinTable.all(of: entity)
        for join in joins { fields[join.field].typeName = CanonicalText.linksTypeName }
        self.joins = Dictionary(joins.map { ($0.field, $0) }, uniquingKeysWith: { a, _ in a })
        self.fields = fields
        fieldIndex = Dictionary(
            fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        places = Dictionary(
            columns.enumerated().map { ($1, $0 + 1) }, uniquingKeysWith: { a, _ in a })
        unique = fields.indices.filter { fields[$0].isUnique }
    }

    /// The positions of the fields that are columns of the table (not links).
    var columnFields: [Int] { fields.indices.filter { joins[$0] == nil } }

    /// The canonical-text expressions of every field, for a `SELECT` from the table.
    var canonicalColumns: String {
        fields.indices.map { i in
            if let join = joins[i] { return join.linksExpression(of: "\(table).\"id\"") }
            return CanonicalText.expression(PostgreSQLTable.identifier(fields[i].name), fields[i])
        }.joined(separator: ", ")
    }
}
