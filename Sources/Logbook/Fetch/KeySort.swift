/// Orders fetch candidates without comparison sorts where the keys are integers: stable
/// least-significant-digit radix sorts, 16 bits a pass, skipping digits that are the same in
/// every key (primary keys and salaries share their high bits).
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

    /// Stable sort of `items` by `key`.
    private static func sort(_ items: inout [Item]) {
        guard items.count > 64 else {
            for i in items.indices.dropFirst() {
                let item = items[i]
                var j = i
                while j > 0 && items[j - 1].key > item.key {
                    items[j] = items[j - 1]
                    j -= 1
                }
                items[j] = item
            }
            return
        }
        radixSort(&items) { $0.key }
    }

    /// Stable sort of `items` by `key`: least significant digit first, skipping digits that are
    /// the same in every key. Digits are 11 bits below 2^18 items (the counts stay in the
    /// first-level cache and a pass scatters into 2,048 places: about twice as fast at 112k
    /// items), 16 bits from there on (fewer passes pay off over many items).
    static func radixSort<Element>(_ items: inout [Element], by key: (Element) -> UInt64) {
        var all: UInt64 = 0
        var common: UInt64 = ~0
        for item in items {
            all |= key(item)
            common &= key(item)
        }
        let varying = all ^ common
        let width: UInt64 = items.count < 1 << 18 ? 11 : 16
        let mask: UInt64 = (1 << width) - 1
        var scratch = items
        var counts = [Int](repeating: 0, count: 1 << Int(width))
        for shift in stride(from: UInt64(0), to: 64, by: Int(width))
        where (varying >> shift) & mask != 0 {
            counts.withUnsafeMutableBufferPointer { counts in
                counts.update(repeating: 0)
                items.withUnsafeBufferPointer { source in
                    for item in source { counts[Int((key(item) >> shift) & mask)] += 1 }
                    var total = 0
                    for i in 0..<counts.count {
                        let n = counts[i]
                        counts[i] = total
                        total += n
                    }
                    scratch.withUnsafeMutableBufferPointer { target in
                        for item in source {
                            let digit = Int((key(item) >> shift) & mask)
                            target[counts[digit]] = item
                            counts[digit] += 1
                        }
                    }
                }
            }
            swap(&items, &scratch)
        }
    }
}
