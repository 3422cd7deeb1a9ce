import Foundation
import Testing

@testable import Logbook
@testable import TestSupport

/// A many-to-many in PostgreSQL is a join table (issue 34): a link is a row, made and removed
/// as the store links and unlinks, and a row an SQL client inserts or deletes is a link made
/// or removed in the stores.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct ReplicaManyToManyTests {
    static var types: [any PersistentModel.Type] { [Student.self, Course.self] }

    /// The links in `join`, as (student, course) primary keys.
    static func links(_ database: SyncFixture.Database, _ join: PostgreSQLJoinTable) throws
        -> Set<[UInt64]>
    {
        let connection = try database.connect()
        defer { connection.close() }
        var pairs: Set<[UInt64]> = []
        for row in try connection.query(
            "SELECT \(join.owner), \(join.target) FROM \(join.table)"
        ).rows {
            let pair = [
                UInt64(try row.decode(0, as: Int64.self)),
                UInt64(try row.decode(1, as: Int64.self)),
            ]
            pairs.insert(join.entity == "Student" ? pair : pair.reversed())
        }
        return pairs
    }

    /// The titles of the courses of the student called `name`, read afresh.
    static func courses(of name: String, in container: ModelContainer) throws -> Set<String> {
        let context = ModelContext(container)  // kept while the relationship is read
        let students = try context.fetch(FetchDescriptor<Student>())
        let student = try #require(students.first { $0.name == name })
        return Set(student.courses.map(\.title))
    }

    @Test func linksAreRowsOfAJoinTableBothWays() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a", types: Self.types)
            defer { a.close() }
            let b = try ReplicaStore(database, name: "b", types: Self.types)
            defer { b.close() }
            try a.replica.sync()
            try b.replica.sync()
            let join = try #require(
                a.container.schema.entities.flatMap { PostgreSQLJoinTable.all(of: $0) }.first)
            let context = a.context()
            let ann = Student(name: "Ann")
            let bob = Student(name: "Bob")
            let math = Course(title: "Math")
            let art = Course(title: "Art")
            for model in [ann, bob] as [any PersistentModel] { context.insert(model) }
            for model in [math, art] as [any PersistentModel] { context.insert(model) }
            ann.courses = [math, art]
            bob.courses = [math]
            try context.save()
            try a.replica.sync()
            try b.replica.sync()
            let (annID, bobID) = (
                ann.persistentModelID.primaryKey, bob.persistentModelID.primaryKey
            )
            let (mathID, artID) = (
                math.persistentModelID.primaryKey, art.persistentModelID.primaryKey
            )
            #expect(
                try Self.links(database, join) == [
                    [annID, mathID], [annID, artID], [bobID, mathID],
                ])
            #expect(try Self.courses(of: "Ann", in: b.container) == ["Math", "Art"])
            let bContext = ModelContext(b.container)
            let bMath = try bContext.fetch(FetchDescriptor<Course>()).first { $0.title == "Math" }
            #expect(Set(bMath?.students?.map(\.name) ?? []) == ["Ann", "Bob"])

            // An unlink deletes its row only.
            ann.courses = [art]
            try context.save()
            try a.replica.sync()
            try b.replica.sync()
            #expect(try Self.links(database, join) == [[annID, artID], [bobID, mathID]])
            #expect(try Self.courses(of: "Ann", in: b.container) == ["Art"])

            // An SQL client links and unlinks with rows.
            let connection = try database.connect()
            defer { connection.close() }
            let (owner, target) = join.entity == "Student" ? (bobID, artID) : (artID, bobID)
            try connection.simpleQuery(
                "INSERT INTO \(join.table) VALUES (\(owner), \(target))")
            let (gone1, gone2) = join.entity == "Student" ? (annID, artID) : (artID, annID)
            try connection.simpleQuery(
                "DELETE FROM \(join.table) WHERE \(join.owner) = \(gone1) AND \(join.target) = \(gone2)"
            )
            let since = try a.container.currentHistoryToken
            try a.replica.sync()
            try b.replica.sync()
            #expect(try a.container.history(after: since).first?.author == "sql:postgres")
            for store in [a, b] {
                #expect(try Self.courses(of: "Bob", in: store.container) == ["Math", "Art"])
                #expect(try Self.courses(of: "Ann", in: store.container) == [])
            }
            #expect(try databaseRows(database, schema: a.container.schema) == a.rows())
            #expect(try b.rows() == a.rows())

            // Deleting an object that stores links deletes its rows.
            let fresh = a.context()
            let students = try fresh.fetch(FetchDescriptor<Student>())
            let courses = try fresh.fetch(FetchDescriptor<Course>())
            if join.entity == "Student" {
                fresh.delete(try #require(students.first { $0.name == "Bob" }))
            } else {
                fresh.delete(try #require(courses.first { $0.title == "Art" }))
            }
            try fresh.save()
            try a.replica.sync()
            #expect(
                try Self.links(database, join).allSatisfy {
                    join.entity == "Student" ? $0[0] != bobID : $0[1] != artID
                })
        }
    }
}
