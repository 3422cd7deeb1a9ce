import Foundation
import Testing

@testable import Logbook
@testable import TestSupport

/// The two directions of a replica: a save goes up as one transaction and reaches another
/// store as a save of its own; a change an SQL client commits reaches the stores; nothing
/// comes back to where it was made.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct ReplicaExchangeTests {
    @Test func aSaveReachesAnotherStoreWithItsOriginAsAuthor() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            let b = try ReplicaStore(database, name: "b")
            defer { b.close() }
            // Both join the (empty) database first, so what follows goes by the change log.
            try a.replica.sync()
            try b.replica.sync()
            let context = a.context()
            let acme = try context.insert(
                entity: "Company", values: ["name": "Acme", "city": "Pune"])
            let ann = try context.insert(
                entity: "Person",
                values: ["name": "Ann", "salary": 2_000_000, "email": "ann@acme.example"])
            try ann.setValue(acme, forKey: "company")
            try context.save()
            try a.replica.sync()
            let since = try b.container.currentHistoryToken
            try b.replica.sync()

            #expect(try b.rows() == a.rows())
            #expect(try databaseRows(database) == a.rows())
            let arrived = try b.container.history(after: since)
            #expect(arrived.count == 1)
            #expect(arrived.first?.author == "replica:a")
            #expect(Set(arrived.first?.inserted.map(\.entityName) ?? []) == ["Company", "Person"])
            let reader = b.context()
            let people = try reader.fetch(entity: "Person")
            #expect(people.count == 1)
            #expect(
                (try people.first?.value(forKey: "company") as? any ModelObject)?["name"] as? String
                    == "Acme")
        }
    }

    @Test func anUpdateInSQLReachesTheStoreAsASaveAndObserversHearOfIt() async throws {
        try await withDatabaseAsync { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            let context = a.context()
            let ann = try context.insert(entity: "Person", values: ["name": "Ann", "salary": 10])
            try context.save()
            try a.replica.sync()
            let id = ann.persistentModelID
            let connection = try database.connect()
            defer { connection.close() }
            let changes = a.container.changes()
            try connection.simpleQuery(
                "UPDATE \"Person\" SET salary = salary + 5 WHERE id = \(id.primaryKey)")
            let since = try a.container.currentHistoryToken
            try a.replica.sync()

            let saves = try a.container.history(after: since)
            #expect(saves.count == 1)
            #expect(saves.first?.author == "sql:postgres")
            #expect(saves.first?.changes.first?.updatedAttributes == ["salary"])
            let reader = a.context()
            let fresh = try reader.model(for: id)
            #expect(fresh?["salary"] as? Int64 == 15)
            var iterator = changes.makeAsyncIterator()
            let published = await iterator.next()
            #expect(published?.updated[id] == ["salary"])
        }
    }

    /// More of the change log than one batch reads: one call applies it all.
    @Test func oneSyncAppliesEveryTransactionWaiting() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            try a.replica.sync()
            let connection = try database.connect()
            defer { connection.close() }
            let rows = ChangeLogReader(connection: connection).batchSize * 3 / 4
            for n in 0..<3 {
                try connection.simpleQuery(
                    "INSERT INTO \"Company\" (name) SELECT 'c\(n)-' || i FROM generate_series(1, \(rows)) i"
                )
            }
            let status = try a.replica.sync()
            #expect(status.transactionsApplied == 3)
            #expect(status.changesApplied == 3 * rows)
            #expect(try a.rows().count == 3 * rows)
        }
    }

    @Test func nothingComesBackToWhereItWasMade() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            let context = a.context()
            for n in 0..<3 {
                try context.insert(entity: "Person", values: ["name": "P\(n)"])
                try context.save()
            }
            let before = try a.container.history().count
            try a.replica.sync()
            try a.replica.sync()
            // Only the app's three saves: no save of changes that came back down.
            #expect(try a.container.history().count == before)
            let connection = try database.connect()
            defer { connection.close() }
            let entries = try connection.query(
                "SELECT count(*) FROM logbook_sync.changes WHERE op <> 'm'")
            #expect(try entries.rows.first?.decode(0, as: Int64.self) == 3)
        }
    }
}

/// Runs `body` with a fresh database, dropped afterwards.
func withDatabaseAsync(_ body: (SyncFixture.Database) async throws -> Void) async throws {
    let database = try SyncFixture.makeDatabase()
    defer { database.drop() }
    try await body(database)
}
