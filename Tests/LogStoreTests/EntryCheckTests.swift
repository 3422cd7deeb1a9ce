import CCRC32C
import CKeyDirectory
import Testing

/// `logbook_check_entries` (vector and scalar paths) and the fused CRC + check pass of the key
/// directory file's open agree with a plain Swift statement of the rule, on random tables with
/// forged entries anywhere (first, last, in a vector step's tail, across a block boundary).
@Suite struct EntryCheckTests {
    /// (bad, live) by the rule: a full slot (third word not all ones) names a segment below
    /// `sizes.count` in its low 28 bits and an offset in `minimum ..< sizes[segment]`.
    static func reference(_ words: [UInt32], _ sizes: [UInt32], minimum: UInt32) -> (Bool, Int) {
        var bad = false
        var live = 0
        for slot in 0..<words.count / 3 where words[3 * slot + 2] != UInt32.max {
            live += 1
            let segment = Int(words[3 * slot + 2] & 0x0FFF_FFFF)
            let offset = words[3 * slot + 1]
            if segment >= sizes.count || offset < minimum || offset >= sizes[segment] { bad = true }
        }
        return (bad, live)
    }

    @Test func everyPathAgreesWithTheRule() {
        var rng = SplitMix(seed: 0x5EED_16)
        for round in 0..<400 {
            let count = round < 300 ? Int(rng.next() % 70) : Int(rng.next() % 3000) + 1
            // Up to 40: the vector path keeps 8, 16, 24 or 32 sizes in registers, and gathers
            // beyond.
            let segments = Int(rng.next() % 40) + 1
            let sizes = (0..<segments).map { _ in UInt32(24 + rng.next() % 5000) }
            var words = [UInt32](repeating: 0, count: 3 * count)
            for slot in 0..<count {
                words[3 * slot] = UInt32(truncatingIfNeeded: rng.next())
                if rng.next() % 2 == 0 {
                    words[3 * slot + 2] = UInt32.max
                    continue
                }
                let segment = Int(rng.next() % UInt64(segments))
                guard sizes[segment] > 24 else {
                    words[3 * slot + 2] = UInt32.max
                    continue
                }
                words[3 * slot + 1] = 24 + UInt32(rng.next() % UInt64(sizes[segment] - 24))
                // High bits (the record's cache lines) are not part of the segment.
                words[3 * slot + 2] = UInt32(segment) | UInt32(rng.next() % 16) << 28
            }
            if count > 0 && round % 3 != 0 {
                let slot = [0, count - 1, Int(rng.next() % UInt64(count))][round % 3 == 1 ? 1 : 2]
                switch rng.next() % 6 {
                case 5:
                    // Its own segment's size: one past the last offset allowed there.
                    let segment = Int(words[3 * slot + 2] & 0x0FFF_FFFF)
                    words[3 * slot + 1] = segment < segments ? sizes[segment] : 23
                case 0: words[3 * slot + 1] = 23
                case 1: words[3 * slot + 1] = sizes[0] + UInt32(rng.next() % 3)
                case 2: words[3 * slot + 2] = UInt32(segments + Int(rng.next() % 3))
                case 3: words[3 * slot + 2] = 0x0FFF_FFFE
                default: words[3 * slot + 1] = UInt32.max - 1
                }
                if rng.next() % 4 == 0 && words[3 * slot + 2] == UInt32.max {
                    words[3 * slot + 2] = 0
                }
            }
            let (bad, live) = Self.reference(words, sizes, minimum: 24)
            words.withUnsafeBufferPointer { table in
                var filled = 0
                #expect(
                    (logbook_check_entries(
                        table.baseAddress, count, sizes, UInt32(segments), 24, &filled) != 0)
                        == bad)
                #expect(filled == live)
                filled = 0
                #expect(
                    (logbook_check_entries_portable(
                        table.baseAddress, count, sizes, UInt32(segments), 24, &filled) != 0)
                        == bad)
                #expect(filled == live)
                // Blocks of 96 bytes (8 entries): entries never straddle; of 40: they do.
                for block in [40, 96] {
                    let blocks = (3 * 4 * count + block - 1) / block
                    var crcs = [UInt32](repeating: 0, count: max(blocks, 1))
                    var expected = crcs
                    logbook_crc32c_blocks(table.baseAddress, 12 * count, block, &expected)
                    filled = 0
                    #expect(
                        (logbook_crc32c_blocks_check_entries(
                            table.baseAddress, count, block, &crcs, sizes, UInt32(segments), 24,
                            &filled) != 0) == bad)
                    #expect(filled == live)
                    #expect(crcs == expected)
                }
            }
        }
    }
}

/// A small seeded generator (SplitMix64).
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
