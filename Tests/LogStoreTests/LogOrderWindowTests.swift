import Foundation
import TestSupport
import Testing

@testable import LogStore

/// A walk in log order sorts its references a window of the log at a time, so that its scratch
/// is bounded whatever the number of keys: whatever the window, it gives every live record
/// once, in log order, with the value the model holds.
@Suite struct LogOrderWindowTests {
    @Test func everyWindowGivesTheLiveRecordsOnceInLogOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 64 << 10
        options.autoCompactionDeadFraction = nil
        let seed = testSeed("everyWindowGivesTheLiveRecordsOnceInLogOrder")
        var rng = SeededGenerator(seed: seed)
        var model: [String: [UInt8]] = [:]
        let store = try LogStore(path: dir.path, options: options)
        defer { try? store.close() }
        // Puts, then updates and deletes of keys picked at random: live records in every
        // segment, in another order than the keys'.
        for round in 0..<3 {
            for _ in 0..<(round == 0 ? 5000 : 1500) {
                let key = "k\(Int.random(in: 0..<5000, using: &rng))"
                if round == 2 && Bool.random(using: &rng) {
                    try store.delete(Array(key.utf8), in: "a", durability: .buffered)
                    model[key] = nil
                } else {
                    let value = (0..<Int.random(in: 1...40, using: &rng)).map {
                        UInt8(truncatingIfNeeded: $0 &+ round)
                    }
                    try store.put(value, for: Array(key.utf8), in: "a", durability: .buffered)
                    model[key] = value
                }
            }
        }
        let (directory, bases, segments) = store.index.withLock { state in
            let id = state.keyspaces.id(of: "a")!
            return (state.directories[id], state.bases, state.segments)
        }
        #expect(segments.count > 3, "seed \(seed)")

        func walk(_ window: Int) throws -> [(UInt64, String, [UInt8])] {
            var seen: [(UInt64, String, [UInt8])] = []
            try withExtendedLifetime(segments) {
                try directory.forEachInLogOrder(bases, releasingPagesOf: segments, window: window) {
                    ref, record in
                    seen.append(
                        (
                            UInt64(ref.segment) << 32 | UInt64(ref.offset),
                            String(decoding: record.key, as: UTF8.self), Array(record.value)
                        ))
                }
            }
            return seen
        }
        let whole = try walk(Int.max)
        #expect(whole.count == model.count, "seed \(seed)")
        #expect(zip(whole, whole.dropFirst()).allSatisfy { $0.0 < $1.0 }, "seed \(seed)")
        #expect(whole.allSatisfy { model[$0.1] == $0.2 }, "seed \(seed)")
        // A window of one or two records is a pass over the whole table per record (1.2 s and
        // 0.6 s of the suite's 1.6 in a debug build): the long tier's.
        for window in TestTier.pick(quick: [7, 100, 1000], long: [1, 2, 7, 100, 1000]) {
            let windowed = try walk(window)
            #expect(windowed.map(\.0) == whole.map(\.0), "seed \(seed), window \(window)")
            #expect(windowed.map(\.1) == whole.map(\.1), "seed \(seed), window \(window)")
        }
    }
}
