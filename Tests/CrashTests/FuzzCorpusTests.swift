import Foundation
import LogStore
import TestSupport
import Testing

/// Replays the committed fuzz corpus (Tests/Fuzz/corpus) on every `swift test`: every input that
/// libFuzzer found interesting, or that once crashed, must give typed errors or answers.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/open").path

    @Test func openTargetCorpusReplaysWithoutCrashing() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
        #expect(names.count >= 5)
        let scratch = ScratchDirectory("fuzz")
        defer { scratch.remove() }
        for name in names {
            let input = readFile(Self.corpus + "/" + name)
            for error in fuzzOpenStore(input, in: scratch.child("store")) {
                #expect(error is LogStoreError, "\(name): \(error)")
            }
        }
    }
}
