import Foundation
import Logbook
import TestSupport
import Testing

/// Replays the committed corpus of the `predicates` fuzz target (Tests/Fuzz/corpus/predicates)
/// on every `swift test`: string predicates fetched from an indexed and an unindexed store,
/// which must agree.
@Suite struct FuzzPredicatesCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/predicates").path

    @Test func predicatesTargetCorpusReplaysWithoutCrashing() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
        #expect(names.count >= 20)
        let stores = try FuzzPredicateStores()
        for name in names {
            for problem in fuzzPredicates(readFile(Self.corpus + "/" + name), stores: stores) {
                Issue.record("\(name): \(problem)")
            }
        }
    }

    /// The check can fail: a predicate the two stores answer differently is reported.
    @Test func theStoresAreCompared() throws {
        let stores = try FuzzPredicateStores()
        _ = try stores.plain.insert(
            entity: "Employee",
            values: ["name": "Extra", "salary": 1, "score": 1.0, "active": true])
        try stores.plain.save()
        #expect(!fuzzPredicates(Array("\u{0}name == 'Extra'".utf8), stores: stores).isEmpty)
    }
}
