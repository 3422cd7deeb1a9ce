/// The entries of one index being built from an entity's records, kept as sorted runs: the
/// builder gathers entries into a list and hands it over (``add(_:)``) every ``runEntries``;
/// each list is sorted and packed into chunks, and ``finish()`` merges the runs into the index,
/// letting go of each run's chunks as the merge passes them.
///
/// Memory: the packed runs (about what the finished index takes) plus one list and its sort,
/// whatever the number of records; one sort of every entry would need the whole list, its
/// sort's scratch and a sorted copy of all of them at once.
///
/// A value type; not thread-safe.
struct SortedRuns {
    /// Entries a builder gathers before it hands them over.
    static let runEntries = 1 << 17

    /// The runs so far, each a list of chunks in order.
    private var runs: [[IndexChunk]] = []

    /// Sorts `entries` into a run and empties the list (keeping its capacity for the next).
    mutating func add(_ entries: inout IndexEntries) {
        guard !entries.isEmpty else { return }
        let sorted = entries.sorted()
        entries.bytes.removeAll(keepingCapacity: true)
        entries.ends.removeAll(keepingCapacity: true)
        runs.append(OrderedIndex(sorted: sorted).takeChunks())
    }

    /// The index of every entry gathered.
    /// Invariant: no entry is in two runs (each record is read once, and its entries carry its
    /// primary key).
    mutating func finish() -> OrderedIndex {
        let index = OrderedIndex()
        switch runs.count {
        case 0: break
        case 1: index.appendChunks(runs[0])
        default: merge(into: index)
        }
        runs = []
        return index
    }

    /// Merges the runs into `index`, smallest entry first, by a heap of the runs' next entries.
    private mutating func merge(into index: OrderedIndex) {
        var cursors = runs.map(RunCursor.init)
        runs = []
        var heap = Array(cursors.indices.filter { cursors[$0].load() })
        func less(_ a: Int, _ b: Int) -> Bool {
            cursors[a].withEntry { x in cursors[b].withEntry { y in IndexBytes.compare(x, y) < 0 } }
        }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let left = 2 * i + 1
                guard left < heap.count else { return }
                var smallest = left
                if left + 1 < heap.count && less(heap[left + 1], heap[left]) { smallest = left + 1 }
                guard less(heap[smallest], heap[i]) else { return }
                heap.swapAt(i, smallest)
                i = smallest
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        var merged = IndexEntries()
        merged.bytes.reserveCapacity(OrderedIndex.targetChunkBytes * 2)
        while let top = heap.first {
            cursors[top].withEntry { merged.append($0) }
            if merged.bytes.count >= OrderedIndex.targetChunkBytes {
                index.appendSorted(merged)
                merged = IndexEntries()
            }
            if cursors[top].advance() {
                siftDown(0)
            } else {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
                siftDown(0)
            }
        }
        if !merged.isEmpty { index.appendSorted(merged) }
    }
}

/// Where a merge stands in one run: the chunk it reads (its bytes and ends, held here so the
/// run can drop the chunk) and the entry in it.
private struct RunCursor {
    private var chunks: [IndexChunk]
    private var next = 0
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []
    private var slot = 0

    init(_ chunks: [IndexChunk]) { self.chunks = chunks }

    /// Moves to the next chunk with entries, letting the run go of it; `false` at the end.
    mutating func load() -> Bool {
        while next < chunks.count {
            (bytes, ends) = chunks[next].ownContents
            chunks[next] = IndexChunk()
            next += 1
            slot = 0
            if !ends.isEmpty { return true }
        }
        bytes = []
        ends = []
        return false
    }

    /// Moves to the next entry; `false` at the end of the run.
    mutating func advance() -> Bool {
        slot += 1
        return slot < ends.count || load()
    }

    /// Calls `body` with the current entry.
    @inline(__always)
    func withEntry<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        let start = slot == 0 ? 0 : Int(ends[slot - 1])
        let end = Int(ends[slot])
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }
}
