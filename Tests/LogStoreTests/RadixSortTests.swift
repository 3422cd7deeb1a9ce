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
