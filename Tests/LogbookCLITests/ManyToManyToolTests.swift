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
