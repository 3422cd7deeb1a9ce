import TestSupport
import Testing

@testable import Logbook

/// ``KeySort/order(primaryKeys:)``: positions in primary-key order, ties in position order,
/// whichever way it takes (keys in order already, keys and positions packed in one integer,
/// or wide keys sorted as items).
@Suite struct KeySortTests {
    static func expected(_ keys: [UInt64]) -> [Int] {
        keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
    }

    @Test(arguments: [0, 1, 2, 3, 64, 65, 1_000, 70_000])
    func ordersPositionsByPrimaryKey(count: Int) {
        var rng = SeededGenerator(seed: 0x4B53 &+ UInt64(count))
        let narrow = (0..<count).map { _ in UInt64.random(in: 1...1_000_000, using: &rng) }
        let wide = (0..<count).map { _ in UInt64.random(in: 1 << 50...UInt64.max, using: &rng) }
        let ascending = (0..<count).map { UInt64($0) * 7 + 1 }
        let reversed = Array(ascending.reversed())
        for keys in [narrow, wide, ascending, reversed] {
            #expect(KeySort.order(primaryKeys: keys) == Self.expected(keys))
        }
    }

    @Test func equalKeysKeepTheirPositionsInOrder() {
        let keys: [UInt64] = [5, 3, 5, 1, 3, 5, UInt64.max, 1, UInt64.max]
        #expect(KeySort.order(primaryKeys: keys) == Self.expected(keys))
        let narrow = keys.map { $0 == UInt64.max ? 9 : $0 }
        #expect(KeySort.order(primaryKeys: narrow) == Self.expected(narrow))
    }
}
