import Foundation
import LogStore
import TestSupport
import Testing

/// Randomized operations checked against a `Dictionary` model.
@Suite struct ModelTests {
    @Test func randomOperationsMatchADictionary() throws {
        let seed = testSeed("randomOperationsMatchADictionary")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.segmentSize = 8192
        var model: [String: [String: [UInt8]]] = [:]
        var store = try LogStore(path: path, options: options)
        for step in 0..<2000 {
            let keyspace = ["a", "b", "c"].randomElement(using: &rng)!
            let key = "k\(Int.random(in: 0..<200, using: &rng))"
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<50:
                let value = (0..<Int.random(in: 0..<300, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                }
                try store.put(value, for: Array(key.utf8), in: keyspace, durability: .buffered)
                model[keyspace, default: [:]][key] = value
            case 50..<70:
                try store.delete(Array(key.utf8), in: keyspace, durability: .buffered)
                model[keyspace]?[key] = nil
            case 70..<90:
                var batch = WriteBatch()
                for _ in 0..<Int.random(in: 1..<50, using: &rng) {
                    let k = "k\(Int.random(in: 0..<200, using: &rng))"
                    if Bool.random(using: &rng) {
                        let v = [UInt8](
                            repeating: UInt8.random(in: 0...255, using: &rng),
                            count: Int.random(in: 0..<50, using: &rng))
                        batch.put(v, for: Array(k.utf8), in: keyspace)
                        model[keyspace, default: [:]][k] = v
                    } else {
                        batch.delete(Array(k.utf8), in: keyspace)
                        model[keyspace]?[k] = nil
                    }
                }
                try store.commit(batch, durability: .buffered)
            case 90..<97:
                #expect(
                    try store.get(Array(key.utf8), in: keyspace) == model[keyspace]?[key],
                    "seed \(seed) step \(step)")
            default:
                try store.close()
                store = try LogStore(path: path, options: options)
                #expect(store.recovery.isClean)
            }
        }
        try store.close()
        store = try LogStore(path: path, options: options)
        for (keyspace, entries) in model {
            var seen: [String: [UInt8]] = [:]
            try store.forEach(in: keyspace) { k, v in
                seen[String(decoding: k, as: UTF8.self)] = [UInt8](v)
            }
            #expect(seen == entries, "seed \(seed) keyspace \(keyspace)")
        }
    }
}
