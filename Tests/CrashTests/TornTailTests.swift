import Foundation
import LogStore
import TestSupport
import Testing

/// Torn tails (issue 8, part 3): the newest segment cut at every byte of its last three
/// commits — truncated, or its tail zero-filled or garbage-filled — and hint files torn at every
/// byte. Recovery lands exactly on the last complete commit, and the store goes on cleanly.
@Suite struct TornTailTests {
    enum Damage: String, CaseIterable, CustomStringConvertible {
        case truncated, zeroFilled, garbageFilled
        var description: String { rawValue }
    }

    /// `original` torn at `cut` in the way `damage` says.
    static func tear(
        _ original: [UInt8], at cut: Int, _ damage: Damage, _ rng: inout SeededGenerator
    ) -> [UInt8] {
        var bytes = Array(original[..<cut])
        switch damage {
        case .truncated: break
        case .zeroFilled: bytes += [UInt8](repeating: 0, count: original.count - cut)
        case .garbageFilled:
            bytes += rng.bytes(original.count - cut)
        }
        return bytes
    }

    /// How many leading bytes `a` and `b` share: `memcmp` of 64 bytes at a time, then a byte
    /// loop. (`zip(a, b).prefix(while:)` took three quarters of this suite's time in debug
    /// builds, in generic metadata lookups, and a byte loop over every byte a tenth.)
    static func commonPrefixCount(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                let count = min(a.count, b.count)
                var i = 0
                while i + 64 <= count && memcmp(a.baseAddress! + i, b.baseAddress! + i, 64) == 0 {
                    i += 64
                }
                while i < count && a[i] == b[i] { i += 1 }
                return i
            }
        }
    }

    /// Whether `a` holds the bytes of `b` (`memcmp`: `==` of arrays goes a byte at a time, through
    /// generic calls, in debug builds).
    static func same(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        a.count == b.count && commonPrefixCount(a, Array(b)) == a.count
    }

    /// Whether every byte of `bytes` is zero.
    static func allZero(_ bytes: ArraySlice<UInt8>) -> Bool {
        let array = Array(bytes)
        return commonPrefixCount(array, [UInt8](repeating: 0, count: array.count)) == array.count
    }

    /// Tears the newest segment at each of `cuts`, opens, and checks the store landed on the
    /// last commit complete before the cut. Returns the number of cuts checked.
    static func checkCuts(
        _ store: BuiltStore, _ cuts: [Int], _ damage: Damage, seed: UInt64
    ) throws -> Int {
        var rng = SeededGenerator(seed: seed)
        let segment = store.newestSegment
        let original = readFile(segment)
        let others = store.files.filter { $0 != segment }.map { ($0, readFile($0)) }
        var checked = 0
        for cut in cuts {
            let torn = tear(original, at: cut, damage, &rng)
            writeFile(segment, torn)
            for (file, bytes) in others { writeFile(file, bytes) }  // hints rewritten at close
            // Garbage can repeat a byte it replaces: the damage starts where the bytes differ.
            let intact = commonPrefixCount(torn, original)
            let expected = store.lastCommit(endingBy: intact)
            let end = store.landing(intact: intact, original: original)
            let at = "\(damage) at \(cut) of \(original.count)"
            let opened = try openStore(store.path)
            #expect(opened.lastSequence == expected, "\(at)")
            let found = try contents(of: opened)
            #expect(
                found == store.states[expected]!,
                "\(at): \(describeDifference(found, store.states[expected]!))")
            // Zeros from the landing commit's end to the end of the file are the segment's zero
            // tail (FORMAT.md, "Zero tail"): its end, not damage, so nothing is cut.
            let zeroTail = torn.count > end && allZero(torn[end...])
            if zeroTail {
                #expect(readFile(segment).count == torn.count, "\(at): a zero tail was cut")
                #expect(opened.recovery.cuts.isEmpty, "\(at)")
            } else {
                #expect(readFile(segment).count == end, "\(at): not cut back to the commit's end")
                #expect(opened.recovery.droppedTailBytes == Int64(torn.count - end), "\(at)")
            }
            // What was cut is kept, exactly.
            if let kept = opened.recovery.cuts.first?.keptIn {
                #expect(same(readFile(kept), torn[end...]), "\(at): the cut file")
                try FileManager.default.removeItem(atPath: kept)
            } else {
                #expect(torn.count == end || zeroTail, "\(at): bytes cut but not kept")
            }
            try opened.put([7], for: Array("after".utf8), in: "z")
            try opened.close()
            let again = try openStore(store.path)
            #expect(again.recovery.isClean, "\(at): \(again.recovery)")
            #expect(try again.get(Array("after".utf8), in: "z") == [7], "\(at)")
            #expect(
                try again.count(in: "a")
                    == store.states[expected]!.keys.filter { $0.hasPrefix("a/") }.count)
            try again.close()
            checked += 1
        }
        writeFile(segment, original)
        for (file, bytes) in others { writeFile(file, bytes) }
        return checked
    }

    /// Twelve commits in one segment; the last three a put, a batch of ten and a batch of
    /// deletes and a put.
    static func smallStore(at path: String, seed: UInt64) throws -> BuiltStore {
        try BuiltStore(path: path, seed: seed, commits: 12) { i, d in
            switch i {
            case 10:
                return (0..<10).map { .put(keyspace: "a", key: "t\($0)", value: d.value(12)) }
            case 11:
                return [
                    .delete(keyspace: "a", key: "t3"), .delete(keyspace: "a", key: "k1"),
                    .put(keyspace: "b", key: "last", value: d.value(5)),
                ]
            default:
                return [.put(keyspace: "a", key: "k\(i % 4)", value: d.value(16))]
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func lastThreeCommitsTornAtEveryByteLandOnTheLastCompleteCommit(_ damage: Damage) throws {
        let dir = ScratchDirectory("torn")
        defer { dir.remove() }
        let seed = testSeed("torn tails \(damage)")
        let store = try Self.smallStore(at: dir.child("s"), seed: seed)
        let from = store.ends[store.ends.count - 4].size
        let checked = try Self.checkCuts(
            store, Array(from...readFile(store.newestSegment).count), damage, seed: seed)
        print("torn tails, \(damage): \(checked) cuts")
    }

    /// A final commit of 1,000 records spans two frames; cut anywhere it is all or nothing.
    /// Quick tier: every byte near the frame boundaries and the ends, and every 1,259th byte
    /// elsewhere from a seeded offset, so that successive runs cut at different bytes.
    @Test(arguments: Damage.allCases)
    func largeFinalCommitTornAnywhereIsAllOrNothing(_ damage: Damage) throws {
        let dir = ScratchDirectory("torn")
        defer { dir.remove() }
        let seed = testSeed("large torn tail \(damage)")
        let store = try BuiltStore(path: dir.child("s"), seed: seed, commits: 3) { i, d in
            i < 2
                ? [.put(keyspace: "a", key: "small\(i)", value: d.value(10))]
                : (0..<1000).map { .put(keyspace: "a", key: "big\($0)", value: d.value(100)) }
        }
        let start = store.ends[1].size
        let end = store.ends[2].size
        let stride = TestTier.pick(quick: 1_259, long: 1)
        let offset = Int(seed % UInt64(stride))
        let interesting = Set(
            Swift.stride(from: start + offset, through: end, by: stride)
                + Array(start..<start + 40) + Array(end - 40...end)
                + Array(start + (64 << 10) - 40..<start + (64 << 10) + 60))
        let checked = try Self.checkCuts(store, interesting.sorted(), damage, seed: seed)
        print("large torn tail, \(damage): \(checked) cuts")
    }

    /// A hint file torn anywhere is not trusted: the store opens with everything.
    @Test(arguments: Damage.allCases)
    func tornHintFileIsIgnored(_ damage: Damage) throws {
        let dir = ScratchDirectory("torn")
        defer { dir.remove() }
        let seed = testSeed("torn hints \(damage)")
        var rng = SeededGenerator(seed: seed)
        let store = try CorruptionTests.buildStore(at: dir.child("s"), seed: seed)
        var readOnly = LogStoreOptions()
        readOnly.readOnly = true
        var checked = 0
        for hint in store.files where hint.hasSuffix(".hint") {
            let original = readFile(hint)
            for cut in 0..<original.count {
                writeFile(hint, Self.tear(original, at: cut, damage, &rng))
                let opened = try LogStore(path: store.path, options: readOnly)
                #expect(opened.lastSequence == store.last, "\(hint) \(damage) at \(cut)")
                #expect(
                    try contents(of: opened) == store.states[store.last]!,
                    "\(hint) \(damage) at \(cut)")
                checked += 1
            }
            writeFile(hint, original)
        }
        #expect(checked > 50)
        print("torn hints, \(damage): \(checked) cuts")
    }
}
