import LogStore

/// Orders fetch candidates without comparison sorts where the keys are integers, with the
/// package's stable radix sort (``RadixSort``).
enum KeySort {
    /// Candidate positions ordered by primary key.
    static func order(primaryKeys: [UInt64]) -> [Int] {
        var items = primaryKeys.indices.map { Item(key: primaryKeys[$0], index: Int32($0)) }
        sort(&items)
        return items.map { Int($0.index) }
    }

    /// Candidate positions ordered by one integer sort key, `keys[i]` for candidate `i` except
    /// at `nullPositions` (ascending), whose key is `null` (first when ascending, last when
    /// descending); ties by primary key.
    static func order(
        integers keys: [Int64], nullPositions: [Int32], primaryKeys: [UInt64], ascending: Bool
    ) -> [Int] {
        var nulls: [Item] = []
        var items: [Item] = []
        items.reserveCapacity(primaryKeys.count - nullPositions.count)
        var nextNull = 0
        for i in keys.indices {
            if nextNull < nullPositions.count && Int(nullPositions[nextNull]) == i {
                nulls.append(Item(key: primaryKeys[i], index: Int32(i)))
                nextNull += 1
            } else {
                items.append(Item(key: primaryKeys[i], index: Int32(i), value: keys[i]))
            }
        }
        // By primary key, then (stably) by value: ties stay in primary-key order.
        sort(&items)
        for i in items.indices {
            // Order-preserving: flip the sign bit; invert for descending.
            let ordered = UInt64(bitPattern: items[i].value) ^ (1 << 63)
            items[i].key = ascending ? ordered : ~ordered
        }
        sort(&items)
        sort(&nulls)
        let values = items.map { Int($0.index) }
        let nullOrder = nulls.map { Int($0.index) }
        return ascending ? nullOrder + values : values + nullOrder
    }

    private struct Item {
        var key: UInt64
        var index: Int32
        var value: Int64 = 0
    }

    /// Stable sort of `items` by `key` (LogStore's radix sort).
    private static func sort(_ items: inout [Item]) { RadixSort.sort(&items) { $0.key } }
}
