import LogStore

/// The full-text index of one entity: for each term its objects in primary-key order, with
/// each object's length and the term's positions in it (``TextIndexCoding``), in chunks of a
/// few KiB sorted by term and found by binary search on their first terms. Also the entity's
/// object count and total length, which ranking needs.
///
/// A term lookup costs O(log chunks) comparisons and a walk of one chunk; applying a commit
/// rewrites only the chunks whose terms it changes.
///
/// Not thread-safe: guarded by its owner (``ContainerIndexes``).
final class TextIndex {
    // Unchecked exclusivity: every access is under the owner's guard, none overlapping.
    @exclusivity(unchecked) private(set) var chunks: [TextChunk] = []
    /// The first term of each chunk, in step with `chunks`.
    /// Invariant: `heads[c]` is the first term of `chunks[c]` as written (a loaded chunk that
    /// failed its check keeps its head and holds nothing).
    @exclusivity(unchecked) private(set) var heads: [[UInt8]] = []
    /// The entity's stored objects, whether or not they hold a term.
    var documentCount = 0
    /// The terms of all of them (the sum of their lengths).
    var tokenCount = 0
    /// The mapped sidecar loaded chunks read (`nil` for an index built from records).
    private var mapping: AnyObject?

    /// The size a chunk is cut at when entries are written.
    static let targetChunkBytes = 4096

    init() {}

    /// An index over loaded chunks (each checked before its first use).
    init(
        loaded: [TextChunk], heads: [[UInt8]], documents: Int, tokens: Int, mapping: AnyObject
    ) {
        chunks = loaded
        self.heads = heads
        documentCount = documents
        tokenCount = tokens
        self.mapping = mapping
    }

    /// The number of distinct terms.
    var termCount: Int { chunks.reduce(0) { $0 + $1.entryCount } }

    /// Bytes the index takes.
    var memoryBytes: Int {
        chunks.reduce(chunks.capacity * 8 + 64) { $0 + $1.byteCount + 64 }
            + heads.reduce(heads.capacity * 8) { $0 + $1.count + 32 }
    }

    // MARK: Reading

