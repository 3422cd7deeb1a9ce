import Foundation
import TestSupport
import Testing

@testable import Logbook

/// ``SortedRuns``: an index built from entries handed over in runs holds exactly the entries a
/// single sort of all of them gives, in the same order, however the runs are cut.
@Suite struct SortedRunsTests {
    /// An entry as the index makes one: a short field (many alike, some sharing long prefixes),
    /// then an 8-byte primary key.
    static func entry(_ pk: UInt64, using rng: inout SeededGenerator) -> [UInt8] {
        let field = Array(
            "Software \(["Engineer", "Architect", "E"].randomElement(using: &rng)!)\(Int.random(in: 0..<9, using: &rng))"
                .utf8)
        let length = Int.random(in: 0...field.count, using: &rng)
        return Array(field[..<length]) + withUnsafeBytes(of: pk.bigEndian) { Array($0) }
    }

    static func entries(of index: OrderedIndex) -> [[UInt8]] {
        var all: [[UInt8]] = []
        index.forEach(from: index.start, to: index.end) { entry in
            all.append(Array(entry))
            return true
        }
        return all
    }

    @Test(arguments: [0, 1, 2, 7, 40])
    func runsMergeIntoWhatOneSortGives(runs: Int) throws {
        var rng = SeededGenerator(seed: testSeed("sorted runs \(runs)"))
        var sortedRuns = SortedRuns()
        var all = IndexEntries()
        var pk: UInt64 = 0
        for _ in 0..<runs {
            var list = IndexEntries()
            for _ in 0..<Int.random(in: 0..<3_000, using: &rng) {
                pk += UInt64.random(in: 1...3, using: &rng)
                let entry = Self.entry(pk, using: &rng)
                entry.withUnsafeBytes { list.append($0) }
                entry.withUnsafeBytes { all.append($0) }
            }
            sortedRuns.add(&list)
            #expect(list.isEmpty)
        }
        let merged = sortedRuns.finish()
        let expected = OrderedIndex(sorted: all.sorted())
        #expect(merged.count == all.count)
        let found = Self.entries(of: merged)
        #expect(found == Self.entries(of: expected))
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
        // The merged index finds what it holds.
        for entry in found.prefix(50) {
            let position = entry.withUnsafeBytes { merged.lowerBound($0) }
            #expect(position != merged.end)
        }
    }
}
