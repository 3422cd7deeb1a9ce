import Foundation
import Synchronization
import Testing

@testable import Logbook
@testable import TestSupport

/// The conflict policy, one case per test, each in both orders of arrival at PostgreSQL: every
/// store and PostgreSQL end the same whichever save gets there first.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct ReplicaConflictTests {
    /// Two stores that both joined `database`, with one Person (`Ann`, salary 10, no email)
    /// that both have.
    static func pair(
        _ database: SyncFixture.Database, a: PostgreSQLReplica.Options = .init(),
        b: PostgreSQLReplica.Options = .init()
    ) throws -> (ReplicaStore, ReplicaStore, PersistentIdentifier) {
        let first = try ReplicaStore(database, name: "a", options: a)
        let second = try ReplicaStore(database, name: "b", options: b)
        let context = first.context()
        let ann = try context.insert(entity: "Person", values: ["name": "Ann", "salary": 10])
        try context.save()
        try first.replica.sync()
        try second.replica.sync()
        return (first, second, ann.persistentModelID)
    }

    /// Sets `values` on object `id` in `store`, and saves.
    static func update(
        _ store: ReplicaStore, _ id: PersistentIdentifier, _ values: [String: Any?]
    ) throws {
        let context = store.context()
        let object = try #require(try context.model(for: id))
        for (key, value) in values { try object.setValue(value, forKey: key) }
        try context.save()
        // Stamps count milliseconds: the next save is later.
        Thread.sleep(forTimeInterval: 0.005)
    }

    /// Syncs the stores in `order`, then each again, and checks that they and PostgreSQL agree.
    static func settle(
        _ database: SyncFixture.Database, _ order: [ReplicaStore], all: [ReplicaStore]
    ) throws {
        for store in order { try store.replica.sync() }
        for store in all { try store.replica.sync() }
        let expected = try databaseRows(database)
        for store in all {
            let rows = try store.rows()
            #expect(rows == expected, "\(store.replica.status): \(rows) ≠ PostgreSQL's \(expected)")
        }
    }

    static func field(_ store: ReplicaStore, _ id: PersistentIdentifier, _ key: String) throws
        -> Any?
    {
        let context = store.context()
        return try context.model(for: id).flatMap { try $0.value(forKey: key) }
    }

    @Test(arguments: [false, true])
    func updatesOfDifferentAttributesBothStay(bFirst: Bool) throws {
        try withDatabase { database in
            let (a, b, ann) = try Self.pair(database)
            defer {
                a.close()
                b.close()
            }
            try Self.update(a, ann, ["salary": 20])
            try Self.update(b, ann, ["name": "Ann Lee"])
            try Self.settle(database, bFirst ? [b, a] : [a, b], all: [a, b])
            #expect(try Self.field(a, ann, "salary") as? Int64 == 20)
            #expect(try Self.field(a, ann, "name") as? String == "Ann Lee")
        }
    }

    @Test(arguments: [false, true])
    func theLaterWriteOfAnAttributeWins(laterFirst: Bool) throws {
        try withDatabase { database in
            let (a, b, ann) = try Self.pair(database)
            defer {
                a.close()
                b.close()
            }
            try Self.update(a, ann, ["salary": 20])
            try Self.update(b, ann, ["salary": 30])  // later on the clock
            try Self.settle(database, laterFirst ? [b, a] : [a, b], all: [a, b])
            #expect(try Self.field(a, ann, "salary") as? Int64 == 30)
        }
    }

    @Test(arguments: [false, true])
    func aDeleteWinsOverAConcurrentUpdate(deleteFirst: Bool) throws {
        try withDatabase { database in
            let reports = Mutex<[SyncConflictReport]>([])
            let (a, b, ann) = try Self.pair(
                database,
                b: .init(onConflict: { report in reports.withLock { $0.append(report) } }))
            defer {
                a.close()
                b.close()
            }
            let context = a.context()
            let doomed = try #require(try context.model(for: ann))
            context.delete(doomed)
            try context.save()
            try Self.update(b, ann, ["salary": 99])  // later than the delete, and still loses
            try Self.settle(database, deleteFirst ? [a, b] : [b, a], all: [a, b])
            #expect(try a.rows().isEmpty)
            if deleteFirst {
                #expect(
                    reports.withLock { $0 }
                        == [.deletedMeanwhile(ann, lostValues: ["salary": .integer(99)])])
            }
        }
    }

    @Test(arguments: [false, true])
    func aUniqueValueStaysWithItsFirstHolder(bFirst: Bool) throws {
        try withDatabase { database in
            let reports = Mutex<[SyncConflictReport]>([])
            let options = PostgreSQLReplica.Options(onConflict: { report in
                reports.withLock { $0.append(report) }
            })
            let (a, b, ann) = try Self.pair(database, a: options, b: options)
            defer {
                a.close()
                b.close()
            }
            // Two companies of one name, inserted in two stores: the first to reach
            // PostgreSQL keeps the name, the other insert is undone.
            let inA = a.context()
            let acmeA = try inA.insert(entity: "Company", values: ["name": "Acme", "city": "A"])
            try inA.save()
            let inB = b.context()
            let acmeB = try inB.insert(entity: "Company", values: ["name": "Acme", "city": "B"])
            try inB.save()
            // And one email given to Ann in one store and to a new person in the other.
            try Self.update(a, ann, ["email": "x@example.com"])
            let bob = try inB.insert(
                entity: "Person", values: ["name": "Bob", "email": "x@example.com"])
            try inB.save()
            try Self.settle(database, bFirst ? [b, a] : [a, b], all: [a, b])

            let (winner, loser) =
                bFirst
                ? (acmeB.persistentModelID, acmeA.persistentModelID)
                : (acmeA.persistentModelID, acmeB.persistentModelID)
            let rows = try a.rows()
            #expect(rows[winner.description] != nil)
            #expect(rows[loser.description] == nil)
            let emailOwner = bFirst ? bob.persistentModelID : ann
            #expect(try Self.field(a, emailOwner, "email") as? String == "x@example.com")
            let other = bFirst ? ann : bob.persistentModelID
            let otherEmail = try Self.field(a, other, "email")
            #expect(rows[other.description] == nil || otherEmail == nil)
            let clashes = reports.withLock { $0 }.filter {
                if case .uniqueClash = $0 { return true } else { return false }
            }
            #expect(clashes.count == 2)
            #expect(
                clashes.contains(
                    .uniqueClash(
                        attribute: "name", value: "\"Acme\"", kept: winner, refused: loser,
                        insertRefused: true,
                        lostValues: [
                            "name": .string("Acme"), "city": .string(bFirst ? "A" : "B"),
                        ])))
        }
    }

    @Test func aResolverDecidesForItsEntity() throws {
        try withDatabase { database in
            let (a, b, ann) = try Self.pair(database)
            defer {
                a.close()
                b.close()
            }
            b.replica.setResolver(for: "Person") { conflict in
                // The higher salary, whoever wrote it last.
                let mine = conflict.local["salary"].flatMap { $0.anyValue as? Int64 } ?? 0
                let theirs = conflict.remote["salary"].flatMap { $0.anyValue as? Int64 } ?? 0
                return .values(["salary": .integer(max(mine, theirs))])
            }
            try Self.update(a, ann, ["salary": 100])
            try Self.update(b, ann, ["salary": 50])  // later: last writer wins would keep 50
            try Self.settle(database, [a, b], all: [a, b])
            #expect(try Self.field(a, ann, "salary") as? Int64 == 100)
            #expect(try Self.field(b, ann, "salary") as? Int64 == 100)
        }
    }

    @Test func aWriteInSQLIsOrderedOnTheSameClock() throws {
        try withDatabase { database in
            let (a, b, ann) = try Self.pair(database)
            defer {
                a.close()
                b.close()
            }
            try Self.update(a, ann, ["salary": 20])  // earlier than the SQL update
            let connection = try database.connect()
            defer { connection.close() }
            try connection.simpleQuery(
                "UPDATE \"Person\" SET salary = 40 WHERE id = \(ann.primaryKey)")
            Thread.sleep(forTimeInterval: 0.005)
            try Self.update(b, ann, ["name": "Ann B"])
            try Self.settle(database, [a, b], all: [a, b])
            #expect(try Self.field(a, ann, "salary") as? Int64 == 40)
            #expect(try Self.field(b, ann, "name") as? String == "Ann B")
        }
    }
}
