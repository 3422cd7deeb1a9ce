import Foundation

/// What one cache miss costs on this machine: the floor under the point-read rows. A read of
/// a key LogStore does not have in cache waits for two misses, one after the other (its table
/// entry, then its record), so `readrandom` cannot run faster than about twice this figure
/// unless the hardware overlaps one read's misses with the next read's, which it does only for
/// very short loops.
enum MemoryLatency {
    static var workload: Workload {
        Workload(
            name: "memory-latency", group: "engine",
            summary: "one dependent load after another through a random cycle of cache lines"
        ) { context in
            // About the bytes readrandom's store spreads its reads over (table and records).
            let bytes = min(max(context.sizes.keys * 64, 1 << 20), 256 << 20)
            let hops = context.options.quick ? 100_000 : 5_000_000
            let chase = Chase(bytes: bytes)
            try context.expect(
                "memory-latency", "machine", "lines visited by one trip round the cycle",
                chase.cycleLength(), equals: chase.lines)
            let seconds = measure { chase.walk(hops) }
            context.reporter.figure(
                "memory-latency", engine: "machine", value: seconds * 1e9 / Double(hops),
                unit: "ns a load that waits for the one before it, random cycle through "
                    + "\(bytes >> 20) MB (readrandom waits for two such loads a get)")
        }
    }

    /// One word in each 64-byte line of a buffer, each holding the index of the next word to
    /// load: a single cycle through every line in random order, so that no prefetcher can
    /// guess the next line and each load waits for the one before.
    final class Chase {
        let lines: Int
        private let words: UnsafeMutablePointer<Int>
        private static let wordsPerLine = 8

        init(bytes: Int) {
            lines = bytes / 64
            words = .allocate(capacity: lines * Self.wordsPerLine)
            words.initialize(repeating: 0, count: lines * Self.wordsPerLine)
            var rng = SeededGenerator(seed: Seed.access)
            var order = Array(0..<lines)
            order.shuffle(using: &rng)
            for (position, line) in order.enumerated() {
                words[line * Self.wordsPerLine] =
                    order[(position + 1) % lines] * Self.wordsPerLine
            }
        }

        deinit { words.deallocate() }

        /// Follows the cycle `hops` times.
        func walk(_ hops: Int) {
            var at = 0
            for _ in 0..<hops { at = words[at] }
            MemoryLatency.blackHole(at)
        }

        /// Loads until the walk from line 0 is back at line 0: every line if the cycle is one.
        func cycleLength() -> Int {
            var at = words[0]
            var steps = 1
            while at != 0 {
                at = words[at]
                steps += 1
            }
            return steps
        }
    }

    /// Keeps `value` alive past the optimiser, so the loop that computed it is not removed.
    @inline(never)
    static func blackHole(_ value: Int) {
        if value == -1 { print("") }
    }
}
