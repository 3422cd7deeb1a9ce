import Foundation
import LogStore

/// The entries of one index being built from an entity's records, kept as sorted runs: the
/// builder gathers entries into a list and hands it over (``add(_:)``) every ``runEntries``;
/// each list is sorted and packed into chunks, kept in memory or, with a scratch file, written
/// to it. ``finish()`` merges the runs into an index; ``merge(_:)`` hands the merged chunks to
/// a consumer instead (the sidecar writer), so that neither the runs nor the index need be in
/// memory.
///
/// Memory: one list and its sort, plus the runs when they are kept in memory (about what the
/// finished index takes) or a few words per chunk when they are spilled; a merge holds one
/// chunk per run.
///
/// A value type; not thread-safe.
package struct SortedRuns {
    /// Entries a builder gathers before it hands them over.
    static var runEntries: Int { runEntriesOverride ?? 1 << 16 }

    /// A smaller run for the task that sets it, so that tests can make an open merge many
    /// runs without building a store of hundreds of thousands of objects.
    @TaskLocal package static var runEntriesOverride: Int?

    /// The runs so far, each a list of chunks in order (in memory, or where they lie in
    /// `scratch`).
    private var runs: [[RunChunk]] = []
    /// Where runs are spilled (`nil`: kept in memory).
    private let scratch: ScratchFile?
    /// Entries in all runs (distinct: see ``finish()``).
    private(set) var count = 0

    /// Runs kept in memory, or spilled to `scratch`.
    init(spillingTo scratch: ScratchFile? = nil) { self.scratch = scratch }

    /// Sorts `entries` into a run and empties the list (keeping its capacity for the next).
    /// - Throws: ``LogbookError/store(_:)`` if the scratch file cannot be written.
    mutating func add(_ entries: inout IndexEntries) throws {
        guard !entries.isEmpty else { return }
        let sorted = entries.sorted()
        entries.bytes.removeAll(keepingCapacity: true)
        entries.ends.removeAll(keepingCapacity: true)
        count += sorted.count
        var run: [RunChunk] = []
        if let scratch {
            // The run's chunks are laid out in one buffer and written with one call.
            var data: [UInt8] = []
            data.reserveCapacity(sorted.bytes.count + sorted.count * 4 + (1 << 12))
            let base = scratch.size
            OrderedIndex.pack(sorted: sorted) { chunk in
                let (bytes, ends) = chunk.ownContents
                let offset = base + Int64(data.count)
                for end in ends { data.appendLE(end) }
                data.append(contentsOf: bytes)
                run.append(.spilled(offset: offset, entries: ends.count, bytes: bytes.count))
            }
            try wrapStoreErrors { try data.withUnsafeBytes { _ = try scratch.append($0) } }
        } else {
            OrderedIndex.pack(sorted: sorted) { run.append(.resident($0)) }
        }
        runs.append(run)
    }

    /// The index of every entry gathered.
    /// Invariant: no entry is in two runs (each record is read once, and its entries carry its
    /// primary key).
    /// - Throws: ``LogbookError/store(_:)`` if a spilled run cannot be read back.
    mutating func finish() throws -> OrderedIndex {
        let index = OrderedIndex()
        var merged: [IndexChunk] = []
        try merge { merged.append($0) }
        index.appendChunks(merged)
        return index
    }

    /// Hands the chunks of the index of every entry gathered to `body`, in order: the chunks
    /// ``finish()`` gives the index. The runs are let go of as the merge passes them.
    /// - Throws: ``LogbookError/store(_:)`` if a spilled run cannot be read back; what `body`
    ///   throws.
    mutating func merge(_ body: (IndexChunk) throws -> Void) throws {
        let taken = runs
        runs = []
        switch taken.count {
        case 0: return
        case 1:
            var cursor = RunCursor(taken[0], scratch: scratch)
            while let chunk = try cursor.nextChunk() { try body(chunk) }
        default:
            try merge(taken, body)
        }
    }

    /// Merges `taken` (two runs or more), smallest entry first, by a heap of the runs' next
    /// entries, packing the result as an index would (``OrderedIndex/appendSorted(_:)``).
    private func merge(_ taken: [[RunChunk]], _ body: (IndexChunk) throws -> Void) throws {
        var cursors = taken.map { RunCursor($0, scratch: scratch) }
        var heap: [Int] = []
        for i in cursors.indices where try cursors[i].load() { heap.append(i) }
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
                try OrderedIndex.pack(sorted: merged, body)
                merged = IndexEntries()
            }
            if try cursors[top].advance() {
                siftDown(0)
            } else {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
                siftDown(0)
            }
        }
        try OrderedIndex.pack(sorted: merged, body)
    }
}

