/// Why syncing a store with PostgreSQL cannot go on, carried by ``LogbookError/sync(_:)``.
///
/// Failures to reach or talk to the server are ``LogbookError/postgreSQL(_:)`` instead; a
/// replica retries those by itself. No case ever holds a password or a URL.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The table of an entity is missing from the database.
    case missingTable(String)
    /// A column of an entity's table is missing.
    case missingColumn(table: String, column: String)
    /// A column has another type than the export's mapping gives the attribute.
    case columnType(table: String, column: String, expected: String, found: String)
    /// The trigger that records SQL clients' changes of a table is missing or disabled.
    case missingTrigger(table: String)
    /// The database's sync tables (schema `logbook_sync`) are of a layout this Logbook does not
    /// know (written by a newer one), or damaged.
    case unsupportedDatabase(reason: String)
    /// An attribute of the schema cannot be kept in PostgreSQL by a replica (`reason` says
    /// why and what to change); the replica does not start.
    case unsupportedAttribute(entity: String, attribute: String, reason: String)
    /// The store already syncs with another database (`expected`): a replica belongs to one.
    case otherDatabase(expected: String, found: String)
    /// The store holds objects, and the database was filled by another store: their
    /// identifiers would clash. Join with an empty store, or sync the store that filled it.
    case seededByAnotherStore(store: String)
    /// A value cannot be stored in PostgreSQL (a string with a NUL character, a date outside
    /// PostgreSQL's range); the save stays in the store, and syncing stops at it.
    case valueNotRepresentable(entity: String, attribute: String, object: String, reason: String)
    /// A value PostgreSQL holds does not read back as the attribute's type (a column changed by
    /// hand, or a value written around the sync tables).
    case valueNotReadable(table: String, column: String, id: Int64, text: String)
    /// The database knows less of the store than the store itself says it sent: it was restored
    /// from an older backup, or its sync tables were emptied.
    case databaseBehind(store: UInt64, database: UInt64)
    /// Saves the store has not sent yet are no longer in its log (compacted away).
    case historyLost(reason: String)

    public var description: String {
        switch self {
        case .missingTable(let table):
            return
                "the PostgreSQL database has no table \"\(table)\"; run `logbook sync PATH URL --setup` (or PostgreSQLReplica.setUp) to create it."
        case .missingColumn(let table, let column):
            return
                "the PostgreSQL table \"\(table)\" has no column \"\(column)\"; run `logbook sync PATH URL --setup` (or PostgreSQLReplica.setUp) to add it."
        case .columnType(let table, let column, let expected, let found):
            return
                "the column \"\(column)\" of the PostgreSQL table \"\(table)\" is \(found), where the store's schema needs \(expected); change it back (ALTER TABLE … ALTER COLUMN … TYPE \(expected))."
        case .missingTrigger(let table):
            return
                "the PostgreSQL table \"\(table)\" lacks the trigger that records changes made by SQL clients, so they would not reach the stores; run `logbook sync PATH URL --setup` (or PostgreSQLReplica.setUp) to restore it."
        case .unsupportedDatabase(let reason):
            return "the sync tables of the PostgreSQL database cannot be used: \(reason)."
        case .unsupportedAttribute(let entity, let attribute, let reason):
            return "\(entity).\(attribute) cannot be synced with PostgreSQL: \(reason)."
        case .otherDatabase(let expected, let found):
            return
                "the store syncs with the PostgreSQL database \(expected), not this one (\(found)); a store is a replica of one database."
        case .seededByAnotherStore(let store):
            return
                "the store holds objects, and the PostgreSQL database already holds the objects of another store (\(store)); their identifiers would clash. Join with an empty store (it downloads everything), or export this store's objects and import them into a replica."
        case .valueNotRepresentable(let entity, let attribute, let object, let reason):
            return
                "\(entity).\(attribute) of \(object) cannot be stored in PostgreSQL: \(reason); change the value in the store (the save stays, and syncing stops before it until then)."
        case .valueNotReadable(let table, let column, let id, let text):
            return
                "the value of column \"\(column)\" of row \(id) of the PostgreSQL table \"\(table)\" does not read as the attribute's type (\(text.prefix(40))); fix the row."
        case .databaseBehind(let store, let database):
            return
                "the PostgreSQL database has the store's saves up to \(database), but the store has seen them confirmed up to \(store): the database was restored from an older backup. Sync a fresh store from it instead."
        case .historyLost(let reason):
            return "saves of the store that were not yet sent are gone: \(reason)."
        }
    }
}
