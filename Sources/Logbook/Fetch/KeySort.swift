import LogStore

/// Orders fetch candidates without comparison sorts where the keys are integers, with the
/// package's stable radix sort (``RadixSort``).
enum KeySort {
    /// Candidate positions ordered by primary key.
    /// - Complexity: O(n) when the keys are ascending already (records met in log order, as
    ///   written in key order, the common case), else a radix sort.
    static func order(primaryKeys: [UInt64]) -> [Int] {
        let ascending = primaryKeys.withUnsafeBufferPointer { keys in
            var i = 1
            while i < keys.count {
                if keys[i - 1] > keys[i] { return false }
                i += 1
            }
            return true
        }
        if ascending { return Array(primaryKeys.indices) }
        // Each key with its position in one integer, when both fit: the radix sort of plain
        // integers (stable) then orders positions by key, with no wider items to move.
        let count = primaryKeys.count
        let positionBits = UInt64(max(1, Int.bitWidth - (count - 1).leadingZeroBitCount))
        let largest = primaryKeys.max() ?? 0
        if largest < 1 << (64 - positionBits) {
            var packed = [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
                for i in 0..<count { buffer[i] = primaryKeys[i] << positionBits | UInt64(i) }
                initialized = count
            }
            RadixSort.sort(&packed)
            let mask: UInt64 = (1 << positionBits) - 1
            return packed.map { Int($0 & mask) }
        }
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
