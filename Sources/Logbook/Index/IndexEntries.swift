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
        for end in other.ends { ends.append(end + base) }
    }

    /// Drops every entry, keeping the capacity.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
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
    /// - Complexity: a radix sort of 8-byte prefixes, then, within runs of equal prefix that
    ///   are out of order, a sort by the next 8 bytes; whole entries are compared only where
    ///   16 bytes tie (entries usually come in primary-key order, so a run of one value is
    ///   already sorted).
    func sorted() -> IndexEntries {
        guard count > 1 else { return self }
        return bytes.withUnsafeBytes { raw -> IndexEntries in
            var items = (0..<count).map { i -> SortItem in
                SortItem(prefix: IndexKey.head(entry(raw, i)), entry: Int32(i))
            }
            RadixSort.sort(&items) { $0.prefix }
            var run: [SortItem] = []
            var runStart = 0
            while runStart < items.count {
                var runEnd = runStart + 1
                var ordered = true
                while runEnd < items.count && items[runEnd].prefix == items[runStart].prefix {
                    if ordered && order(raw, items[runEnd - 1].entry, items[runEnd].entry) > 0 {
                        ordered = false
                    }
                    runEnd += 1
                }
                if !ordered {
                    // The run's items keyed by the entries' next 8 bytes instead.
                    run.removeAll(keepingCapacity: true)
                    for item in items[runStart..<runEnd] {
                        run.append(SortItem(prefix: second(raw, item.entry), entry: item.entry))
                    }
                    run.sort {
                        $0.prefix != $1.prefix
                            ? $0.prefix < $1.prefix
                            : Self.compare(raw, $0.entry, $1.entry, self) < 0
                    }
                    for (i, item) in run.enumerated() {
                        items[runStart + i].entry = item.entry
                    }
                }
                runStart = runEnd
            }
            var result = IndexEntries()
            result.ends.reserveCapacity(count)
            result.bytes = [UInt8](unsafeUninitializedCapacity: bytes.count) { out, written in
                var previous: SortItem?
                for item in items {
                    if let previous, previous.prefix == item.prefix,
                        order(raw, previous.entry, item.entry) == 0
                    {
                        continue
                    }
                    let bytes = entry(raw, Int(item.entry))
                    if !bytes.isEmpty {
                        UnsafeMutableRawPointer(out.baseAddress! + written).copyMemory(
                            from: bytes.baseAddress!, byteCount: bytes.count)
                    }
                    written += bytes.count
                    result.ends.append(written)
                    previous = item
                }
            }
            return result
        }
    }

    private struct SortItem {
        var prefix: UInt64
        var entry: Int32
    }

    @inline(__always)
    private func entry(_ raw: UnsafeRawBufferPointer, _ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: raw[start(i)..<ends[i]])
    }

    /// The head (``IndexKey/head(_:)``) of entry `i`'s bytes after its first 8 (0 if none).
    @inline(__always)
    private func second(_ raw: UnsafeRawBufferPointer, _ i: Int32) -> UInt64 {
        let bytes = entry(raw, Int(i))
        return bytes.count > 8 ? IndexKey.head(UnsafeRawBufferPointer(rebasing: bytes[8...])) : 0
    }

    /// The order of entries `a` and `b`, whose heads are equal: by their next 8 bytes, and
    /// whole only when those tie.
    @inline(__always)
    private func order(_ raw: UnsafeRawBufferPointer, _ a: Int32, _ b: Int32) -> Int {
        let (x, y) = (second(raw, a), second(raw, b))
        if x != y { return x < y ? -1 : 1 }
        return Self.compare(raw, a, b, self)
    }

    @inline(__always)
    private static func compare(
        _ raw: UnsafeRawBufferPointer, _ a: Int32, _ b: Int32, _ list: IndexEntries
    ) -> Int {
        IndexBytes.compare(list.entry(raw, Int(a)), list.entry(raw, Int(b)))
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