    /// The chunk whose terms would hold `term`: the last whose head is not above it (0 when
    /// every head is); `nil` for an empty index.
    private func chunkIndex(for term: UnsafeRawBufferPointer) -> Int? {
        guard !chunks.isEmpty else { return nil }
        var lo = 0
        var hi = heads.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if heads[mid].withUnsafeBytes({ IndexBytes.compare($0, term) }) <= 0 {
                lo = mid + 1
            } else {
                hi = mid
            }
        }
        return max(lo - 1, 0)
    }

    /// Calls `body` with the postings of `term`, or not at all when no object holds it.
    /// - Throws: ``ByteReader/Truncated`` for a damaged chunk, and what `body` throws.
    func withPostings(
        of term: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let c = chunkIndex(for: term) else { return }
        try chunks[c].withBytes { bytes in
            try TextIndexCoding.forEachEntry(bytes) { entry, postings in
                let order = IndexBytes.compare(entry, term)
                if order == 0 { try body(postings) }
                return order < 0
            }
        }
    }

    /// Calls `body` with each term that starts with `prefix`, ascending, and its postings.
    /// - Throws: ``ByteReader/Truncated`` for a damaged chunk, and what `body` throws.
    func forEachTerm(
        withPrefix prefix: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard var c = chunkIndex(for: prefix) else { return }
        var more = true
        while more && c < chunks.count {
            try chunks[c].withBytes { bytes in
                try TextIndexCoding.forEachEntry(bytes) { term, postings in
                    if IndexBytes.hasPrefix(term, prefix) {
                        try body(term, postings)
                    } else if IndexBytes.compare(term, prefix) > 0 {
                        more = false
                        return false
                    }
                    return true
                }
            }
            c += 1
        }
    }

    /// Calls `body` with every term and its postings, ascending.
    /// - Throws: ``ByteReader/Truncated`` for a damaged chunk, and what `body` throws.
    func forEachEntry(
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        for chunk in chunks {
            try chunk.withBytes { bytes in
                try TextIndexCoding.forEachEntry(bytes) { term, postings in
                    try body(term, postings)
                    return true
                }
            }
        }
    }

    /// Checks every loaded chunk not checked yet.
    func checkAll() {
        for chunk in chunks { chunk.checkNow() }
    }

    // MARK: Changing

    /// Applies a commit's postings: `removals` and `additions` (edits as
    /// ``TextIndexCoding/appendEdit(term:key:to:)`` writes them, ``TextDocument``), each sorted
    /// and distinct. A removal and an addition of the same term and key replace the posting.
    /// Only the chunks that hold the changed terms are rewritten.
    /// - Throws: ``ByteReader/Truncated`` if a chunk it rewrites does not decode (then the
    ///   index is left as it was).
    func apply(removals: IndexEntries, additions: IndexEntries) throws {
        try removals.bytes.withUnsafeBytes { removed in
            try additions.bytes.withUnsafeBytes { added in
                try apply(
                    TermEdits(
                        removals: (removed, removals.ends), additions: (added, additions.ends)))
            }
        }
    }

    private func apply(_ edits: TermEdits) throws {
        guard !edits.isEmpty else { return }
        var newChunks: [TextChunk] = []
        var newHeads: [[UInt8]] = []
        newChunks.reserveCapacity(chunks.count + 1)
        newHeads.reserveCapacity(chunks.count + 1)
        var writer = ChunkWriter()
        var e = 0
        for c in chunks.indices {
            // The edits whose terms sort before the next chunk's head are this chunk's.
            var end = e
            if c + 1 < chunks.count {
                heads[c + 1].withUnsafeBytes { next in
                    while end < edits.count && IndexBytes.compare(edits.term(end), next) < 0 {
                        end += 1
                    }
                }
            } else {
                end = edits.count
            }
            guard end > e else {
                writer.flush(into: &newChunks, &newHeads)
                newChunks.append(chunks[c])
                newHeads.append(heads[c])
                continue
            }
            try chunks[c].withBytes { bytes in
                try merge(bytes, edits, e..<end, into: &writer, &newChunks, &newHeads)
            }
            e = end
        }
        if chunks.isEmpty {
            try merge(
                UnsafeRawBufferPointer(start: nil, count: 0), edits, 0..<edits.count,
                into: &writer, &newChunks, &newHeads)
        }
        writer.flush(into: &newChunks, &newHeads)
        chunks = newChunks
        heads = newHeads
    }

    /// Writes the entries of `chunk` with `edits[range]` applied.
    private func merge(
        _ chunk: UnsafeRawBufferPointer, _ edits: TermEdits, _ range: Range<Int>,
        into writer: inout ChunkWriter, _ newChunks: inout [TextChunk], _ newHeads: inout [[UInt8]]
    ) throws {
        var e = range.lowerBound
        var scratch: [UInt8] = []
        var body: [UInt8] = []
        func writeEdited(_ term: UnsafeRawBufferPointer, _ postings: UnsafeRawBufferPointer?)
            throws
        {
            scratch.removeAll(keepingCapacity: true)
            if try edits.apply(e, to: postings, into: &scratch, scratch: &body) {
                scratch.withUnsafeBytes { writer.append(term, $0, &newChunks, &newHeads) }
            }
            e += 1
        }
        try TextIndexCoding.forEachEntry(chunk) { term, postings in
            while e < range.upperBound && IndexBytes.compare(edits.term(e), term) < 0 {
                try writeEdited(edits.term(e), nil)
            }
            if e < range.upperBound && IndexBytes.compare(edits.term(e), term) == 0 {
                try writeEdited(term, postings)
            } else {
                writer.append(term, postings, &newChunks, &newHeads)
            }
            return true
        }
        while e < range.upperBound { try writeEdited(edits.term(e), nil) }
    }
}

/// Entries written one after the other into chunks of about ``TextIndex/targetChunkBytes``.
private struct ChunkWriter {
    var bytes: [UInt8] = []
    var count = 0
    var head: [UInt8] = []
    var previous: [UInt8] = []

    mutating func append(
        _ term: UnsafeRawBufferPointer, _ postings: UnsafeRawBufferPointer,
        _ chunks: inout [TextChunk], _ heads: inout [[UInt8]]
    ) {
        if bytes.count >= TextIndex.targetChunkBytes { flush(into: &chunks, &heads) }
        if count == 0 {
            head = Array(term)
            previous.removeAll(keepingCapacity: true)
        }
        previous.withUnsafeBytes { previous in
            TextIndexCoding.appendEntry(
                term: term, previous: previous, postings: postings, to: &bytes)
        }
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: term)
        count += 1
    }

    mutating func flush(into chunks: inout [TextChunk], _ heads: inout [[UInt8]]) {
        guard count > 0 else { return }
        chunks.append(TextChunk(bytes: bytes, entryCount: count))
        heads.append(head)
        bytes = []
        bytes.reserveCapacity(TextIndex.targetChunkBytes + 512)
        count = 0
    }
}

