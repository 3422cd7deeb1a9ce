import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// An ``OrderedIndex`` read from a snapshot (chunks of about 16 KiB, 30 of them here) makes each
/// chunk when first used: inserts that split a chunk, removals that empty or join chunks while
/// the chunks after them are not made yet, and lookups, inserts and removals mixed, give what
/// the same changes give to a set of the entries.
@Suite struct LoadedIndexTests {
    static let definition = IndexDefinition(
        entity: 0, entityName: "Staff", fields: [0], names: ["role"], types: [.string],
        shapes: [.scalar(.string)], isUnique: false)

    /// An entry as the index makes one: a field's bytes (a tag, then a string), then the
    /// primary key.
    static func entry(_ pk: UInt64, tag: UInt8 = 1, using rng: inout SeededGenerator) -> [UInt8] {
        [tag] + SortedRunsTests.entry(pk, using: &rng)
    }

    static func ordered(_ entries: Set<[UInt8]>) -> [[UInt8]] {
        entries.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Calls `body` with an index of `entries` loaded from a snapshot.
    static func withLoaded(_ entries: Set<[UInt8]>, _ body: (OrderedIndex) throws -> Void) throws {
        var sorted = IndexEntries()
        for entry in ordered(entries) { entry.withUnsafeBytes { sorted.append($0) } }
        try SortedRunsTests.withScratch { store, _ in
            // The snapshot is used for a keyspace of as many records as it has entries.
            var batch = WriteBatch()
            for key in 0..<UInt64(entries.count) {
                batch.put([1], for: withUnsafeBytes(of: key.bigEndian) { Array($0) }, in: "Staff")
            }
            _ = try store.commit(batch)
            let bytes = try IndexSnapshot.encode(
                definitions: [[definition]], indexes: [[OrderedIndex(sorted: sorted)]],
                maxStoredKeys: [UInt64(entries.count)], schemaVersion: 1)
            try store.writeSidecar(
                named: IndexSnapshot.sidecarName, contents: bytes, sequence: store.lastSequence)
            let loaded = IndexSnapshot.load(
                from: store, definitions: [[definition]], schemaVersion: 1)
            let index = try #require(loaded.indexes[0]?[0])
            try body(index)
            #expect(loaded.checks[0]?.problem == nil)
        }
    }

    static func expect(_ index: OrderedIndex, holds model: Set<[UInt8]>) {
        #expect(index.count == model.count)
        #expect(SortedRunsTests.entries(of: index) == ordered(model))
    }

    static func model(using rng: inout SeededGenerator) -> Set<[UInt8]> {
        var model = Set<[UInt8]>()
        while model.count < 16_000 { model.insert(entry(UInt64(model.count), using: &rng)) }
        return model
    }

    @Test func insertsThatSplitTheFirstChunkKeepTheOthers() throws {
        var rng = SeededGenerator(seed: testSeed("loaded index split"))
        var model = Self.model(using: &rng)
        try Self.withLoaded(model) { index in
            for pk in 0..<UInt64(400) {
                let entry = Self.entry(pk, tag: 0, using: &rng)
                entry.withUnsafeBytes { #expect(index.insert($0) == model.insert(entry).inserted) }
            }
            Self.expect(index, holds: model)
        }
    }

    /// Removals of the 3,000 smallest entries: all of them in order (chunks emptied), or from
    /// the back all but every 40th (a chunk thinned out meets a thinned-out next one: joined).
    @Test(arguments: [false, true])
    func removalsThatEmptyOrJoinChunksKeepTheOthers(joining: Bool) throws {
        var rng = SeededGenerator(
            seed: testSeed(joining ? "loaded index joins" : "loaded index removals"))
        var model = Self.model(using: &rng)
        try Self.withLoaded(model) { index in
            let smallest = Array(Self.ordered(model).prefix(3_000).enumerated())
            for (i, entry) in joining ? smallest.reversed() : smallest
            where !joining || i % 40 != 0 {
                entry.withUnsafeBytes { #expect(index.remove($0)) }
                model.remove(entry)
            }
            Self.expect(index, holds: model)
        }
    }

    @Test func mixedChangesHoldWhatASetWould() throws {
        var rng = SeededGenerator(seed: testSeed("loaded index mixed"))
        var model = Self.model(using: &rng)
        try Self.withLoaded(model) { index in
            for step in 0..<12_000 {
                let entry =
                    Bool.random(using: &rng)
                    ? model.randomElement(using: &rng)!
                    : Self.entry(UInt64.random(in: 0..<40_000, using: &rng), using: &rng)
                entry.withUnsafeBytes { raw in
                    switch step % 3 {
                    case 0: #expect(index.contains(raw) == model.contains(entry))
                    case 1: #expect(index.insert(raw) == model.insert(entry).inserted)
                    default: #expect(index.remove(raw) == (model.remove(entry) != nil))
                    }
                }
            }
            Self.expect(index, holds: model)
        }
    }
}
