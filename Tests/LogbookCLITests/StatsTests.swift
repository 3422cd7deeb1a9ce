import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct StatsTests {
    @Test func textStatsOfARawStore() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let result = try CLI.run(["stats", path])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                segments             1
                hint files           1
                file bytes           196 B
                live bytes           15 B
                dead bytes           181 B
                space amplification  13.07x
                last sequence        3
                schema version       none (no Logbook schema)

                KEYSPACE  KEYS  LIVE BYTES
                blobs        1           3
                people       1           4

                """)
    }

    @Test func jsonStatsParse() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.manySegments(at: path)
        let result = try CLI.run(["stats", path, "--format", "json"])
        #expect(result.status == 0)
        let stats = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(stats["segments"] as? Int ?? 0 > 1)
        #expect(stats["lastSequence"] as? Int == 6)
        #expect(stats["schemaVersion"] is NSNull)
        let keyspaces = try #require(stats["keyspaces"] as? [[String: Any]])
        #expect(keyspaces.count == 1)
        #expect(keyspaces[0]["keys"] as? Int == 4)
    }

    @Test func damagedStoreStatsFailWithOneLine() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.manySegments(at: path)
        let segment = segmentFiles(path)[0]
        var bytes = readFile(segment)
        bytes[30] ^= 0xFF
        writeFile(segment, bytes)
        let result = try CLI.run(["stats", path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("logbook: corrupt store file \(segment) at offset 24"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func statsListEachIndexWithItsEntriesAndMemory() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let text = try CLI.run(["stats", path])
        #expect(text.status == 0)
        #expect(text.stderr == "")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("INDEX") })
        #expect(lines[header].split(separator: " ") == ["INDEX", "ENTRIES", "MEMORY"])
        let row = lines[header + 1].split(separator: " ", omittingEmptySubsequences: true)
        #expect(row.prefix(2) == ["Employee(designation)", "2"])
        let json = try CLI.run(["stats", path, "--format", "json"])
        let stats = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let indexes = try #require(stats["indexes"] as? [[String: Any]])
        #expect(indexes.count == 1)
        #expect(indexes[0]["entity"] as? String == "Employee")
        #expect(indexes[0]["fields"] as? [String] == ["designation"])
        #expect(indexes[0]["unique"] as? Bool == false)
        #expect(indexes[0]["entries"] as? Int == 2)
        #expect(indexes[0]["memoryBytes"] as? Int ?? 0 > 0)
        // Without its sidecar the figures are unknown until the store is opened.
        try FileManager.default.removeItem(atPath: path + "/logbook-indexes.sidecar")
        let stale = try CLI.run(["stats", path])
        #expect(stale.status == 0)
        #expect(stale.stdout.contains("indexes: no current index sidecar"))
        #expect(!stale.stdout.contains("INDEX "))
    }
}
