import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

@Suite struct CompactTests {
    @Test func compactionKeepsTheLiveStateAndShrinksTheStore() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.manySegments(at: path, commits: 40)
        let liveBefore = try CLI.run(["dump", path, "--live", "--format", "jsonl"])
        let sizeBefore = segmentFiles(path).reduce(0) { $0 + readFile($1).count }
        let result = try CLI.run(["compact", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("compacted "))
        #expect(result.stdout.contains("reclaimed"))
        let sizeAfter = segmentFiles(path).reduce(0) { $0 + readFile($1).count }
        #expect(sizeAfter < sizeBefore)
        let verify = try CLI.run(["verify", path])
        #expect(verify.status == 0, "\(verify.stdout)")
        let liveAfter = try CLI.run(["dump", path, "--live", "--format", "jsonl"])
        let values = { (text: String) in
            Set(
                text.split(separator: "\n").compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
                }.map { "\($0["key"] ?? "")=\($0["value"] ?? "")" })
        }
        #expect(values(liveBefore.stdout) == values(liveAfter.stdout))
        #expect(values(liveAfter.stdout).count == 4)
    }

    @Test func lockedStoreIsRefusedWithOneLine() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path)
        let writer = try Stores.openStore(path)
        defer { try? writer.close() }
        let result = try CLI.run(["compact", path])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "logbook: the store at \(path) is open for writing by another process; "
                + "close it there first\n")
    }
}

/// `logbook compact` writes object records of older schema versions in the newest one, as an
/// app's compaction does, without the app's model (issue 38).
@Suite struct CompactUpgradeTests {
    static let old = Schema([
        Entity(
            name: "Employee",
            attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("level", .int32),
            ])
    ])
    static let new = Schema([
        Entity(
            name: "Employee",
            attributes: [
                AttributeDescription("fullName", .string, originalName: "name"),
                AttributeDescription("level", .integer),
                AttributeDescription("note", .string, defaultValue: .string("-")),
            ])
    ])

    /// The schema version each Employee record starts with (a one-byte varint here).
    static func schemaVersions(_ path: String) throws -> Set<UInt8> {
        let store = try LogStore(path: path)
        defer { try? store.close() }
        var versions: Set<UInt8> = []
        try store.forEach(in: "Employee") { _, value in versions.insert(value[0]) }
        return versions
    }

    /// The live Employees as `logbook dump` shows them: id, object version and values.
    static func objects(_ path: String) throws -> Set<String> {
        let dump = try CLI.run([
            "dump", path, "--live", "--entity", "Employee", "--format", "jsonl",
        ])
        return Set(
            dump.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }.map { line in
                let object = (line["object"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }
                return "\(line["id"] ?? "")@\(line["version"] ?? ""): "
                    + object.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            })
    }

    @Test func compactWritesOlderRecordsInTheNewestSchemaVersion() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let url = URL(fileURLWithPath: path)
        let first = try ModelContainer(schema: Self.old, at: url)
        let context = ModelContext(first)
        for i in 0..<50 {
            try context.insert(
                entity: "Employee", values: ["name": "E\(i)", "level": Int32(i % 5)])
        }
        try context.save()
        try first.close()
        // A lightweight change: version 2 is stored, no record is rewritten.
        try ModelContainer(schema: Self.new, at: url).close()
        #expect(try Self.schemaVersions(path) == [1])
        let before = try Self.objects(path)
        #expect(before.count == 50)

        let result = try CLI.run(["compact", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.schemaVersions(path) == [2], "a record of version 1 remains")
        #expect(try Self.objects(path) == before)
        #expect(try CLI.run(["verify", path]).status == 0)
        let reopened = try ModelContainer(schema: Self.new, at: url)
        defer { try? reopened.close() }
        let rows = try ModelContext(reopened).fetch(entity: "Employee", where: "level == 3")
        #expect(rows.count == 10)
        #expect(try rows.allSatisfy { try $0.value(forKey: "note") as? String == "-" })
    }
}
