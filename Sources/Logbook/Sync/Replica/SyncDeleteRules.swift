/// The delete rules of the schema, in PostgreSQL: what an SQL client's `DELETE` of a row does
/// to the rows it is related to, as a save's delete does in a store
/// (`ModelContext.applyDeleteRules`), so that a row deleted in SQL leaves no link to it behind.
///
/// For each relationship of the deleted row's entity:
/// - `.cascade` deletes the related rows (whose own rules then apply, in their triggers);
/// - `.nullify` clears the references the related rows keep to it: the to-one column of a
///   one-to-many's other side, the join-table rows of a many-to-many whose other side stores
///   the links (a to-one, or the links the row stores itself, go with the row);
/// - `.deny` refuses the delete with SQLSTATE `23001` (`restrict_violation`) while a related
///   row exists.
///
/// The join-table rows of the links the deleted row stores go with it in every case. The
/// statements run inside the capture trigger of an SQL client's delete, so the rows they change
/// are captured as that client's changes, in the same transaction; a replica's own deletes skip
/// them (its save already holds what the rules did in the store).
enum SyncDeleteRules {
    /// PL/pgSQL statements, run with `OLD` the deleted row of `entity`: the deny checks first,
    /// then the cascades and nullifications, then the removal of the row's own links.
    static func sql(_ entity: Entity, in schema: Schema) -> String {
        var checks = ""
        var effects = ""
        var ownLinks = ""
        let id = "OLD.\"id\""
        for relationship in entity.relationships {
            guard let destination = schema.entity(named: relationship.destination) else {
                continue
            }
            let tables = family(of: destination, in: schema)
            let inverse = relationship.inverse.flatMap { destination.relationship(named: $0) }
            // The related rows of each table of the destination's hierarchy, as a subquery of
            // their ids, a condition on their rows, or (for nullify) the statement that lets go.
            var related: [(table: String, condition: String, release: String?)] = []
            if !relationship.isToMany {
                let column = "OLD." + PostgreSQLTable.identifier(relationship.name)
                related = tables.map { (name($0), "\"id\" = \(column)", nil) }
            } else if relationship.storesLinks {
                guard let join = joinTable(of: entity, relationship.name) else { continue }
                let linked = "SELECT \(join.target) FROM \(join.table) WHERE \(join.owner) = \(id)"
                related = tables.map { (name($0), "\"id\" IN (\(linked))", nil) }
                ownLinks += "DELETE FROM \(join.table) WHERE \(join.owner) = \(id);\n"
            } else if let inverse, inverse.isToMany {
                related = tables.compactMap { table in
                    guard let join = joinTable(of: table, inverse.name) else { return nil }
                    let owners =
                        "SELECT \(join.owner) FROM \(join.table) WHERE \(join.target) = \(id)"
                    return (
                        name(table), "\"id\" IN (\(owners))",
                        "DELETE FROM \(join.table) WHERE \(join.target) = \(id);"
                    )
                }
            } else if let inverse {
                let column = PostgreSQLTable.identifier(inverse.name)
                related = tables.map {
                    (
                        name($0), "\(column) = \(id)",
                        "UPDATE \(name($0)) SET \(column) = NULL WHERE \(column) = \(id);"
                    )
                }
            }
            for (table, condition, release) in related {
                switch relationship.deleteRule {
                case .deny:
                    checks += """
                        IF EXISTS (SELECT 1 FROM \(table) WHERE \(condition)) THEN
                          RAISE EXCEPTION 'logbook sync: % % cannot be deleted while its % reaches objects (delete rule deny)',
                            \(SyncCatalog.literal(entity.name)), \(id), \(SyncCatalog.literal(relationship.name))
                            USING ERRCODE = 'restrict_violation';
                        END IF;

                        """
                case .cascade:
                    effects += "DELETE FROM \(table) WHERE \(condition);\n"
                case .nullify:
                    if let release { effects += release + "\n" }
                }
            }
        }
        return checks + effects + ownLinks
    }

    /// The entity and every entity that inherits from it: a relationship to it may reach any.
    private static func family(of entity: Entity, in schema: Schema) -> [Entity] {
        guard let index = schema.entityIndex(entity.name) else { return [entity] }
        return [entity] + schema.descendants(of: index).map { schema.entities[$0] }
    }

    /// The join table of `entity`'s many-to-many `relationship`, on the side that stores it.
    private static func joinTable(of entity: Entity, _ relationship: String) -> PostgreSQLJoinTable?
    {
        PostgreSQLJoinTable.all(of: entity).first { $0.relationship == relationship }
    }

    /// The quoted name of `entity`'s table.
    private static func name(_ entity: Entity) -> String { PostgreSQLTable.identifier(entity.name) }
}
