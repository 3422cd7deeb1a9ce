import Foundation
import Logbook
import TestSupport
import Testing

/// Replays the committed corpus of the `objects` fuzz target (Tests/Fuzz/corpus/objects) on every
/// `swift test`: string predicates and record values that libFuzzer found interesting.
@Suite struct FuzzObjectsCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/objects").path

    @Test func objectsTargetCorpusReplaysWithoutCrashing() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
        #expect(names.count >= 20)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let decoder = try fuzzObjectsDecoder(at: dir.child("store"))
        for name in names {
            for error in fuzzObjects(readFile(Self.corpus + "/" + name), decoder: decoder) {
                Issue.record("\(name): \(error)")
            }
        }
    }
}
