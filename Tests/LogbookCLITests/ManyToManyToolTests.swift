import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// A book read by readers: `Book.readers` stores the links ("Book" sorts first).
final class Book: PersistentModel {
    @Attribute var title = ""
    @Relationship(inverse: \Reader.books) var readers: [Reader] = []
    init() {}
}

/// A reader of books: the derived side.
final class Reader: PersistentModel {
    @Attribute var name = ""
    @Relationship var books: [Book] = []
    init() {}
}

/// The tools with a many-to-many relationship: the dump shows which side stores the links,
/// `verify` checks every link, export writes them.
@Suite struct ManyToManyToolTests {
    private func libraryStore(at path: String) throws {
        let container = try ModelContainer(for: [Book.self, Reader.self], at: URL(filePath: path))
        let context = ModelContext(container)
        let ann = Reader()
        ann.name = "Ann"
        let bob = Reader()
        bob.name = "Bob"
        let book = Book()
        book.title = "Dune"
        context.insert(book)
        book.readers = [ann, bob]
        try context.save()
        try container.close()
    }

    @Test func dumpShowsTheStoringSideAndVerifyChecksEveryLink() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try libraryStore(at: path)
        let dump = try CLI.run(["dump", path])
        #expect(dump.stdout.contains("readers: [Reader] links"), "\(dump.stdout)")
        #expect(dump.stdout.contains("books: [Book]"), "\(dump.stdout)")
        #expect(try CLI.run(["verify", path]).status == 0)
        do {
            let store = try LogStore(path: path)
            let key: [UInt8] = withUnsafeBytes(of: UInt64(2).bigEndian) { Array($0) }
            try store.delete(key, in: "Reader")
            try store.close()
        }
        let result = try CLI.run(["verify", path])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("Book/1: readers points at Reader/2, which does not exist"),
            "\(result.stdout)")
    }

    @Test func exportWritesTheStoringSideAndItsLinks() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("source")
        try libraryStore(at: source)
        let export = try CLI.run(["export", source])
        #expect(export.status == 0)
        #expect(export.stdout.contains("\"storesLinks\":true"), "\(export.stdout)")
        // The links of Book/1: Reader/1 and Reader/2, as the stored data value.
        #expect(
            export.stdout.contains("\"readers\":\"00000000000000010000000000000002\""),
            "\(export.stdout)")
    }
}

/// A many-to-many in PostgreSQL is a join table (issue 34): `export --format sql` writes a row
/// per link into `Book_readers`, and the change feed keeps those rows equal to the links as
/// they change.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["LOGBOOK_TEST_PSQL"] != nil,
        "needs LOGBOOK_TEST_PSQL (run through .ci/postgres)"))
struct ManyToManyPostgreSQLTests {
    /// The rows of `Book_readers` after `files` are applied to a new database, `book|reader`
    /// per line.
    static func links(after files: [String]) throws -> String {
        let database = try #require(try ScratchDatabase())
        var arguments = database.arguments + ["-X", "-q", "-v", "ON_ERROR_STOP=1"]
        for file in files { arguments += ["-f", file] }
        let query = "SELECT \"Book_id\", \"readers_id\" FROM \"Book_readers\" ORDER BY 1, 2"
        let run = try Shell.run(database.psql, arguments + ["-t", "-A", "-c", query])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test func exportAndTheFeedWriteEachLinkAsARowOfTheJoinTable() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Book.self, Reader.self], at: URL(filePath: path))
        let context = ModelContext(container)
        let start = try container.currentHistoryToken
        let (ann, bob) = (Reader(), Reader())
        (ann.name, bob.name) = ("Ann", "Bob")
        let dune = Book()
        dune.title = "Dune"
        context.insert(dune)
        dune.readers = [ann, bob]
        try context.save()
        try container.close()

        let export = try CLI.run(["export", path, "--format", "sql"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(!export.stdout.contains("BYTEA"))
        let exported = dir.child("export.sql")
        try Data(export.stdout.utf8).write(to: URL(filePath: exported))
        #expect(try Self.links(after: [exported]) == "1|1\n1|2\n")

        // Bob stops reading, Cy starts; then the book goes.
        do {
            let container = try ModelContainer(
                for: [Book.self, Reader.self], at: URL(filePath: path))
            let context = ModelContext(container)
            let book = try #require(try context.fetch(FetchDescriptor<Book>()).first)
            let readers = try context.fetch(FetchDescriptor<Reader>())
            let cy = Reader()
            cy.name = "Cy"
            book.readers = readers.filter { $0.name == "Ann" } + [cy]
            try context.save()
            try container.close()
        }
        let feed = try CLI.run(["changes", path, "--since", start.description, "--format", "sql"])
        #expect(feed.status == 0, "\(feed.stderr)")
        let feedFile = dir.child("feed.sql")
        try Data(feed.stdout.utf8).write(to: URL(filePath: feedFile))
        #expect(try Self.links(after: [feedFile]) == "1|1\n1|3\n")
        // Applied over the export, as a feed resumed from an older token is.
        #expect(try Self.links(after: [exported, feedFile]) == "1|1\n1|3\n")
    }
}
