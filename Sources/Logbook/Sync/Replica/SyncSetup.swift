import Foundation

/// What the replica found in a database: its identity, who filled it first, and the synced
/// entities.
struct SyncDatabase {
    let identifier: UUID
    let seedStore: UUID?
    let entities: [String: SyncedEntity]
}

/// Creates and checks the sync tables of a database (the article *Syncing with PostgreSQL*).
enum SyncSetup {
    /// Creates what is missing for `schema`, in one transaction: schema `logbook_sync`, each
    /// entity's table (as `logbook export --format sql` makes it) with columns added for new
    /// attributes, the default of `id` (identifiers for rows SQL clients insert) and of each
    /// attribute that has one in the schema, and each table's capture function and triggers.
    /// Leaves what exists alone; safe to run again.
    /// - Throws: ``LogbookError/postgreSQL(_:)``.
    static func run(_ connection: PostgreSQLConnection, schema: Schema) throws {
        try requireSyncableAttributes(schema)
        try connection.transaction {
            try connection.simpleQuery(
                "SELECT pg_advisory_xact_lock(\(SyncCatalog.lock));"
                    + SyncCatalog.baseSQL(databaseIdentifier: UUID().uuidString.lowercased()))
            let registered = try registeredColumns(connection)
            var sql = ""
            for entity in schema.entities {
                let fields = entity.storedFields.attributes
                var columns = registered[entity.name] ?? []
                for field in fields where !columns.contains(field.name) {
                    columns.append(field.name)
                }
                let table = PostgreSQLTable.identifier(entity.name)
                sql += PostgreSQLTable.create(entity, ifNotExists: true)
                let links = Set(PostgreSQLJoinTable.all(of: entity).map(\.relationship))
                for field in fields where !links.contains(field.name) {
                    sql +=
                        "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS "
                        + addedColumn(field) + ";\n"
                    // The schema's default, for SQL clients' inserts that leave it out.
                    if let literal = defaultLiteral(field) {
                        sql +=
                            "ALTER TABLE \(table) ALTER COLUMN "
                            + PostgreSQLTable.identifier(field.name) + " SET DEFAULT \(literal);\n"
                    }
                }
                sql +=
                    "ALTER TABLE \(table) ALTER COLUMN \"id\" SET DEFAULT "
                    + "nextval('logbook_sync.sql_ids');\n"
                sql +=
                    "INSERT INTO logbook_sync.tables (entity, columns) VALUES ("
                    + SyncSQL.literal(entity.name) + ", " + SyncSQL.textArray(columns)
                    + ") ON CONFLICT (entity) DO UPDATE SET columns = EXCLUDED.columns;\n"
                sql += SyncCatalog.triggerSQL(entity, in: schema, columns: columns)
            }
            try connection.simpleQuery(sql)
        }
    }

    /// The definition of `field` as `ADD COLUMN` adds it to a table that may hold rows: with
    /// its default, and `NOT NULL` only when that default fills the rows already there.
    private static func addedColumn(_ field: AttributeDescription) -> String {
        var text = PostgreSQLTable.identifier(field.name) + " " + PostgreSQLLiteral.type(field)
        if let literal = defaultLiteral(field) {
            text += " DEFAULT " + literal
            if !field.isOptional { text += " NOT NULL" }
        }
        if field.isUnique { text += " UNIQUE DEFERRABLE INITIALLY DEFERRED" }
        return text
    }

    /// `field`'s default value as an SQL literal, if it has one.
    private static func defaultLiteral(_ field: AttributeDescription) -> String? {
        guard let value = field.defaultValue, !value.isNull else { return nil }
        var literal: [UInt8] = []
        PostgreSQLLiteral.append(value, as: field, to: &literal)
        return String(decoding: literal, as: UTF8.self)
    }

    /// The synced columns of each registered entity, in stamp order.
    private static func registeredColumns(_ connection: PostgreSQLConnection) throws
        -> [String: [String]]
    {
        var columns: [String: [String]] = [:]
        for row in try connection.query("SELECT entity, columns FROM logbook_sync.tables").rows {
            let entity = try row.decode(0, as: String.self)
            let list = try row.decode(1, as: String.self)
            columns[entity] = (SyncSQL.parseArray(list) ?? []).compactMap { $0 }
        }
        return columns
    }

    /// Checks that a replica can keep every attribute of `schema` in PostgreSQL. It syncs every
    /// attribute type, with the export's column for each; what it cannot keep is a unique
    /// constraint over a composite (its fields together), an array, a set or a `JSONB` column:
    /// a replica resolves unique clashes field by field, on values it can compare as text.
    /// - Throws: ``SyncError/unsupportedAttribute(entity:attribute:reason:)`` naming the first
    ///   such attribute.
    static func requireSyncableAttributes(_ schema: Schema) throws {
        for entity in schema.entities {
            for field in entity.storedFields.attributes where field.isUnique {
                let kind: String
                switch field.type {
                case .composite: kind = "a composite"
                case .array: kind = "an array"
                case .set: kind = "a set"
                default: continue
                }
                throw LogbookError.sync(
                    .unsupportedAttribute(
                        entity: entity.name, attribute: field.name,
                        reason:
                            "it is \(kind) with a unique constraint, and replicas resolve unique clashes "
                            + "one scalar value at a time; drop the constraint, or make a scalar attribute unique"
                    ))
            }
        }
    }

