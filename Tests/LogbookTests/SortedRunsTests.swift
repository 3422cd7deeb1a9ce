import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// ``SortedRuns``: an index built from entries handed over in runs holds exactly the entries a
/// single sort of all of them gives, in the same order, however the runs are cut and whether
/// they are kept in memory or spilled to a scratch file; and a snapshot streamed from the runs
/// into a sidecar holds the bytes of the snapshot of the index they give.
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

    /// Entries a run may hold: several 4 KiB chunks of them in the default tier, more in the
    /// long one.
    static let maxRunEntries = TestTier.pick(quick: 1_000, long: 3_000)

    /// Runs of up to ``maxRunEntries`` random entries each (some runs empty) handed to each of
    /// `sortedRuns` alike, and all the entries.
    static func gathered(
        runs: Int, into sortedRuns: inout [SortedRuns], using rng: inout SeededGenerator
    ) throws -> IndexEntries {
        var all = IndexEntries()
        var pk: UInt64 = 0
        for _ in 0..<runs {
            var list = IndexEntries()
            for _ in 0..<Int.random(in: 0..<Self.maxRunEntries, using: &rng) {
                pk += UInt64.random(in: 1...3, using: &rng)
                let entry = Self.entry(pk, using: &rng)
                entry.withUnsafeBytes { list.append($0) }
                entry.withUnsafeBytes { all.append($0) }
            }
            for i in sortedRuns.indices {
                var copy = list
                try sortedRuns[i].add(&copy)
                #expect(copy.isEmpty)
            }
        }
        return all
    }

    /// Runs `body` with a scratch file of a new store.
    static func withScratch(_ body: (LogStore, ScratchFile) throws -> Void) throws {
        let directory = TemporaryDirectory("sorted-runs")
        defer { directory.remove() }
        let store = try LogStore(path: directory.child("store"))
        defer { try? store.close() }
        try store.withScratchFile { try body(store, $0) }
    }

    @Test(arguments: [0, 1, 2, 7, 40], [false, true])
    func runsMergeIntoWhatOneSortGives(runs: Int, spilled: Bool) throws {
        var rng = SeededGenerator(seed: testSeed("sorted runs \(runs)"))
        func check(_ scratch: ScratchFile?) throws {
            var sortedRuns = [SortedRuns(spillingTo: scratch)]
            let all = try Self.gathered(runs: runs, into: &sortedRuns, using: &rng)
            let merged = try sortedRuns[0].finish()
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
        if spilled { try Self.withScratch { try check($1) } } else { try check(nil) }
    }

    /// The snapshot an open that builds an index streams into the sidecar (its runs spilled,
    /// merged straight into the file, beside an index already in memory) holds the bytes of
    /// the snapshot of the same indexes built in memory from the same runs
    /// (``IndexSnapshot/encode(definitions:indexes:maxStoredKeys:schemaVersion:)`` of
    /// ``SortedRuns/finish()``: what a close writes after an open that builds in memory).
    @Test(arguments: [0, 1, 2, 7, 40])
    func aSnapshotStreamedFromRunsHasTheBytesOfTheIndexInMemory(runs: Int) throws {
        var rng = SeededGenerator(seed: testSeed("streamed snapshot \(runs)"))
        let definitions = ["role", "grade"].map { name in
            IndexDefinition(
                entity: 0, entityName: "Staff", fields: [name == "role" ? 0 : 1], names: [name],
                types: [.string], shapes: [.scalar(.string)], isUnique: false)
        }
        var other = [SortedRuns()]
        _ = try Self.gathered(runs: 3, into: &other, using: &rng)
        let resident = try other[0].finish()
        try Self.withScratch { store, scratch in
            var sortedRuns = [SortedRuns(spillingTo: scratch), SortedRuns()]
            let all = try Self.gathered(runs: runs, into: &sortedRuns, using: &rng)
            let expected = try IndexSnapshot.encode(
                definitions: [definitions], indexes: [[try sortedRuns[1].finish(), resident]],
                maxStoredKeys: [UInt64(all.count)], schemaVersion: 3)
            var spilled = sortedRuns[0]
            try store.writeSidecar(named: "streamed", sequence: store.lastSequence) { output in
                var sink = SidecarSink(output: output)
                return try IndexSnapshot.write(
                    definitions: [definitions],
                    sources: [
                        [
                            SnapshotIndexSource { try spilled.merge($0) },
                            SnapshotIndexSource(resident),
                        ]
                    ], maxStoredKeys: [UInt64(all.count)], schemaVersion: 3, to: &sink)
            }
            let written = try #require(try store.readSidecar(named: "streamed"))
            #expect(written.contents.count == expected.count)
            #expect(written.contents.elementsEqual(expected))
        }
    }
}
