import Foundation
import Testing

@testable import Logbook
@testable import TestSupport

/// An SQL client's `DELETE` applies the schema's delete rules in PostgreSQL, as a save's delete
/// does in a store: no row keeps a link to a deleted one, and the stores follow.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct ReplicaDeleteRuleTests {
    /// One integer of an SQL query's first row.
    static func count(_ database: SyncFixture.Database, _ sql: String) throws -> Int64 {
        let connection = try database.connect()
        defer { connection.close() }
        return try connection.query(sql).rows.first?.decode(0, as: Int64.self) ?? -1
    }

    /// Runs `sql` as an SQL client, then syncs each store.
    static func sql(_ database: SyncFixture.Database, _ sql: String, then stores: [ReplicaStore])
        throws
    {
        let connection = try database.connect()
        defer { connection.close() }
        try connection.simpleQuery(sql)
        for store in stores { try store.replica.sync() }
    }

    @Test func deletingTheOneSideNullifiesTheManySide() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a")
            defer { a.close() }
            let context = a.context()
            let acme = try context.insert(entity: "Company", values: ["name": "Acme"])
            for name in ["Ann", "Bob"] {
                let person = try context.insert(entity: "Person", values: ["name": name])
                try person.setValue(acme, forKey: "company")
            }
            try context.save()
            try a.replica.sync()
            #expect(
                try Self.count(
                    database, "SELECT count(*) FROM \"Person\" WHERE company IS NOT NULL") == 2)

            try Self.sql(database, "DELETE FROM \"Company\" WHERE name = 'Acme'", then: [a])
            #expect(
                try Self.count(
                    database, "SELECT count(*) FROM \"Person\" WHERE company IS NOT NULL") == 0)
            let people = try ModelContext(a.container).fetch(entity: "Person")
            #expect(people.count == 2)
            #expect(try people.allSatisfy { try $0.value(forKey: "company") == nil })
            #expect(try databaseRows(database) == a.rows())
        }
    }

    @Test func deletingTheOneSideCascades() throws {
        try withDatabase { database in
            let a = try ReplicaStore(
                database, name: "a", types: [Company.self, StaffedEmployee.self])
            defer { a.close() }
            let context = a.context()
            let acme = Company(name: "Acme")
            let other = Company(name: "Other")
            context.insert(acme)
            context.insert(other)
            context.insert(StaffedEmployee(name: "Ann", company: acme))
            context.insert(StaffedEmployee(name: "Bob", company: acme))
            context.insert(StaffedEmployee(name: "Cy", company: other))
            try context.save()
            try a.replica.sync()

            try Self.sql(database, "DELETE FROM \"Company\" WHERE name = 'Acme'", then: [a])
            #expect(try Self.count(database, "SELECT count(*) FROM \"StaffedEmployee\"") == 1)
            let left = try ModelContext(a.container).fetch(FetchDescriptor<StaffedEmployee>())
            #expect(left.map(\.name) == ["Cy"])
            #expect(try databaseRows(database, schema: a.container.schema) == a.rows())
        }
    }

    @Test func deletingEitherSideOfAManyToManyRemovesItsLinks() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a", types: [Student.self, Course.self])
            defer { a.close() }
            let b = try ReplicaStore(database, name: "b", types: [Student.self, Course.self])
            defer { b.close() }
            let context = a.context()
            let (ann, bob) = (Student(name: "Ann"), Student(name: "Bob"))
            let (math, art) = (Course(title: "Math"), Course(title: "Art"))
            for model in [ann, bob] as [any PersistentModel] { context.insert(model) }
            for model in [math, art] as [any PersistentModel] { context.insert(model) }
            ann.courses = [math, art]
            bob.courses = [math]
            try context.save()
            try a.replica.sync()
            try b.replica.sync()
            let join = try #require(
                a.container.schema.entities.flatMap { PostgreSQLJoinTable.all(of: $0) }.first)
            let mathID = math.persistentModelID.primaryKey

            try Self.sql(database, "DELETE FROM \"Course\" WHERE title = 'Math'", then: [a, b])
            #expect(try ReplicaManyToManyTests.links(database, join).allSatisfy { $0[1] != mathID })
            for store in [a, b] {
                #expect(
                    try ReplicaManyToManyTests.courses(of: "Ann", in: store.container) == ["Art"])
                #expect(try ReplicaManyToManyTests.courses(of: "Bob", in: store.container) == [])
            }

            try Self.sql(database, "DELETE FROM \"Student\" WHERE name = 'Ann'", then: [a, b])
            #expect(try ReplicaManyToManyTests.links(database, join).isEmpty)
            for store in [a, b] {
                let courses = try ModelContext(store.container).fetch(FetchDescriptor<Course>())
                #expect(courses.map(\.title) == ["Art"])
                #expect(courses.first?.students?.isEmpty == true)
            }
            #expect(try databaseRows(database, schema: a.container.schema) == a.rows())
            #expect(try b.rows() == a.rows())
        }
    }

    @Test func denyRefusesTheDeleteAndCascadeFollowsLinks() throws {
        try withDatabase { database in
            let a = try ReplicaStore(
                database, name: "a", types: [Topic.self, Article.self, Note.self])
            defer { a.close() }
            let context = a.context()
            let swift = Topic(label: "swift")
            let post = Article(title: "Post")
            let note = Note(text: "n1")
            for model in [swift, post, note] as [any PersistentModel] { context.insert(model) }
            post.tags = [swift]
            post.notes = [note]
            try context.save()
            try a.replica.sync()

            let connection = try database.connect()
            defer { connection.close() }
            let denied = postgreSQLError {
                try connection.simpleQuery("DELETE FROM \"Topic\" WHERE label = 'swift'")
            }
            #expect(denied?.sqlState == "23001")
            #expect(denied?.description.contains("articles") == true)
            #expect(try Self.count(database, "SELECT count(*) FROM \"Topic\"") == 1)

            // The article's notes go with it (cascade), and its topic loses it.
            try Self.sql(database, "DELETE FROM \"Article\" WHERE title = 'Post'", then: [a])
            #expect(try Self.count(database, "SELECT count(*) FROM \"Note\"") == 0)
            let read = ModelContext(a.container)
            #expect(try read.fetch(FetchDescriptor<Note>()).isEmpty)
            #expect(try read.fetch(FetchDescriptor<Topic>()).first?.articles.isEmpty == true)
            #expect(try databaseRows(database, schema: a.container.schema) == a.rows())

            // With no article left, the topic may go.
            try Self.sql(database, "DELETE FROM \"Topic\" WHERE label = 'swift'", then: [a])
            #expect(try ModelContext(a.container).fetch(FetchDescriptor<Topic>()).isEmpty)
        }
    }
}