/// A commit's removals and additions grouped by term: for each changed term, ascending, the
/// keys it loses and the postings it gains. Over the bytes of the two entry lists, so it lives
/// only inside their `withUnsafeBytes` calls.
private struct TermEdits {
    typealias Entries = (bytes: UnsafeRawBufferPointer, ends: [Int])
    /// Per term: its length, and its entries in `removals` and `additions`.
    private var groups: [(termLength: Int, removed: Range<Int>, added: Range<Int>)] = []
    private let removals: Entries
    private let additions: Entries

    init(removals: Entries, additions: Entries) {
        self.removals = removals
        self.additions = additions
        var r = 0
        var a = 0
        let (rc, ac) = (removals.ends.count, additions.ends.count)
        groups.reserveCapacity(max(rc, ac))
        while r < rc || a < ac {
            let order: Int
            if r == rc {
                order = 1
            } else if a == ac {
                order = -1
            } else {
                order = IndexBytes.compare(Self.term(removals, r), Self.term(additions, a))
            }
            let (startR, startA) = (r, a)
            let term = order <= 0 ? Self.term(removals, r) : Self.term(additions, a)
            if order <= 0 {
                while r < rc && IndexBytes.compare(Self.term(removals, r), term) == 0 { r += 1 }
            }
            if order >= 0 {
                while a < ac && IndexBytes.compare(Self.term(additions, a), term) == 0 { a += 1 }
            }
            groups.append((term.count, startR..<r, startA..<a))
        }
    }

    var count: Int { groups.count }
    var isEmpty: Bool { groups.isEmpty }

    /// The term of group `g`.
    func term(_ g: Int) -> UnsafeRawBufferPointer {
        let group = groups[g]
        let whole =
            group.removed.isEmpty
            ? Self.entry(additions, group.added.lowerBound)
            : Self.entry(removals, group.removed.lowerBound)
        return UnsafeRawBufferPointer(rebasing: whole[0..<group.termLength])
    }

    @inline(__always)
    private static func entry(_ entries: Entries, _ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
            rebasing: entries.bytes[(i == 0 ? 0 : entries.ends[i - 1])..<entries.ends[i]])
    }

    /// The term of entry `i`.
    private static func term(_ entries: Entries, _ i: Int) -> UnsafeRawBufferPointer {
        let whole = entry(entries, i)
        return UnsafeRawBufferPointer(
            rebasing: whole[0..<TextIndexCoding.editTermLength(whole)])
    }

    /// The key of entry `i`, whose term has `termLength` bytes.
    @inline(__always)
    private static func key(_ entries: Entries, _ i: Int, termLength: Int) -> UInt64 {
        TextIndexCoding.editKey(entry(entries, i), termLength: termLength)
    }

    /// Writes `postings` (`nil`: none) with group `g`'s edits applied into `out`; returns
    /// `false` (and writes nothing) when no posting is left.
    /// - Throws: ``ByteReader/Truncated`` for postings that do not decode.
    func apply(
        _ g: Int, to postings: UnsafeRawBufferPointer?, into out: inout [UInt8],
        scratch body: inout [UInt8]
    ) throws -> Bool {
        let group = groups[g]
        let termLength = group.termLength
        body.removeAll(keepingCapacity: true)
        var count = 0
        var previous: UInt64 = 0
        var r = group.removed.lowerBound
        var a = group.added.lowerBound
        @inline(__always) func addedKey() -> UInt64 {
            Self.key(additions, a, termLength: termLength)
        }
        @inline(__always) func emitAdded() {
            let key = addedKey()
            TextIndexCoding.appendPosting(
                key: key, previousKey: previous,
                payload: TextIndexCoding.editPayload(
                    Self.entry(additions, a), termLength: termLength),
                to: &body)
            previous = key
            count += 1
            a += 1
        }
        if let postings {
            try TextIndexCoding.forEachPosting(postings) { posting in
                while a < group.added.upperBound && addedKey() < posting.key { emitAdded() }
                while r < group.removed.upperBound
                    && Self.key(removals, r, termLength: termLength) < posting.key
                {
                    r += 1
                }
                let isRemoved =
                    r < group.removed.upperBound
                    && Self.key(removals, r, termLength: termLength) == posting.key
                if a < group.added.upperBound && addedKey() == posting.key {
                    emitAdded()
                } else if !isRemoved {
                    TextIndexCoding.appendPosting(
                        key: posting.key, previousKey: previous, payload: posting.payload,
                        to: &body)
                    previous = posting.key
                    count += 1
                }
                return true
            }
        }
        while a < group.added.upperBound { emitAdded() }
        guard count > 0 else { return false }
        Varint.append(UInt64(count), to: &out)
        out.append(contentsOf: body)
        return true
    }
}
