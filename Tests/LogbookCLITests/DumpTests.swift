import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct DumpTests {
    @Test func textDumpOfRawRecordsIsAlignedAndInLogOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let result = try CLI.run(["dump", path])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                SEGMENT               OFFSET  SEQ  TYPE             KEYSPACE  KEY   VALUE
                0000000000010000.seg      41    1  define-keyspace  people
                0000000000010000.seg      50    1  put              people    "e1"  "Ann"
                0000000000010000.seg      59    1  put              people    "e2"  "Bo"
                0000000000010000.seg     109    2  delete           people    "e1"
                0000000000010000.seg     156    3  define-keyspace  blobs
                0000000000010000.seg     164    3  put              blobs     "k"   0x00ff

                """)
    }
}

extension DumpTests {
    @Test func jsonLinesDumpGivesOneObjectPerRecord() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let result = try CLI.run(["dump", path, "--format", "jsonl"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(
            lines[1]
                == #"{"segment":"0000000000010000.seg","frameOffset":24,"offset":50,"sequence":1,"type":"put","keyspace":"people","keyHex":"6531","key":"e1","valueHex":"416e6e","value":"Ann"}"#
        )
        #expect(
            lines[5]
                == #"{"segment":"0000000000010000.seg","frameOffset":139,"offset":164,"sequence":3,"type":"put","keyspace":"blobs","keyHex":"6b","key":"k","valueHex":"00ff","value":null}"#
        )
    }

    @Test func jsonDumpIsOneArray() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path)
        let result = try CLI.run(["dump", path, "--format=json", "--limit", "2"])
        #expect(result.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let records = try #require(parsed as? [[String: Any]])
        #expect(records.count == 2)
        #expect(records[1]["value"] as? String == "Ann")
        #expect(records[1]["sequence"] as? Int == 1)
    }

    @Test func emptyStoreDumpsAnEmptyArray() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.openStore(path).close()
        let result = try CLI.run(["dump", path, "--format", "json"])
        #expect(result.status == 0)
        #expect(result.stdout == "[]\n")
    }

    @Test func liveDumpShowsOnlyCurrentValues() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let store = try Stores.openStore(path)
        try store.put(b("Bob"), for: b("e2"), in: "people")
        try store.close()
        let result = try CLI.run(["dump", path, "--live", "--format", "jsonl"])
        #expect(result.status == 0)
        let values = result.stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["valueHex"]
                as? String
        }
        #expect(values == ["00ff", Formatting.hex(b("Bob"))])
    }

    @Test func entityOptionKeepsOneKeyspace() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let result = try CLI.run(["dump", path, "--entity", "blobs"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                SEGMENT               OFFSET  SEQ  TYPE  KEYSPACE  KEY  VALUE
                0000000000010000.seg     164    3  put   blobs     "k"  0x00ff

                """)
        let unknown = try CLI.run(["dump", path, "--entity", "nope"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no entity or keyspace named \"nope\""))
    }

    @Test func damagedStoreDumpsWhatIsReadableAndWarns() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let segment = segmentFiles(path)[0]
        var bytes = readFile(segment)
        bytes[52] ^= 0x40  // inside the first commit's first put
        writeFile(segment, bytes)
        let result = try CLI.run(["dump", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("skipped damage: \(segment) at offset 24"))
        // The damaged commit defined keyspace 1: the later commits that use it break the keyspace
        // rules, so they are damage too (LogInspector.verify's rules, which salvage mode applies).
        #expect(result.stderr.contains("record uses keyspace 1, which is not defined before it"))
        #expect(!result.stdout.contains("\"Ann\""))
    }
}

/// Hex of bytes, as the tool writes it.
enum Formatting {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

extension DumpTests {
    /// `--live` asks the store's index which records are current: a store that does not open
    /// (here its one segment is a directory) has none, and `--live` says so instead of showing
    /// every put.
    @Test func liveDumpOfAStoreThatDoesNotOpenIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try FileManager.default.createDirectory(
            atPath: path + "/0000000000010000.seg", withIntermediateDirectories: true)
        writeFile(path + "/LOCK", [])
        let live = try CLI.run(["dump", path, "--live"])
        #expect(live.status == 1)
        #expect(
            live.stderr.hasPrefix(
                "logbook: --live needs the store's index, and the store does not open"))
        #expect(live.stdout == "")
        let all = try CLI.run(["dump", path])
        #expect(all.stderr.contains("the store does not open"))
    }
}
