import Foundation
import Testing

@testable import Logbook
@testable import TestSupport

/// A store of ``SyncFixture/schema`` (or of model classes) in a temporary directory, with its replica of `database`.
final class ReplicaStore {
    let directory: TemporaryDirectory
    let container: ModelContainer
    let replica: PostgreSQLReplica

    init(
        _ database: SyncFixture.Database, name: String,
        options: PostgreSQLReplica.Options = PostgreSQLReplica.Options(),
        directory: TemporaryDirectory = TemporaryDirectory("replica"),
        types: [any PersistentModel.Type]? = nil
    ) throws {
        self.directory = directory
        let url = URL(filePath: directory.child("store.logbook"))
        container =
            try types.map { try ModelContainer(for: $0, at: url) }
            ?? ModelContainer(schema: SyncFixture.schema, at: url)
        var options = options
        options.name = options.name ?? name
        replica = PostgreSQLReplica(
            container: container, configuration: try database.configuration, options: options)
    }

    /// A new context of the container, whose saves are the app's.
    func context() -> ModelContext { ModelContext(container) }

    /// Every object of the store as the canonical text of its fields, by `Entity/id`.
    func rows() throws -> [String: [String?]] { try storeRows(container) }

    func close() {
        replica.stop()
        try? container.close()
        directory.remove()
    }
}

/// Every object of `container`'s store as the canonical text of its fields, by `Entity/id`.
func storeRows(_ container: ModelContainer) throws -> [String: [String?]] {
    var rows: [String: [String?]] = [:]
    for entity in container.schema.entities {
        // As the replica sees them: a many-to-many's links as keys.
        let fields = SyncedEntity(entity, columns: []).fields
        let binding = try container.core.binding(named: entity.name)
        try container.store.forEach(in: entity.name) { key, value in
            guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else { return }
            var values = fields.map(\.initialValue)
            _ = try binding.codec.decode(value, key: "") { values[$0] = $1 }
            rows["\(entity.name)/\(pk)"] = zip(values, fields).map { CanonicalText.text($0, $1) }
        }
    }
    return rows
}

/// Every row of the synced tables of `database`, in the form of ``ReplicaStore/rows()``.
func databaseRows(_ database: SyncFixture.Database, schema: Schema = SyncFixture.schema) throws
    -> [String: [String?]]
{
    let connection = try database.connect()
    defer { connection.close() }
    var rows: [String: [String?]] = [:]
    for entity in schema.entities {
        let synced = SyncedEntity(entity, columns: [])
        for row in try connection.query(
            "SELECT \"id\", \(synced.canonicalColumns) FROM \(synced.table)"
        ).rows {
            let id = try row.decode(0, as: Int64.self)
            // PostgreSQL's text of a JSONB column is the store's JSON respaced: compare values.
            rows["\(entity.name)/\(id)"] = try synced.fields.indices.map { i in
                let text = try row.decode(i + 1, as: String?.self)
                guard let value = CanonicalText.value(text, synced.fields[i]) else { return text }
                return CanonicalText.text(value, synced.fields[i])
            }
        }
    }
    return rows
}

/// Runs `body` with a fresh database, dropped afterwards.
func withDatabase(_ body: (SyncFixture.Database) throws -> Void) throws {
    let database = try SyncFixture.makeDatabase()
    defer { database.drop() }
    try body(database)
}
