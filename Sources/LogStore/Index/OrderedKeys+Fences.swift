/// Fences: a sample of `main`'s keys held in memory, so that finding where an iteration starts
/// reads a few keys in the log rather than one per step of a binary search over all of `main`
/// (each a cache miss at a random place of the log: about 20 for a million keys).
extension OrderedKeys {
    /// The first 16 bytes of a key, big-endian in two halves, zero-padded: comparing two of them
    /// orders them as their keys are ordered, except that different keys may tie.
    struct Fence: Comparable {
        var high: UInt64
        var low: UInt64

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        init(_ key: UnsafeRawBufferPointer) {
            var prefix: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &prefix) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: key.prefix(16)))
            }
            high = UInt64(bigEndian: prefix.0)
            low = UInt64(bigEndian: prefix.1)
        }

        @inline(__always)
        static func < (a: Fence, b: Fence) -> Bool {
            a.high < b.high || (a.high == b.high && a.low < b.low)
        }
    }

    /// Entries of `main` per fence: 32 keeps the fences at half a byte a key, and leaves 5 steps
    /// that read keys in the log.
    static let fenceStride = 32

    /// Whether ``buildFences(_:)`` has anything to do.
    var needsFences: Bool { fences.isEmpty && main.count > Self.fenceStride }

    /// Samples `main` into ``fences`` (one key read in the log per ``fenceStride`` entries).
    mutating func buildFences(_ bases: SegmentBases) {
        var built: [Fence] = []
        built.reserveCapacity(main.count / Self.fenceStride + 1)
        main.withUnsafeBufferPointer { main in
            for i in stride(from: 0, to: main.count, by: Self.fenceStride) {
                built.append(Fence(Self.key(main[i], bases)))
            }
        }
        setFences(built)
    }

    /// The first index of `main` whose key is not below `key` (`strictly`: above it), found
    /// first among `fences` (`main`'s, or empty), then by a binary search of the few entries
    /// between two fences.
    static func lowerBound(
        _ main: UnsafeBufferPointer<RecordRef>, _ fences: UnsafeBufferPointer<Fence>,
        _ key: UnsafeRawBufferPointer, strictly: Bool, _ bases: SegmentBases
    ) -> Int {
        guard !fences.isEmpty else {
            return lowerBound(main, 0..<main.count, key, strictly: strictly, bases)
        }
        let target = Fence(key)
        // Fences below `target` sample keys below `key`; fences above it, keys above it.
        var low = 0
        var high = fences.count
        while low < high {
            let middle = (low + high) >> 1
            if fences[middle] < target { low = middle + 1 } else { high = middle }
        }
        let below = low
        high = fences.count
        while low < high {
            let middle = (low + high) >> 1
            if target < fences[middle] { high = middle } else { low = middle + 1 }
        }
        // The answer lies after the last fence below and at or before the first fence above.
        let start = below == 0 ? 0 : (below - 1) * fenceStride + 1
        let end = low == fences.count ? main.count : low * fenceStride
        return lowerBound(main, start..<end, key, strictly: strictly, bases)
    }
}
