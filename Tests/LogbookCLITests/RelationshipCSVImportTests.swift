import Foundation
import Logbook
import TestSupport
import Testing

/// CSV, one entity a file, reads back the relationships `export --format csv` writes: the
/// `id` column keeps keys, and a reference to another entity names an object in the store.
extension RelationshipImportTests {
    /// The store at `path`, holding `source`'s schema and no object (from the schema line of
    /// its JSON Lines export).
    private func emptyCopy(of source: String, at path: String, in dir: TemporaryDirectory)
        throws
    {
        let export = try CLI.run(["export", source])
        let schema = try #require(export.stdout.split(separator: "\n").first)
        #expect(schema.hasPrefix("{\"_schema\""))
        writeFile(dir.child("schema.jsonl"), b(String(schema) + "\n"))
        let result = try CLI.run(["import", path, dir.child("schema.jsonl")])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func csvFilesImportBackWithTheirRelationshipsAndKeys() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("source")
        let copy = dir.child("copy")
        try library(at: source)
        let csv = dir.child("csv")
        let export = try CLI.run(["export", source, "--format", "csv", "--output", csv])
        #expect(export.status == 0, "\(export.stderr)")
        let volumes = String(decoding: readFile(csv + "/Volume.csv"), as: UTF8.self)
        #expect(volumes.hasPrefix("id,title,shelf"), "\(volumes)")
        try emptyCopy(of: source, at: copy, in: dir)
        // Destinations first: volumes name shelves, tags store links to volumes.
        for entity in ["Shelf", "Volume", "ShelfTag"] {
            let result = try CLI.run(["import", copy, csv + "/\(entity).csv", "--entity", entity])
            #expect(result.status == 0, "\(entity): \(result.stderr)")
        }
        #expect(try CLI.run(["export", copy]).stdout == CLI.run(["export", source]).stdout)
        #expect(try CLI.run(["verify", copy]).status == 0)
        #expect(
            try shelving(at: copy) == [
                "Dune on A: [\"classic\", \"sf\"]", "Emma on B: [\"classic\"]", "Loose on -: []",
            ])
    }

    @Test(arguments: [
        // Volumes before shelves: the shelves they name are not in the store yet.
        (
            "id,title,shelf\n1,Dune,4\n", "Volume",
            "Volume.shelf names Shelf 4, which the store does not hold"
        ),
        ("id,title,shelf\n1,Dune,x\n", "Volume", "Volume.shelf holds a key, not \"x\""),
        ("id,label,volumes\n1,sf,0001\n", "ShelfTag", "ShelfTag.volumes holds a link list"),
        ("id,title,pages\n1,Dune\n", "Volume", "no attribute or stored relationship \"pages\""),
        ("id,title\n0,Dune\n", "Volume", "id holds \"0\", not a key of 1 or more"),
    ])
    func badCSVReferencesAreRefusedByLine(input: String, entity: String, message: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("source")
        let copy = dir.child("copy")
        try library(at: source)
        try emptyCopy(of: source, at: copy, in: dir)
        writeFile(dir.child("in.csv"), b(input))
        let result = try CLI.run(["import", copy, dir.child("in.csv"), "--entity", entity])
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was imported"), "\(result.stderr)")
        let left = try CLI.run(["export", copy]).stdout
        #expect(left.split(separator: "\n").count == 1, "\(left)")
    }
}
