import Foundation
import LogStore
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
