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
