import Foundation
import TestSupport
import Testing

@testable import LogStore

/// A view's reads of many keys at once (what the object layer's index fetches use): every key
/// answered as a read of that key alone answers it, whatever the order, repeats and missing
/// keys, and over several segments and table sizes (the reads of the keys ahead are started
/// early, from the same table).
@Suite struct ViewBatchReadTests {
    private static func encode(_ key: UInt64) -> [UInt8] {
        withUnsafeBytes(of: key.bigEndian) { Array($0) }
    }

    /// A store whose keyspace `a` holds the keys 0..<`count` (some deleted, some overwritten)
    /// across several segments; returns its contents.
    private func makeStore(_ path: String, count: Int) throws -> (LogStore, [UInt64: [UInt8]]) {
        var options = LogStoreOptions()
        options.segmentSize = 1 << 16
        let store = try LogStore(path: path, options: options)
        var model: [UInt64: [UInt8]] = [:]
        var rng = SystemRandomNumberGenerator()
        for round in 0..<3 {
            var batch = WriteBatch()
            for key in UInt64(0)..<UInt64(count) where round == 0 || key % UInt64(3 + round) == 0 {
                let value = (0..<Int.random(in: 0...200, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                }
                batch.put(value, for: Self.encode(key), in: "a")
                model[key] = value
            }
            for key in UInt64(0)..<UInt64(count) where key % 7 == UInt64(round) {
                batch.delete(Self.encode(key), in: "a")
                model[key] = nil
            }
            _ = try store.commit(batch)
        }
        return (store, model)
    }

    @Test(arguments: [0, 1, 5, 9, 17, 2_000])
    func readsInOrderAnswerEveryKeyAsAGetDoes(count: Int) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (store, model) = try makeStore(dir.child("s"), count: count)
        defer { try? store.close() }
        var rng = SystemRandomNumberGenerator()
        // Present and missing keys, shuffled, with repeats.
        var keys = (0..<(count * 2 + 3)).map { _ in
            UInt64.random(in: 0...UInt64(count + 5), using: &rng)
        }
        keys.shuffle(using: &rng)
        var seen: [(UInt64, [UInt8]?)] = []
        try store.view(of: "a").forEachValue(inOrderOf: keys) { key, encoded, value in
            #expect(Array(encoded) == Self.encode(key))
            seen.append((key, value.map { Array($0) }))
            return true
        }
        #expect(seen.map(\.0) == keys)
        for (key, value) in seen { #expect(value == model[key], "key \(key)") }

        var unordered: [UInt64: [UInt8]] = [:]
        var visits = 0
        try store.view(of: "a").forEachValue(forKeys: keys) { key, value in
            unordered[UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))] = Array(value)
            visits += 1
        }
        #expect(visits == keys.filter { model[$0] != nil }.count)
        #expect(unordered == model.filter { keys.contains($0.key) })
    }

    @Test func readsInOrderStopWhenTheBodySays() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (store, _) = try makeStore(dir.child("s"), count: 100)
        defer { try? store.close() }
        var visited: [UInt64] = []
        try store.view(of: "a").forEachValue(inOrderOf: Array(0..<100)) { key, _, _ in
            visited.append(key)
            return visited.count < 30
        }
        #expect(visited == Array(0..<30))
    }

    /// The object layer's point read starts loading a record before it reads it. That start is
    /// only a hint: for present, missing and deleted keys and an unknown keyspace it changes
    /// nothing and throws nothing, and on a closed store it leaves the gone segments alone.
    @Test func aRecordPrefetchIsOnlyAHint() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (store, model) = try makeStore(dir.child("s"), count: 300)
        for key in UInt64(0)..<310 {
            Self.encode(key).withUnsafeBytes { encoded in
                store.prefetchRecord(forKey: encoded, in: "a")
                store.prefetchRecord(forKey: encoded, in: "no such keyspace")
            }
            #expect(try store.get(Self.encode(key), in: "a") == model[key])
        }
        try store.close()
        let present = try #require(model.keys.min())
        Self.encode(present).withUnsafeBytes { store.prefetchRecord(forKey: $0, in: "a") }
        #expect(throws: LogStoreError.closed) { try store.get(Self.encode(present), in: "a") }
    }
}
