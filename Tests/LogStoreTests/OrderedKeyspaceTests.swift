import Foundation
import LogStore
import Synchronization
import TestSupport
import Testing

/// Ordered keyspaces (`LogStoreOptions.orderedKeyspaces`): iteration in key order, forward and
/// reverse, within bounds, against a sorted model.
@Suite struct OrderedKeyspaceTests {
    /// Keys of the ordered keyspace, read back with `forEach(in:range:reverse:limit:)`.
    static func scan(
        _ store: LogStore, _ keyspace: String = "o", _ range: KeyRange = .all,
        reverse: Bool = false, limit: Int = .max
    ) throws -> [([UInt8], [UInt8])] {
        var seen: [([UInt8], [UInt8])] = []
        try store.forEach(in: keyspace, range: range, reverse: reverse, limit: limit) { k, v in
            seen.append(([UInt8](k), [UInt8](v)))
        }
        return seen
    }

    /// What the model says the same scan returns.
    static func expected(
        _ model: [[UInt8]: [UInt8]], _ range: KeyRange, reverse: Bool, limit: Int
    ) -> [([UInt8], [UInt8])] {
        func below(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }
        var keys = model.keys.filter { key in
            if let lower = range.lower {
                if below(key, lower.key) || (!lower.inclusive && key == lower.key) { return false }
            }
            if let upper = range.upper {
                if below(upper.key, key) || (!upper.inclusive && key == upper.key) { return false }
            }
            return true
        }.sorted(by: below)
        if reverse { keys.reverse() }
        return keys.prefix(limit).map { ($0, model[$0]!) }
    }