/// One chunk of a run: in memory, or where ``SortedRuns`` wrote it in its scratch file (the
/// entry ends as little-endian `u32`s, then the entries' bytes).
private enum RunChunk {
    case resident(IndexChunk)
    case spilled(offset: Int64, entries: Int, bytes: Int)
}

/// Where a merge stands in one run: the chunk it reads (its bytes and ends, held here so the
/// run can drop the chunk, or read back from the scratch file) and the entry in it.
private struct RunCursor {
    private var chunks: [RunChunk]
    private let scratch: ScratchFile?
    private var next = 0
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []
    private var slot = 0
    /// Where a spilled chunk is read into.
    private var buffer: [UInt8] = []

    init(_ chunks: [RunChunk], scratch: ScratchFile?) {
        self.chunks = chunks
        self.scratch = scratch
    }

    /// Moves to the next chunk with entries, letting the run go of it; `false` at the end.
    mutating func load() throws -> Bool {
        while next < chunks.count {
            try read(chunks[next])
            chunks[next] = .spilled(offset: 0, entries: 0, bytes: 0)
            next += 1
            slot = 0
            if !ends.isEmpty { return true }
        }
        bytes = []
        ends = []
        return false
    }

    /// The next chunk whole (for a run merged with no other), or `nil` at the end.
    mutating func nextChunk() throws -> IndexChunk? {
        guard next < chunks.count else { return nil }
        defer {
            chunks[next] = .spilled(offset: 0, entries: 0, bytes: 0)
            next += 1
        }
        if case .resident(let chunk) = chunks[next] { return chunk }
        try read(chunks[next])
        return IndexChunk(bytes: bytes, ends: ends)
    }

    private mutating func read(_ chunk: RunChunk) throws {
        switch chunk {
        case .resident(let chunk):
            (bytes, ends) = chunk.ownContents
        case .spilled(let offset, let entries, let byteCount):
            // Invariant: spilled chunks come with the scratch file they were written to.
            let scratch = scratch!
            // One read of the ends and the bytes.
            let endBytes = entries * 4
            if buffer.count < endBytes + byteCount {
                buffer = [UInt8](repeating: 0, count: endBytes + byteCount)
            }
            try wrapStoreErrors {
                try buffer.withUnsafeMutableBytes {
                    try scratch.read(
                        into: UnsafeMutableRawBufferPointer(
                            rebasing: $0[0..<(endBytes + byteCount)]),
                        at: offset)
                }
            }
            buffer.withUnsafeBytes { raw in
                ends = (0..<entries).map { raw.loadLE(at: $0 * 4, as: UInt32.self) }
                bytes = Array(raw[endBytes..<(endBytes + byteCount)])
            }
        }
    }

    /// Moves to the next entry; `false` at the end of the run.
    mutating func advance() throws -> Bool {
        slot += 1
        return try slot < ends.count || load()
    }

    /// Calls `body` with the current entry.
    @inline(__always)
    func withEntry<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        let start = slot == 0 ? 0 : Int(ends[slot - 1])
        let end = Int(ends[slot])
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }
}
