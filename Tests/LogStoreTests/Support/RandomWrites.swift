import LogStore
import TestSupport

/// Puts and deletes `operations` times in keyspace `k`, one buffered commit each, over `keys`
/// keys (`key0`…) with values of 1 to `maxValue − 1` random bytes; `model` follows the contents.
func randomWrites(
    _ store: LogStore, _ operations: Int, keys: Int, maxValue: Int, rng: inout SeededGenerator,
    model: inout [String: [UInt8]]
) throws {
    for _ in 0..<operations {
        let key = "key\(Int.random(in: 0..<keys, using: &rng))"
        if Int.random(in: 0..<5, using: &rng) == 0 {
            try store.delete(Array(key.utf8), in: "k", durability: .buffered)
            model[key] = nil
        } else {
            let value = (0..<Int.random(in: 1..<maxValue, using: &rng)).map { _ in
                UInt8.random(in: 0...255, using: &rng)
            }
            try store.put(value, for: Array(key.utf8), in: "k", durability: .buffered)
            model[key] = value
        }
    }
}
