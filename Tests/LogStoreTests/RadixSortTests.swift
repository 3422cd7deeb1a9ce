import TestSupport
import Testing

@testable import LogStore

@Suite struct RadixSortTests {
    @Test(arguments: [0, 1, 2, 255, 256, 257, 5000])
    func sortsLikeTheStandardLibraryAndKeepsEqualKeysInOrder(count: Int) {
        var rng = SeededGenerator(seed: UInt64(count))
        let values = (0..<count).map { i in
            (
                key: UInt64.random(in: 0..<50, using: &rng) << 40
                    | UInt64.random(in: 0..<4, using: &rng), index: i
            )
        }
        var sorted = values
        RadixSort.sort(&sorted) { $0.key }
        #expect(sorted.map(\.key) == values.map(\.key).sorted())
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.key == b.key {
            #expect(a.index < b.index)
        }
    }
}

@Suite struct RadixSortOrderedInputTests {
    /// An input in order already is left as it is (the check that skips the passes must not
    /// reorder equal keys), and one that is out of order only at its end is still sorted.
    @Test(arguments: [65, 300, 70_000])
    func leavesAnOrderedInputAsItIsAndSortsOneOutOfOrderAtItsEnd(count: Int) {
        let ordered = (0..<count).map { i in (key: UInt64(i / 3) << 20, index: i) }
        var sorted = ordered
        RadixSort.sort(&sorted) { $0.key }
        #expect(sorted.map(\.index) == ordered.map(\.index))
        var late = ordered
        late[count - 1].key = 0
        let expected = late.indices.sorted {
            late[$0].key != late[$1].key ? late[$0].key < late[$1].key : $0 < $1
        }
        RadixSort.sort(&late) { $0.key }
        #expect(late.map(\.index) == expected)
    }
}

@Suite struct RadixSortDigitWidthTests {
    /// Over 2^18 values the digits are 16 bits wide (a million references into one segment
    /// vary in 26 bits): every span and place of the varying bits must sort like the standard
    /// library, stably.
    @Test(arguments: [(0, 26), (0, 32), (5, 17), (3, 33), (40, 23), (0, 64), (63, 1)])
    func sortsManyValuesOfEverySpanLikeTheStandardLibrary(lowest: Int, bits: Int) {
        var rng = SeededGenerator(seed: UInt64(lowest * 100 + bits))
        let count = (1 << 18) + 1_000
        let high: UInt64 = bits + lowest < 64 ? 0x5 << UInt64(bits + lowest) : 0
        let values = (0..<count).map { i in
            let digits = UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64(64 - bits)
            // Ties: every tenth value repeats the one before it.
            return (key: high | digits << UInt64(lowest), index: i)
        }
        var input = values
        for i in stride(from: 10, to: count, by: 10) { input[i].key = input[i - 1].key }
        var sorted = input
        RadixSort.sort(&sorted) { $0.key }
        #expect(sorted.map(\.key) == input.map(\.key).sorted())
        var stable = true
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.key == b.key && a.index > b.index {
            stable = false
        }
        #expect(stable)
    }
}

@Suite struct RadixSortDenseTests {
    /// References into segments, shuffled: dense (taken through the bitmap, in parts for
    /// several segments), with a repeat (the radix sort then), spread out or over more segments
    /// than the bitmap takes (the radix sort), and in order already: each comes out as the
    /// standard library sorts it, repeats kept.
    @Test(arguments: [
        (spacing: 1, repeats: false, segments: 1), (spacing: 39, repeats: false, segments: 1),
        (spacing: 64, repeats: false, segments: 1), (spacing: 39, repeats: true, segments: 1),
        (spacing: 500, repeats: false, segments: 1), (spacing: 39, repeats: false, segments: 2),
        (spacing: 39, repeats: true, segments: 3), (spacing: 39, repeats: false, segments: 5),
        (spacing: 39, repeats: false, segments: 20),
    ])
    func sortsReferencesLikeTheStandardLibrary(spacing: Int, repeats: Bool, segments: Int) {
        var rng = SeededGenerator(seed: UInt64(spacing * 10 + segments))
        var values: [UInt64] = []
        for segment in 0..<segments {
            // Segments numbered with gaps (3 is missing), offsets starting anywhere.
            let handle = UInt64(segment < 2 ? segment + 1 : segment + 2)
            var offset = UInt64.random(in: 0..<1_000_000, using: &rng)
            for _ in 0..<(segments > 5 ? 5_000 : 50_000) {
                values.append(handle << 32 | offset)
                offset += UInt64.random(in: 1...UInt64(spacing), using: &rng)
            }
        }
        if repeats { values[values.count / 2] = values[7] }
        let expected = values.sorted()
        var inOrder = expected
        RadixSort.sortDense(&inOrder)
        let keptInOrder = inOrder == expected
        #expect(keptInOrder)
        values.shuffle(using: &rng)
        RadixSort.sortDense(&values)
        let sorted = values == expected
        #expect(sorted)
    }
}
