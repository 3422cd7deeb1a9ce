/// The package's one radix sort: a stable least-significant-digit sort of values by a 64-bit
/// key, skipping the digits that are the same in every key (a store's references, primary keys
/// and salaries share their high bits). Used by the engine's index and by Logbook's fetches.
///
/// `@usableFromInline` because without it Swift 6.3 neither inlines nor specializes the
/// `@inlinable` members of a `package` type in another module: Logbook's `KeySort` ran the
/// unspecialized generic sort, 36% of an indexed fetch of 112k Employees. The same holds for
/// every `package` type whose `@inlinable` members Logbook calls (`Varint`, `Prefetch`,
/// `KeyspaceView`).
@usableFromInline package enum RadixSort {
    /// Sorts `values` ascending.
    @inlinable
    package static func sort(_ values: inout [UInt64]) { sort(&values, by: { $0 }) }

    /// Sorts `values` ascending, as ``sort(_:)``, faster when they are distinct and lie densely
    /// (references to the records of a few segments, most of them live): then each is marked in
    /// a bitmap of their range, read back in order. A reference's high half (its segment) picks
    /// a part of the bitmap, the range of the low halves met in that segment. Used for values
    /// of at most ``denseParts`` high halves whose ranges together span at most 64 times as
    /// many places as there are values (records of at most 64 bytes apart on average: the bitmap
    /// takes at most 8 bytes per value, as the radix sort's copy does); otherwise, and when two
    /// values are equal, the radix sort.
    /// - Complexity: O(n + ranges / 64) on the bitmap; as ``sort(_:)`` otherwise.
    @inlinable
    package static func sortDense(_ values: inout [UInt64]) {
        guard values.count > 64 else { return sort(&values) }
        var lowest = UInt64.max
        var highest: UInt64 = 0
        var ascending = true
        var previous: UInt64 = 0
        for value in values {
            lowest = Swift.min(lowest, value)
            highest = Swift.max(highest, value)
            ascending = ascending && previous <= value
            previous = value
        }
        guard !ascending else { return }
        let firstPart = lowest >> 32
        let parts = Int(truncatingIfNeeded: highest >> 32 &- firstPart) + 1
        guard parts <= denseParts else { return sort(&values) }
        let halves: UInt64 = 0xFFFF_FFFF
        // Each part's lowest and highest low half, and its first word in the bitmap.
        var low = [UInt64](repeating: .max, count: parts)
        var high = [UInt64](repeating: 0, count: parts)
        if parts == 1 {
            (low[0], high[0]) = (lowest & halves, highest & halves)
        } else {
            for value in values {
                let part = Int(truncatingIfNeeded: value >> 32 &- firstPart)
                low[part] = Swift.min(low[part], value & halves)
                high[part] = Swift.max(high[part], value & halves)
            }
        }
        var start = [Int](repeating: 0, count: parts + 1)
        for part in 0..<parts {
            let words = high[part] >= low[part] ? Int((high[part] &- low[part]) >> 6) + 1 : 0
            start[part + 1] = start[part] + words
        }
        guard start[parts] <= values.count else { return sort(&values) }
        var bitmap = [UInt64](repeating: 0, count: start[parts])
        var repeated: UInt64 = 0
        bitmap.withUnsafeMutableBufferPointer { bits in
            for value in values {
                let part = Int(truncatingIfNeeded: value >> 32 &- firstPart)
                let place = UInt64(start[part]) << 6 &+ ((value & halves) &- low[part])
                let word = Int(truncatingIfNeeded: place >> 6)
                let bit: UInt64 = 1 << (place & 63)
                repeated |= bits[word] & bit
                bits[word] |= bit
            }
        }
        guard repeated == 0 else { return sort(&values) }
        values.withUnsafeMutableBufferPointer { out in
            bitmap.withUnsafeBufferPointer { bits in
                var i = 0
                for part in 0..<parts {
                    let origin = (firstPart &+ UInt64(part)) << 32 | low[part]
                    for w in start[part]..<start[part + 1] {
                        var word = bits[w]
                        let base = origin &+ UInt64(w &- start[part]) << 6
                        while word != 0 {
                            out[i] = base &+ UInt64(word.trailingZeroBitCount)
                            i &+= 1
                            word &= word &- 1
                        }
                    }
                }
            }
        }
    }

    /// The most high halves (segments) ``sortDense(_:)`` sorts through a bitmap (a window of a
    /// log-order walk, a million records, lies in one segment or two).
    @usableFromInline static let denseParts = 16

    /// Sorts `values` by `key`, stably. At most 64 values are insertion-sorted; more are left
    /// as they are if already in order, else take one pass per varying digit. Digits are 11
    /// bits below 2^18 values (the counts stay in the first-level cache and a pass scatters
    /// into 2,048 places: about twice as fast at 112k values), 16 bits from there on (fewer
    /// passes pay off over many values).
    /// - Complexity: O(n) for values in order; else O(n) per varying digit, plus O(n) memory
    ///   for a scratch copy.
    @inlinable
    package static func sort<Value>(_ values: inout [Value], by key: (Value) -> UInt64) {
        guard values.count > 64 else {
            for i in values.indices.dropFirst() {
                let value = values[i]
                var j = i
                while j > 0 && key(values[j - 1]) > key(value) {
                    values[j] = values[j - 1]
                    j -= 1
                }
                values[j] = value
            }
            return
        }
        var all: UInt64 = 0
        var common: UInt64 = ~0
        // Values often come in order already (keys read in log order, records written in key
        // order): then a stable sort has nothing to move.
        var ascending = true
        var previous: UInt64 = 0
        for value in values {
            let k = key(value)
            all |= k
            common &= k
            ascending = ascending && previous <= k
            previous = k
        }
        guard !ascending else { return }
        let varying = all ^ common  // bits that differ somewhere
        let width: UInt64 = values.count < 1 << 18 ? 11 : 16
        let mask: UInt64 = (1 << width) - 1
        var scratch = values
        var counts = [Int](repeating: 0, count: 1 << Int(width))
        for shift in stride(from: UInt64(0), to: 64, by: Int(width))
        where (varying >> shift) & mask != 0 {
            counts.withUnsafeMutableBufferPointer { counts in
                counts.update(repeating: 0)
                values.withUnsafeBufferPointer { source in
                    for value in source { counts[Int((key(value) >> shift) & mask)] += 1 }
                    var total = 0
                    for i in 0..<counts.count {
                        let n = counts[i]
                        counts[i] = total
                        total += n
                    }
                    scratch.withUnsafeMutableBufferPointer { target in
                        for value in source {
                            let digit = Int((key(value) >> shift) & mask)
                            target[counts[digit]] = value
                            counts[digit] += 1
                        }
                    }
                }
            }
            swap(&values, &scratch)
        }
    }
}
