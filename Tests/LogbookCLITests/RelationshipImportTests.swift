import Foundation
import Logbook
import TestSupport
import Testing

/// A shelf of volumes (one-to-many: the volumes store the key).
final class Shelf: PersistentModel {
    @Attribute var name = ""
    @Relationship(inverse: \Volume.shelf) var volumes: [Volume] = []
    init() {}
}

/// A volume on a shelf, with tags (many-to-many: `ShelfTag.volumes` stores the links).
final class Volume: PersistentModel {
    @Attribute var title = ""
    @Relationship var shelf: Shelf?
    @Relationship var tags: [ShelfTag] = []
    init() {}
}

final class ShelfTag: PersistentModel {
    @Attribute var label = ""
    @Relationship(inverse: \Volume.tags) var volumes: [Volume] = []
    init() {}
}

/// `import` reads back the relationships `export` writes: to-one keys and link lists, by the
/// file's `_id`s.
@Suite struct RelationshipImportTests {
    /// Shelves A and B; volumes Dune (A; sf, classic), Emma (B; classic) and Loose (none);
    /// tags sf and classic. A tag and a shelf deleted first leave gaps in the keys.
    func library(at path: String) throws {
        let container = try ModelContainer(
            for: [Shelf.self, Volume.self, ShelfTag.self], at: URL(filePath: path))
        let context = ModelContext(container)
        let gone = ShelfTag()
        let goneShelf = Shelf()
        context.insert(gone)
        context.insert(goneShelf)
        try context.save()
        context.delete(gone)
        context.delete(goneShelf)
        try context.save()
        func shelf(_ name: String) -> Shelf {
            let shelf = Shelf()
            shelf.name = name
            context.insert(shelf)
            return shelf
        }
        func tag(_ label: String) -> ShelfTag {
            let tag = ShelfTag()
            tag.label = label
            context.insert(tag)
            return tag
        }
        let a = shelf("A")
        let b = shelf("B")
        let sf = tag("sf")
        let classic = tag("classic")
        for (title, shelf, tags) in [
            ("Dune", Optional(a), [sf, classic]), ("Emma", b, [classic]), ("Loose", nil, []),
        ] {
            let volume = Volume()
            volume.title = title
            context.insert(volume)
            volume.shelf = shelf
            volume.tags = tags
        }
        try context.save()
        try container.close()
    }

    /// Each volume's title, shelf and tags, as the classes read them.
    func shelving(at path: String) throws -> [String] {
        let container = try ModelContainer(
            for: [Shelf.self, Volume.self, ShelfTag.self], at: URL(filePath: path))
        defer { try? container.close() }
        let context = ModelContext(container)
        return try context.fetch(FetchDescriptor<Volume>()).map {
            "\($0.title) on \($0.shelf?.name ?? "-"): \($0.tags.map(\.label).sorted())"
        }.sorted()
    }

    @Test func anExportImportsBackWithItsRelationshipsAndKeys() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("source")
        let copy = dir.child("copy")
        try library(at: source)
        let export = try CLI.run(["export", source])
        #expect(export.status == 0)
        #expect(export.stdout.contains("\"shelf\":"), "\(export.stdout)")
        writeFile(dir.child("objects.jsonl"), b(export.stdout))
        let result = try CLI.run(["import", copy, dir.child("objects.jsonl")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CLI.run(["export", copy]).stdout == export.stdout)
        #expect(try CLI.run(["verify", copy]).status == 0)
        let expected = [
            "Dune on A: [\"classic\", \"sf\"]", "Emma on B: [\"classic\"]", "Loose on -: []",
        ]
        let before = try shelving(at: source)
        #expect(before == expected)
        let after = try shelving(at: copy)
        #expect(after == expected)
    }

    @Test func aSecondImportLinksItsOwnObjects() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("source")
        try library(at: source)
        writeFile(dir.child("objects.jsonl"), b(try CLI.run(["export", source]).stdout))
        // Into the store it came from: the file's objects are new ones, linked to each other.
        let result = try CLI.run(["import", source, dir.child("objects.jsonl")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CLI.run(["verify", source]).status == 0)
        let twice = try shelving(at: source)
        #expect(twice.count == 6)
        #expect(Set(twice).count == 3)
        let container = try ModelContainer(
            for: [Shelf.self, Volume.self, ShelfTag.self], at: URL(filePath: source))
        defer { try? container.close() }
        let context = ModelContext(container)
        let shelves = try context.fetch(FetchDescriptor<Shelf>())
        #expect(shelves.map { $0.volumes.count }.sorted() == [1, 1, 1, 1])
        let tags = try context.fetch(FetchDescriptor<ShelfTag>())
        #expect(tags.map { $0.volumes.count }.sorted() == [1, 1, 2, 2])
    }

    @Test(arguments: [
        (
            "{\"_entity\":\"Shelf\",\"_id\":1,\"name\":\"A\"}\n"
                + "{\"_entity\":\"Volume\",\"_id\":1,\"title\":\"X\",\"shelf\":2}\n",
            "objects.jsonl:2: Volume.shelf names key 2, and no object of the Shelf hierarchy"
        ),
        (
            "{\"_entity\":\"Shelf\",\"_id\":1,\"name\":\"A\"}\n"
                + "{\"_entity\":\"Shelf\",\"_id\":1,\"name\":\"B\"}\n",
            "objects.jsonl:2: Shelf 1 is an object of the file already"
        ),
        (
            // Keys out of order, then one repeated that is not the last.
            "{\"_entity\":\"Shelf\",\"_id\":3,\"name\":\"A\"}\n"
                + "{\"_entity\":\"Shelf\",\"_id\":1,\"name\":\"B\"}\n"
                + "{\"_entity\":\"Shelf\",\"_id\":3,\"name\":\"C\"}\n",
            "objects.jsonl:3: Shelf 3 is an object of the file already"
        ),
        (
            // Keys in order, a reference to one between them.
            "{\"_entity\":\"Shelf\",\"_id\":1,\"name\":\"A\"}\n"
                + "{\"_entity\":\"Shelf\",\"_id\":3,\"name\":\"B\"}\n"
                + "{\"_entity\":\"Volume\",\"_id\":1,\"title\":\"X\",\"shelf\":3}\n"
                + "{\"_entity\":\"Volume\",\"_id\":2,\"title\":\"Y\",\"shelf\":2}\n",
            "objects.jsonl:4: Volume.shelf names key 2, and no object of the Shelf hierarchy"
        ),
        (
            "{\"_entity\":\"Volume\",\"_id\":1,\"title\":\"X\"}\n"
                + "{\"_entity\":\"ShelfTag\",\"_id\":1,\"label\":\"t\",\"volumes\":\"0001\"}\n",
            "objects.jsonl:2: ShelfTag.volumes holds the string \"0001\", not a link list"
        ),
    ])
    func badReferencesAreRefusedByLineAndNothingIsImported(input: String, message: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try library(at: path)
        let before = try CLI.run(["export", path]).stdout
        writeFile(dir.child("objects.jsonl"), b(input))
        let result = try CLI.run(["import", path, dir.child("objects.jsonl")])
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try CLI.run(["export", path]).stdout == before)
    }
}
