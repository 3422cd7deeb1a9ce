import Foundation
import Testing

@testable import Logbook
@testable import TestSupport

/// A replica without its server: saves stay in the store (through compactions) and go up when
/// PostgreSQL is back; the status reports what waits both ways and the last error; a table or
/// column gone from PostgreSQL is a typed error that names it, and one added by hand is
/// ignored.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct ReplicaOfflineTests {
    /// A replica of `store`'s container whose server cannot be reached (no such socket).
    static func unreachable(_ store: ReplicaStore) throws -> PostgreSQLReplica {
        PostgreSQLReplica(
            container: store.container,
            configuration: try PostgreSQLConfiguration(
                url: "postgresql://postgres:pw-not-shown@%2Fnonexistent-socket-dir:5432/x",
                environment: [:]),
            options: .init(name: store.replica.status.origin.map { "r\($0)" }))
    }

    @Test func savesMadeOfflineStayThroughCompactionAndGoUpWhenTheServerIsBack() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            let b = try ReplicaStore(database, name: "b")
            defer { b.close() }
            try a.replica.sync()
            try b.replica.sync()
            let offline = try Self.unreachable(a)
            let context = a.context()
            for n in 0..<3 {
                try context.insert(entity: "Person", values: ["name": "offline \(n)"])
                try context.save()
                #expect(throws: LogbookError.self) { try offline.sync() }
            }
            let failed = offline.status
            #expect(failed.lastError?.contains("pw-not-shown") == false)
            #expect(failed.lastError != nil)
            // The default policy keeps no history past a compaction; a replica's unsent saves
            // stay anyway.
            #expect(try a.container.historyRetention == .untilCompaction)
            try a.container.store.compact()

            try a.replica.sync()
            try b.replica.sync()
            let names = Set(try b.rows().values.compactMap { $0.first ?? nil })
            #expect(names == ["offline 0", "offline 1", "offline 2"])
            #expect(try databaseRows(database) == a.rows())
            #expect(try b.rows() == a.rows())
            // Each save went up as a transaction of its own.
            let arrived = try b.container.history().filter { $0.author == "replica:a" }
            #expect(arrived.count == 3)
        }
    }

    @Test func checkStatusReportsPendingSavesTheLagDownAndTheLastError() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            try a.replica.sync()
            let context = a.context()
            for n in 0..<2 {
                try context.insert(entity: "Person", values: ["name": "P\(n)"])
                try context.save()
            }
            let connection = try database.connect()
            defer { connection.close() }
            try connection.simpleQuery(
                "INSERT INTO \"Company\" (name) VALUES ('Acme'), ('Globex')")
            try connection.simpleQuery("UPDATE \"Company\" SET city = 'Pune'")
            let before = try a.replica.checkStatus()
            #expect(before.pendingSaves == 2)
            #expect(before.upLag != nil)
            #expect(before.changesBehind == 4)
            #expect(before.downLag != nil)
            #expect(before.lastError == nil)
            try a.replica.sync()
            let after = try a.replica.checkStatus()
            #expect(after.pendingSaves == 0)
            #expect(after.changesBehind == 0)
            #expect(after.appliedPosition > before.appliedPosition)

            // An error a replica of the store met is kept in PostgreSQL, for `--status`.
            try connection.simpleQuery("ALTER TABLE \"Person\" DROP COLUMN email")
            try context.insert(entity: "Person", values: ["name": "P2"])
            try context.save()
            #expect(throws: LogbookError.sync(.missingColumn(table: "Person", column: "email"))) {
                try a.replica.sync()
            }
            try connection.simpleQuery("ALTER TABLE \"Person\" ADD COLUMN email text UNIQUE")
            let failed = try a.replica.checkStatus()
            #expect(failed.lastError?.contains("has no column \"email\"") == true)
            #expect(failed.pendingSaves == 1)
        }
    }

    @Test func aMissingTableIsATypedErrorNamingIt() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            try a.replica.sync()
            let connection = try database.connect()
            defer { connection.close() }
            try connection.simpleQuery("DROP TABLE \"Company\" CASCADE")
            #expect(throws: LogbookError.sync(.missingTable("Company"))) {
                try a.replica.sync()
            }
            // setUp creates what is missing, and syncing goes on.
            try a.replica.setUp()
            try a.replica.sync()
        }
    }

    /// Someone changes a column's type by hand: syncing stops with an error naming the table,
    /// the column and both types; the store's save waits, nothing of PostgreSQL's rows is
    /// touched, and once the type is back everything goes on.
    @Test func aColumnOfAnotherTypeIsATypedErrorAndNothingIsLost() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            let context = a.context()
            try context.insert(entity: "Person", values: ["name": "Ann", "salary": 2_000_000])
            try context.save()
            try a.replica.sync()
            let connection = try database.connect()
            defer { connection.close() }
            try connection.simpleQuery("ALTER TABLE \"Person\" ALTER COLUMN salary TYPE text")
            try context.insert(entity: "Person", values: ["name": "Bob", "salary": 3_000_000])
            try context.save()
            let expected = LogbookError.sync(
                .columnType(table: "Person", column: "salary", expected: "BIGINT", found: "text"))
            #expect(throws: expected) { try a.replica.sync() }
            #expect("\(expected)".contains("ALTER TABLE … ALTER COLUMN … TYPE BIGINT"))
            let stopped = try a.replica.checkStatus()
            #expect(stopped.pendingSaves == 1)
            #expect(stopped.lastError?.contains("\"salary\"") == true)
            // PostgreSQL still has Ann only, as she was; the store has both.
            let rows = try connection.query("SELECT name, salary FROM \"Person\"").rows
            #expect(rows.count == 1)
            #expect(try rows.first?.decode(1, as: String.self) == "2000000")
            #expect(try a.rows().count == 2)

            try connection.simpleQuery(
                "ALTER TABLE \"Person\" ALTER COLUMN salary TYPE bigint USING salary::bigint")
            try a.replica.sync()
            #expect(try databaseRows(database) == a.rows())
            #expect(try a.replica.checkStatus().pendingSaves == 0)
        }
    }

    /// (And an SQL insert may leave out attributes with a default in the schema.)
    @Test func aColumnAddedByHandIsIgnored() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            let context = a.context()
            let ann = try context.insert(entity: "Person", values: ["name": "Ann"])
            try context.save()
            try a.replica.sync()
            let connection = try database.connect()
            defer { connection.close() }
            try connection.simpleQuery(
                "ALTER TABLE \"Person\" ADD COLUMN nickname text DEFAULT 'annie'")
            try connection.simpleQuery(
                "UPDATE \"Person\" SET nickname = 'A', salary = 7 WHERE id = \(ann.persistentModelID.primaryKey)"
            )
            try connection.simpleQuery(
                "INSERT INTO \"Person\" (name, nickname) VALUES ('Bo', 'b')"
            )
            try a.replica.sync()
            let names = Set(try a.rows().values.compactMap { $0.first ?? nil })
            #expect(names == ["Ann", "Bo"])
            #expect(try a.context().model(for: ann.persistentModelID)?["salary"] as? Int64 == 7)
            // A save of the store leaves the column alone.
            let later = a.context()
            let fresh = try #require(try later.model(for: ann.persistentModelID))
            try fresh.setValue("Ann Lee", forKey: "name")
            try later.save()
            try a.replica.sync()
            let nickname = try connection.query(
                "SELECT nickname FROM \"Person\" WHERE id = \(ann.persistentModelID.primaryKey)")
            #expect(try nickname.rows.first?.decode(0, as: String?.self) == "A")
        }
    }
}