    /// Whether the database has the sync tables at all.
    static func isSetUp(_ connection: PostgreSQLConnection) throws -> Bool {
        let found = try connection.query("SELECT to_regclass('logbook_sync.database')::text")
        return try found.rows.first?.decode(0, as: String?.self) != nil
    }

    /// Checks that the database serves `schema`: each entity's table with every field's column
    /// of the export's type (columns added by hand are ignored), its two triggers, and its
    /// synced columns registered.
    /// - Throws: ``SyncError/missingTable(_:)``, ``SyncError/missingColumn(table:column:)``,
    ///   ``SyncError/columnType(table:column:expected:found:)``,
    ///   ``SyncError/missingTrigger(table:)``, ``SyncError/unsupportedDatabase(reason:)``;
    ///   ``LogbookError/postgreSQL(_:)``.
    static func check(_ connection: PostgreSQLConnection, schema: Schema) throws -> SyncDatabase {
        try requireSyncableAttributes(schema)
        let identity = try connection.query(
            "SELECT id::text, format, seed_store::text FROM logbook_sync.database")
        guard identity.rows.count == 1, let row = identity.rows.first,
            let identifier = UUID(uuidString: try row.decode(0, as: String.self))
        else {
            throw LogbookError.sync(
                .unsupportedDatabase(reason: "logbook_sync.database does not hold one row"))
        }
        let format = try row.decode(1, as: Int64.self)
        guard format == SyncCatalog.format else {
            throw LogbookError.sync(
                .unsupportedDatabase(
                    reason:
                        "their layout is version \(format), and this Logbook knows version \(SyncCatalog.format)"
                ))
        }
        let seed = try row.decode(2, as: String?.self).flatMap { UUID(uuidString: $0) }
        let registered = try registeredColumns(connection)
        var entities: [String: SyncedEntity] = [:]
        for entity in schema.entities {
            let table = entity.name
            let types = try columnTypes(connection, table)
            guard !types.isEmpty else { throw LogbookError.sync(.missingTable(table)) }
            let synced = SyncedEntity(entity, columns: registered[table] ?? [])
            for i in synced.columnFields {
                let field = synced.fields[i]
                guard let type = types[field.name] else {
                    throw LogbookError.sync(.missingColumn(table: table, column: field.name))
                }
                let expected = PostgreSQLLiteral.type(field)
                guard normalized(type) == normalized(expected) else {
                    throw LogbookError.sync(
                        .columnType(
                            table: table, column: field.name, expected: expected, found: type))
                }
            }
            for join in synced.joins.values { try checkJoinTable(connection, join) }
            let triggers = try connection.query(
                """
                SELECT count(*) FROM pg_trigger
                WHERE tgrelid = to_regclass($1) AND tgname IN ($2, $3) AND tgenabled <> 'D'
                """,
                [
                    .text(PostgreSQLTable.identifier(table)), .text(SyncCatalog.captureTrigger),
                    .text(SyncCatalog.lockTrigger),
                ])
            let columns = registered[table] ?? []
            guard try triggers.rows.first?.decode(0, as: Int64.self) == 2,
                entity.storedFields.attributes.allSatisfy({ columns.contains($0.name) })
            else { throw LogbookError.sync(.missingTrigger(table: table)) }
            entities[table] = synced
        }
        return SyncDatabase(identifier: identifier, seedStore: seed, entities: entities)
    }

    /// The columns of a table (`name`, unquoted) and their types, as `format_type` writes them;
    /// empty if the table is missing.
    private static func columnTypes(_ connection: PostgreSQLConnection, _ name: String) throws
        -> [String: String]
    {
        let found = try connection.query(
            """
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod)
            FROM pg_attribute a
            WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
            """, [.text(PostgreSQLTable.identifier(name))])
        var types: [String: String] = [:]
        for column in found.rows {
            types[try column.decode(0, as: String.self)] = try column.decode(1, as: String.self)
        }
        return types
    }

    /// Checks a many-to-many's join table: its two `bigint` columns and its two triggers.
    private static func checkJoinTable(
        _ connection: PostgreSQLConnection, _ join: PostgreSQLJoinTable
    )
        throws
    {
        let types = try columnTypes(connection, join.name)
        guard !types.isEmpty else { throw LogbookError.sync(.missingTable(join.name)) }
        for column in [join.entity + "_id", join.relationship + "_id"] {
            guard let type = types[column] else {
                throw LogbookError.sync(.missingColumn(table: join.name, column: column))
            }
            guard normalized(type) == "bigint" else {
                throw LogbookError.sync(
                    .columnType(table: join.name, column: column, expected: "BIGINT", found: type))
            }
        }
        let triggers = try connection.query(
            """
            SELECT count(*) FROM pg_trigger
            WHERE tgrelid = to_regclass($1) AND tgname IN ($2, $3) AND tgenabled <> 'D'
            """,
            [
                .text(join.table), .text(SyncCatalog.captureTrigger),
                .text(SyncCatalog.lockTrigger),
            ])
        guard try triggers.rows.first?.decode(0, as: Int64.self) == 2 else {
            throw LogbookError.sync(.missingTrigger(table: join.name))
        }
    }

    /// A type name as `format_type` writes it: lower case, no space after a comma.
    private static func normalized(_ type: String) -> String {
        type.lowercased().replacingOccurrences(of: ", ", with: ",")
    }
}