    static func same(_ a: [([UInt8], [UInt8])], _ b: [([UInt8], [UInt8])]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// Short keys over a four-byte alphabet (0, 1, "a", 255), so that many keys are prefixes
    /// of others and bytes above 127 sort as unsigned.
    static func randomKey(_ rng: inout SeededGenerator) -> [UInt8] {
        let alphabet: [UInt8] = [0, 1, 97, 255]
        return (0..<Int.random(in: 1...4, using: &rng)).map { _ in
            alphabet.randomElement(using: &rng)!
        }
    }

    static func randomRange(_ rng: inout SeededGenerator) -> KeyRange {
        func bound() -> KeyRange.Bound? {
            Int.random(in: 0..<4, using: &rng) == 0
                ? nil : KeyRange.Bound(randomKey(&rng), inclusive: Bool.random(using: &rng))
        }
        return KeyRange(lower: bound(), upper: bound())
    }

    @Test func randomOperationsMatchASortedModel() throws {
        let seed = testSeed("randomOperationsMatchASortedModel")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.orderedKeyspaces = ["o"]
        options.orderedDeltaLimit = 7  // folds often
        options.durability = .buffered
        var model: [[UInt8]: [UInt8]] = [:]
        var store = try LogStore(path: path, options: options)
        defer { try? store.close() }
        for step in 0..<3000 {
            let key = Self.randomKey(&rng)
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<35:
                let value = [UInt8](
                    repeating: UInt8(step & 0xFF), count: Int.random(in: 0..<40, using: &rng))
                try store.put(value, for: key, in: "o")
                try store.put(value, for: key, in: "other")  // an unordered neighbour
                model[key] = value
            case 35..<50:
                try store.delete(key, in: "o")
                model[key] = nil
            case 50..<60:
                var batch = WriteBatch()
                for _ in 0..<Int.random(in: 1..<20, using: &rng) {
                    let k = Self.randomKey(&rng)
                    if Bool.random(using: &rng) {
                        let v = [UInt8](repeating: UInt8.random(in: 0...255, using: &rng), count: 3)
                        batch.put(v, for: k, in: "o")
                        model[k] = v
                    } else {
                        batch.delete(k, in: "o")
                        model[k] = nil
                    }
                }
                try store.commit(batch)
            case 60..<92:
                let range = Self.randomRange(&rng)
                let reverse = Bool.random(using: &rng)
                let limit = Bool.random(using: &rng) ? Int.max : Int.random(in: 1...5, using: &rng)
                let seen = try Self.scan(store, "o", range, reverse: reverse, limit: limit)
                #expect(
                    Self.same(seen, Self.expected(model, range, reverse: reverse, limit: limit)),
                    "seed \(seed) step \(step) range \(range) reverse \(reverse)")
            case 92..<95:
                _ = try store.compact()
            default:
                try store.close()
                store = try LogStore(path: path, options: options)
                #expect(store.recovery.isClean)
            }
        }
        #expect(
            Self.same(try Self.scan(store), Self.expected(model, .all, reverse: false, limit: .max))
        )
        #expect(
            Self.same(
                try Self.scan(store, reverse: true),
                Self.expected(model, .all, reverse: true, limit: .max)))
    }

    @Test func boundsAreInclusiveOrExclusiveAndKeysThatArePrefixesSortFirst() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.orderedKeyspaces = ["o"]
        let store = try LogStore(path: dir.child("s"), options: options)
        defer { try? store.close() }
        #expect(try Self.scan(store).isEmpty)  // not created yet
        let keys: [[UInt8]] = [b("a"), [97, 0], b("ab"), b("b"), [255], b("aa")]
        var batch = WriteBatch()
        for key in keys { batch.put(key, for: key, in: "o") }
        try store.commit(batch)
        let sorted: [[UInt8]] = [b("a"), [97, 0], b("aa"), b("ab"), b("b"), [255]]
        #expect(try Self.scan(store).map(\.0) == sorted)
        #expect(try Self.scan(store, reverse: true).map(\.0) == sorted.reversed())
        #expect(try Self.scan(store).map(\.1) == sorted)  // values follow their keys

        func keysIn(_ range: KeyRange, reverse: Bool = false) throws -> [[UInt8]] {
            try Self.scan(store, "o", range, reverse: reverse).map(\.0)
        }
        #expect(
            try keysIn(KeyRange(from: b("a"), through: b("ab"))) == [
                b("a"), [97, 0], b("aa"), b("ab"),
            ])
        #expect(try keysIn(KeyRange(from: b("a"), upTo: b("ab"))) == [b("a"), [97, 0], b("aa")])
        #expect(
            try keysIn(
                KeyRange(
                    lower: .init(b("a"), inclusive: false), upper: .init(b("b"), inclusive: false)))
                == [[97, 0], b("aa"), b("ab")])
        #expect(
            try keysIn(
                KeyRange(
                    lower: .init(b("a"), inclusive: false), upper: .init(b("b"), inclusive: false)),
                reverse: true)
                == [b("ab"), b("aa"), [97, 0]])
        // Bounds that are not keys.
        #expect(try keysIn(KeyRange(from: b("a\u{1}"), through: b("az"))) == [b("aa"), b("ab")])
        #expect(try keysIn(KeyRange(from: [], through: b("a"))) == [b("a")])
        #expect(try keysIn(KeyRange(from: b("b"), through: nil)) == [b("b"), [255]])
        // Empty ranges.
        #expect(try keysIn(KeyRange(from: b("b"), through: b("a"))).isEmpty)
        #expect(try keysIn(KeyRange(from: b("b"), through: b("a")), reverse: true).isEmpty)
        #expect(try keysIn(KeyRange(from: b("ab"), upTo: b("ab"))).isEmpty)
        #expect(try keysIn(KeyRange(from: b("ab"), upTo: b("ab")), reverse: true).isEmpty)
        #expect(try keysIn(KeyRange(from: b("c"), through: b("d"))).isEmpty)
        #expect(try keysIn(KeyRange(from: b("ab"), through: b("ab"))) == [b("ab")])
        // The convenience form and a limit.
        var first: [[UInt8]] = []
        try store.forEach(in: "o", from: b("aa"), limit: 2) { k, _ in first.append([UInt8](k)) }
        #expect(first == [b("aa"), b("ab")])
        var last: [[UInt8]] = []
        try store.forEach(in: "o", from: nil, reverse: true, limit: 1) { k, _ in
            last.append([UInt8](k))
        }
        #expect(last == [[255]])
    }

    @Test func aKeyspaceNotDeclaredOrderedThrowsAndReopeningDeclaredBuildsTheOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var store = try LogStore(path: path)
        for i in (0..<500).reversed() {
            try store.put(b("v\(i)"), for: b("k\(i)"), in: "o", durability: .buffered)
        }
        try store.delete(b("k7"), in: "o")
        #expect(throws: LogStoreError.self) { try store.forEach(in: "o", from: nil) { _, _ in } }
        try store.close()
        var options = LogStoreOptions()
        options.orderedKeyspaces = ["o"]
        store = try LogStore(path: path, options: options)
        let expected = (0..<500).filter { $0 != 7 }.map { b("k\($0)") }.sorted {
            $0.lexicographicallyPrecedes($1)
        }
        #expect(try Self.scan(store).map(\.0) == expected)
        try store.close()
        // Declared again without it: the data is unchanged, only ordered iteration is refused.
        store = try LogStore(path: path)
        defer { try? store.close() }
        #expect(try store.count(in: "o") == 499)
        #expect(throws: LogStoreError.self) { try store.forEach(in: "o", from: nil) { _, _ in } }
    }

    @Test func keysLongerThanSixteenBytesSharingAPrefixSortWhenRebuiltAtOpen() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.orderedKeyspaces = ["o"]
        options.durability = .buffered
        var rng = SeededGenerator(seed: 16)
        var keys: [[UInt8]] = []
        var store = try LogStore(path: path, options: options)
        for _ in 0..<600 {
            let key =
                [UInt8](repeating: 7, count: 16)
                + (0..<Int.random(in: 0..<4, using: &rng)).map { _ in
                    UInt8.random(in: 0...2, using: &rng)
                }
            try store.put([1], for: key, in: "o")
            keys.append(key)
        }
        let sorted = Set(keys).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(try Self.scan(store).map(\.0) == sorted)
        try store.close()
        store = try LogStore(path: path, options: options)
        defer { try? store.close() }
        #expect(try Self.scan(store).map(\.0) == sorted)
    }

    /// Many changes without an ordered read drop the key order, which the next read builds
    /// again; an iteration in progress keeps the order it started with.
    @Test func manyChangesWithoutAReadRebuildTheOrderAtTheNextRead() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.orderedKeyspaces = ["o"]
        options.durability = .buffered
        let store = try LogStore(path: dir.child("s"), options: options)
        defer { try? store.close() }
        var model: [[UInt8]: [UInt8]] = [:]
        for i in 0..<100 {
            try store.put([1], for: b("k\(i)"), in: "o")
            model[b("k\(i)")] = [1]
        }
        var seenDuring: [[UInt8]] = []
        try store.forEach(in: "o", from: nil) { k, _ in
            if seenDuring.isEmpty {
                // 6000 changes while this iteration runs: past the 4096 that drop the order.
                for i in 0..<3000 {
                    try store.put([2], for: b("n\(i)"), in: "o")
                    model[b("n\(i)")] = [2]
                }
                for i in 0..<3000 where i % 3 == 0 {
                    try store.delete(b("n\(i)"), in: "o")
                    model[b("n\(i)")] = nil
                }
                for i in 0..<3000 where i % 3 == 1 {
                    try store.put([3], for: b("n\(i)"), in: "o")
                    model[b("n\(i)")] = [3]
                }
                try store.delete(b("k5"), in: "o")
                model[b("k5")] = nil
            }
            seenDuring.append([UInt8](k))
        }
        #expect(
            seenDuring == (0..<100).map { b("k\($0)") }.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(
            Self.same(try Self.scan(store), Self.expected(model, .all, reverse: false, limit: .max))
        )
        #expect(
            Self.same(
                try Self.scan(store, reverse: true),
                Self.expected(model, .all, reverse: true, limit: .max)))
    }

    /// An iteration sees one commit whole, whatever commits and compactions run meanwhile, and
    /// a compaction run from inside the iteration does not disturb it.
    @Test func iterationSeesOneCommitWholeWithAConcurrentWriterAndCompaction() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.orderedKeyspaces = ["o"]
        options.segmentSize = 16 << 10
        options.orderedDeltaLimit = 16
        options.durability = .buffered
        let store = try LogStore(path: dir.child("s"), options: options)
        defer { try? store.close() }
        @Sendable func write(_ generation: UInt64) throws {
            var batch = WriteBatch()
            let value = withUnsafeBytes(of: generation.bigEndian) { [UInt8]($0) }
            for i in 0..<100 { batch.put(value, for: b("k\(1000 + i)"), in: "o") }
            // An odd generation holds the key "m" (in the middle), an even one does not.
            if generation % 2 == 1 {
                batch.put(value, for: b("k1050m"), in: "o")
            } else {
                batch.delete(b("k1050m"), in: "o")
            }
            try store.commit(batch)
        }
        try write(0)
        // Check that each iteration agrees with itself.
        func checkOneIteration(reverse: Bool, during: (() throws -> Void)? = nil) throws {
            var generations = Set<[UInt8]>()
            var count = 0
            var middle = false
            var previous: [UInt8]?
            try store.forEach(in: "o", range: .all, reverse: reverse) { k, v in
                if count == 3 { try during?() }
                generations.insert([UInt8](v))
                if [UInt8](k) == b("k1050m") { middle = true }
                let key = [UInt8](k)
                if let previous {
                    #expect(
                        reverse
                            ? key.lexicographicallyPrecedes(previous)
                            : previous.lexicographicallyPrecedes(key))
                }
                previous = key
                count += 1
            }
            #expect(generations.count == 1)
            let generation =
                generations.first.map {
                    $0.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
                } ?? 0
            #expect(middle == (generation % 2 == 1))
            #expect(count == 100 + (middle ? 1 : 0))
        }
        let stop = Atomic(false)
        let compactions = Atomic(0)
        let threads = ThreadGroup()
        threads.start {
            var g: UInt64 = 1
            while !stop.load(ordering: .relaxed) {
                try? write(g)
                g += 1
            }
        }
        threads.start {
            while !stop.load(ordering: .relaxed) {
                do {
                    _ = try store.compact()
                    compactions.add(1, ordering: .relaxed)
                } catch {
                    print("compaction: \(error)")
                }
            }
        }
        // At least 300 iterations, and on until several compactions have finished meanwhile.
        var iterations = 0
        let deadline = Date().addingTimeInterval(20)
        while iterations < 300 || (compactions.load(ordering: .relaxed) < 5 && Date() < deadline) {
            try checkOneIteration(reverse: iterations % 2 == 1)
            iterations += 1
        }
        stop.store(true, ordering: .relaxed)
        threads.wait()
        #expect(compactions.load(ordering: .relaxed) > 0)
        // A commit and a compaction made inside the iteration are not seen by it.
        try checkOneIteration(reverse: false) {
            try write(1_000_001)
            _ = try store.compact()
        }
        try checkOneIteration(reverse: true)
    }
}
