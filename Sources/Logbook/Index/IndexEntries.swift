import Foundation
import LogStore

/// Index entries packed into one byte array: entry i is `bytes[start(i)..<ends[i]]`. What a
/// save or a scan produces before the entries go into an ``OrderedIndex``. A value type.
struct IndexEntries {
    var bytes: [UInt8] = []
    var ends: [Int] = []

    var count: Int { ends.count }
    var isEmpty: Bool { ends.isEmpty }

    @inline(__always) func start(_ i: Int) -> Int { i == 0 ? 0 : ends[i - 1] }

    /// Ends the entry whose bytes were appended to `bytes` since the last one.
    @inline(__always) mutating func close() { ends.append(bytes.count) }

    /// Drops the entries after the first `count`.
    mutating func truncate(to count: Int) {
        guard count < self.count else { return }
        bytes.removeSubrange(start(count)...)
        ends.removeSubrange(count...)
    }

    mutating func removeLast() {
        bytes.removeSubrange(start(count - 1)...)
        ends.removeLast()
    }

    mutating func append(_ entry: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: entry)
        close()
    }

    mutating func append(contentsOf other: IndexEntries) {
        let base = bytes.count
        bytes.append(contentsOf: other.bytes)
        ends.append(contentsOf: other.ends.lazy.map { $0 + base })
    }

    /// Calls `body` with each entry, in order.
    func forEach(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { raw in
            var start = 0
            for end in ends {
                try body(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                start = end
            }
        }
    }

    /// The entries sorted by their bytes, without duplicates.
    /// - Complexity: a radix sort of 8-byte prefixes, then comparisons only within runs of
    ///   equal prefix that are out of order (entries usually come in primary-key order, so a
    ///   run of one value is already sorted).
    func sorted() -> IndexEntries {
        guard count > 1 else { return self }
        return bytes.withUnsafeBytes { raw -> IndexEntries in
            var items = (0..<count).map { i -> SortItem in
                SortItem(
                    prefix: IndexKey.head(
                        UnsafeRawBufferPointer(rebasing: raw[start(i)..<ends[i]])),
                    entry: Int32(i))
            }
            RadixSort.sort(&items) { $0.prefix }
            var runStart = 0
            while runStart < items.count {
                var runEnd = runStart + 1
                var ordered = true
                while runEnd < items.count && items[runEnd].prefix == items[runStart].prefix {
                    if ordered
                        && Self.compare(raw, items[runEnd - 1].entry, items[runEnd].entry, self) > 0
                    {
                        ordered = false
                    }
                    runEnd += 1
                }
                if !ordered {
                    items[runStart..<runEnd].sort {
                        Self.compare(raw, $0.entry, $1.entry, self) < 0
                    }
                }
                runStart = runEnd
            }
            var result = IndexEntries()
            result.bytes.reserveCapacity(bytes.count)
            result.ends.reserveCapacity(count)
            var previous: Int32 = -1
            for item in items {
                if previous >= 0 && Self.compare(raw, previous, item.entry, self) == 0 { continue }
                let i = Int(item.entry)
                result.bytes.append(contentsOf: raw[start(i)..<ends[i]])
                result.close()
                previous = item.entry
            }
            return result
        }
    }

    private struct SortItem {
        var prefix: UInt64
        var entry: Int32
    }

    @inline(__always)
    private static func compare(
        _ raw: UnsafeRawBufferPointer, _ a: Int32, _ b: Int32, _ list: IndexEntries
    ) -> Int {
        let (sa, ea) = (list.start(Int(a)), list.ends[Int(a)])
        let (sb, eb) = (list.start(Int(b)), list.ends[Int(b)])
        return IndexBytes.compare(
            UnsafeRawBufferPointer(rebasing: raw[sa..<ea]),
            UnsafeRawBufferPointer(rebasing: raw[sb..<eb]))
    }
}

/// Comparison of index entries and bounds.
enum IndexBytes {
    /// Negative, zero or positive as `a` sorts before, with or after `b` (bytes unsigned,
    /// a proper prefix first).
    @inline(__always)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        if n > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, n)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    /// Whether `entry` starts with `prefix`.
    @inline(__always)
    static func hasPrefix(_ entry: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer)
        -> Bool
    {
        guard entry.count >= prefix.count else { return false }
        return prefix.isEmpty || memcmp(entry.baseAddress!, prefix.baseAddress!, prefix.count) == 0
    }
}
