import Foundation
import LogStore

/// What the checks of loaded chunks found wrong: shared by the chunks of one entity's indexes,
/// so that their owner learns, after a read, that it must build them from the records.
final class LoadedChunkCheck {
    // Unchecked exclusivity: accessed only under the owner's lock, never overlapping.
    @exclusivity(unchecked) var problem: String?
}

/// A run of index entries in order, packed in one byte array, with the end offset of each.
/// The bytes and ends are either the chunk's own arrays, or (for a chunk of a snapshot read
/// at open) a part of the mapped sidecar, used in place until the chunk first changes. A
/// loaded chunk is checked before anything reads it (its count, bytes or entries): a chunk
/// that fails reports to its ``LoadedChunkCheck`` and stands in as one entry with its
/// recorded head, which keeps every invariant reads rely on until the owner replaces it.
final class IndexChunk {
    // Unchecked: every access is under the owning index's guard (no overlapping accesses).
    @exclusivity(unchecked) private var ownBytes: [UInt8]
    /// End offset of each entry in the bytes.
    @exclusivity(unchecked) private var ownEnds: [UInt32]
    /// When set: the bytes and ends in the mapped sidecar (kept alive by the owning index).
    @exclusivity(unchecked) private var mapped:
        (bytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>)?

    init(bytes: [UInt8] = [], ends: [UInt32] = []) {
        ownBytes = bytes
        ownEnds = ends
    }

    /// A chunk over mapped bytes and ends, which must outlive it or its first change, to be
    /// checked against `crc`, `head` and the next chunk's recorded head (`nextHead`, `nil` for
    /// the last chunk) before its first use.
    init(
        mappedBytes: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<UInt32>, crc: UInt32,
        head: UInt64, nextHead: UInt64?, check: LoadedChunkCheck
    ) {
        ownBytes = []
        ownEnds = []
        mapped = (mappedBytes, ends)
        pending = (crc, head, nextHead, check)
    }

    /// For a loaded chunk not checked yet: its recorded CRC and head, the next chunk's recorded
    /// head, and where to report.
    @exclusivity(unchecked) private var pending:
        (crc: UInt32, head: UInt64, nextHead: UInt64?, check: LoadedChunkCheck)?

    var count: Int {
        if pending != nil { verify() }
        return mapped?.ends.count ?? ownEnds.count
    }

    var byteCount: Int {
        if pending != nil { verify() }
        return mapped?.bytes.count ?? ownBytes.count
    }

    /// Calls `body` with the bytes and the end offsets.
    @inline(__always)
    func withStorage<R>(
        _ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<UInt32>) throws -> R
    ) rethrows -> R {
        if pending != nil { verify() }
        if let mapped { return try body(mapped.bytes, mapped.ends) }
        return try ownBytes.withUnsafeBytes { bytes in
            try ownEnds.withUnsafeBufferPointer { try body(bytes, $0) }
        }
    }

    /// Checks a loaded chunk, once: its CRC, that its entry ends rise by at least 9 bytes (one
    /// field and the primary key) and reach its byte count, that the zeros after it are zeros,
    /// that its first entry has the recorded head, and that its entries are in order, the last
    /// one's head not above the next chunk's (searches rely on the order: entries out of it,
    /// even with every CRC right, would hide others from a lookup).
    @inline(never)
    private func verify() {
        guard let (crc, head, nextHead, check) = pending, let (bytes, ends) = mapped else {
            return
        }
        pending = nil
        guard let problem = Self.problem(bytes, ends, crc: crc, head: head, nextHead: nextHead)
        else { return }
        if check.problem == nil { check.problem = problem }
        mapped = nil
        ownBytes = IndexKey.entry(withHead: head)
        ownEnds = [UInt32(ownBytes.count)]
    }

    private static func problem(
        _ bytes: UnsafeRawBufferPointer, _ ends: UnsafeBufferPointer<UInt32>, crc: UInt32,
        head: UInt64, nextHead: UInt64?
    ) -> String? {
        let found = MappedSidecar.crc32c(
            bytes, extending: MappedSidecar.crc32c(UnsafeRawBufferPointer(ends)))
        guard found == crc else { return "a chunk fails its checksum" }
        guard !ends.isEmpty else { return "a chunk is empty" }
        var previous = 0
        for end in ends {
            guard Int(end) >= previous + IndexKey.minimumEntryBytes else {
                return "a chunk has an entry under \(IndexKey.minimumEntryBytes) bytes"
            }
            previous = Int(end)
        }
        guard previous == bytes.count else { return "a chunk's entries do not fill its bytes" }
        // The zeros after the entries, up to a multiple of 4 (inside the mapping).
        for i in 0..<((4 - bytes.count % 4) % 4)
        where bytes.baseAddress!.load(fromByteOffset: bytes.count + i, as: UInt8.self) != 0 {
            return "a chunk is not followed by zeros"
        }
        guard IndexKey.head(entry(bytes, ends, 0)) == head else {
            return "a chunk's first entry is not its recorded head"
        }
        for i in 1..<ends.count
        where IndexBytes.compare(entry(bytes, ends, i - 1), entry(bytes, ends, i)) >= 0 {
            return "a chunk's entries are not in order"
        }
        if let nextHead, IndexKey.head(entry(bytes, ends, ends.count - 1)) > nextHead {
            return "a chunk's last entry sorts after the next chunk's head"
        }
        return nil
    }

    @inline(__always)
    static func start(_ ends: UnsafeBufferPointer<UInt32>, _ i: Int) -> Int {
        i == 0 ? 0 : Int(ends[i - 1])
    }

    /// Entry `i` of `bytes` and `ends`.
    @inline(__always)
    static func entry(
        _ bytes: UnsafeRawBufferPointer, _ ends: UnsafeBufferPointer<UInt32>, _ i: Int
    ) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[start(ends, i)..<Int(ends[i])])
    }

    /// The first slot whose entry is not below `key` (`count` if none).
    func lowerBound(_ key: UnsafeRawBufferPointer) -> Int {
        withStorage { raw, ends in
            // A search of a chunk out of cache would wait for one miss a step (an end, then
            // an entry); loading every line at once makes those misses overlap.
            Self.prefetch(UnsafeRawBufferPointer(ends))
            Self.prefetch(raw)
            var lo = 0
            var hi = ends.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if IndexBytes.compare(Self.entry(raw, ends, mid), key) < 0 {
                    lo = mid + 1
                } else {
                    hi = mid
                }
            }
            return lo
        }
    }

    /// Starts loading every cache line of `bytes`.
    @inline(__always)
    private static func prefetch(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var line = UInt(bitPattern: base) & ~63
        let last = UInt(bitPattern: base + bytes.count - 1)
        while line <= last {
            Prefetch.read(UnsafeRawPointer(bitPattern: line))
            line &+= 64
        }
    }

    @inline(__always)
    func withEntry<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withStorage { raw, ends in try body(Self.entry(raw, ends, i)) }
    }

    /// The bytes and entry ends of a chunk made in memory (not loaded from a sidecar).
    var ownContents: (bytes: [UInt8], ends: [UInt32]) {
        // Invariant: only for chunks a build made (see `SortedRuns`).
        assert(mapped == nil && pending == nil)
        return (ownBytes, ownEnds)
    }

    /// Copies mapped bytes and ends into the chunk's own arrays, before a change.
    @inline(__always)
    private func own() {
        if pending != nil { verify() }
        guard let (bytes, ends) = mapped else { return }
        ownBytes = Array(bytes)
        ownEnds = Array(ends)
        mapped = nil
    }

    func insert(_ entry: UnsafeRawBufferPointer, at slot: Int) {
        own()
        let offset = slot == 0 ? 0 : Int(ownEnds[slot - 1])
        ownBytes.insert(contentsOf: entry, at: offset)
        let n = UInt32(entry.count)
        ownEnds.insert(UInt32(offset) + n, at: slot)
        ownEnds.withUnsafeMutableBufferPointer { ends in
            for i in (slot + 1)..<ends.count { ends[i] += n }
        }
    }

    func remove(at slot: Int) {
        own()
        let (s, e) = (slot == 0 ? 0 : Int(ownEnds[slot - 1]), Int(ownEnds[slot]))
        ownBytes.removeSubrange(s..<e)
        ownEnds.remove(at: slot)
        let n = UInt32(e - s)
        ownEnds.withUnsafeMutableBufferPointer { ends in
            for i in slot..<ends.count { ends[i] -= n }
        }
    }

    /// Moves the entries from `slot` on into a new chunk.
    func split(at slot: Int) -> IndexChunk {
        own()
        let offset = slot == 0 ? 0 : Int(ownEnds[slot - 1])
        let tail = IndexChunk(
            bytes: Array(ownBytes[offset...]), ends: ownEnds[slot...].map { $0 - UInt32(offset) })
        ownBytes.removeSubrange(offset...)
        ownEnds.removeSubrange(slot...)
        return tail
    }

    /// Appends the entries of `next` (which sort after these).
    func append(_ next: IndexChunk) {
        own()
        let base = UInt32(ownBytes.count)
        next.withStorage { bytes, ends in
            ownBytes.append(contentsOf: bytes)
            ownEnds.append(contentsOf: ends.lazy.map { $0 + base })
        }
    }

    /// Bytes the chunk takes once loaded (a mapped chunk as if it were its own).
    var memoryBytes: Int {
        if let mapped { return mapped.bytes.count + mapped.ends.count * 4 + 96 }
        return ownBytes.capacity + ownEnds.capacity * 4 + 96
    }
}

/// An in-memory ordered set of index entries (byte strings compared as ``IndexBytes``): a
/// sorted list of chunks of a few KiB each, found by binary search, so a lookup, an insert or
/// a removal costs O(log n) comparisons and a move of at most one chunk's bytes.
///
/// Not thread-safe: guarded by its owner (``ContainerIndexes``).
final class OrderedIndex {
    // Unchecked exclusivity: every access is under the owner's guard, none overlapping.
    /// The chunks in order; `nil` for a chunk of a loaded snapshot not used yet (made from
    /// `loaded` when first used, so that an open does not make an object per chunk).
    @exclusivity(unchecked) private var slots: [IndexChunk?] = []
    /// Where the chunks of a loaded snapshot lie, while some are not made yet.
    @exclusivity(unchecked) private var loaded: LoadedChunks?
    /// Each chunk's ``IndexKey/head(_:)``, in step with `chunks`: finding a chunk compares these
    /// numbers in one small array, and reads entries only of chunks whose heads tie with the
    /// key's.
    /// Invariant: `heads[c] == head(first entry of chunk(c))`.
    @exclusivity(unchecked) private var heads: [UInt64] = []
    private(set) var count = 0

    /// Chunk size a bulk build aims at, and the size that makes a chunk split.
    static let targetChunkBytes = 4096
    static let maxChunkBytes = 8192

    /// A place between entries: before entry `slot` of chunk `chunk`. The end is
    /// `(slots.count, 0)`; a slot is always below its chunk's count otherwise.
    struct Position: Equatable {
        var chunk: Int
        var slot: Int
    }

    init() {}

    /// An index of `entries`, which must be sorted and distinct.
    init(sorted entries: IndexEntries) {
        append(sorted: entries)
    }

    var start: Position { Position(chunk: 0, slot: 0) }
    var end: Position { Position(chunk: slots.count, slot: 0) }

    /// The chunks, in order (every loaded one made).
    var chunks: [IndexChunk] {
        makeAll()
        return slots.map { $0! }
    }

    /// Chunk `c`, made from the loaded snapshot if it was not yet.
    @inline(__always)
    private func chunk(_ c: Int) -> IndexChunk {
        if let chunk = slots[c] { return chunk }
        return make(c)
    }

    @inline(never)
    private func make(_ c: Int) -> IndexChunk {
        let chunk = loaded!.chunk(c)
        slots[c] = chunk
        return chunk
    }

    /// Makes every chunk not made yet: before the list of chunks changes.
    private func makeAll() {
        guard loaded != nil else { return }
        for c in slots.indices where slots[c] == nil { _ = make(c) }
        loaded = nil
    }

    // MARK: Finding

    /// The position of the first entry not below `key`.
    func lowerBound(_ key: UnsafeRawBufferPointer) -> Position {
        // The last chunk whose first entry is not above `key`: the chunks whose head is below
        // the key's start below it, those whose head is above start above it, and those that
        // tie are compared in full.
        let keyHead = IndexKey.head(key)
        var (lo, hi) = heads.withUnsafeBufferPointer { heads -> (Int, Int) in
            var lo = 0
            var hi = heads.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if heads[mid] < keyHead { lo = mid + 1 } else { hi = mid }
            }
            var end = lo
            hi = heads.count
            while end < hi {
                let mid = (end + hi) / 2
                if heads[mid] <= keyHead { end = mid + 1 } else { hi = mid }
            }
            return (lo, end)
        }
        while lo < hi {
            let mid = (lo + hi) / 2
            if chunk(mid).withEntry(0, { IndexBytes.compare($0, key) }) <= 0 {
                lo = mid + 1
            } else {
                hi = mid
            }
        }
        guard lo > 0 else { return start }
        return normalized(Position(chunk: lo - 1, slot: chunk(lo - 1).lowerBound(key)))
    }

    func lowerBound(_ key: [UInt8]) -> Position {
        key.withUnsafeBytes { lowerBound($0) }
    }

    @inline(__always)
    private func normalized(_ p: Position) -> Position {
        p.chunk < slots.count && p.slot >= chunk(p.chunk).count
            ? Position(chunk: p.chunk + 1, slot: 0) : p
    }

    /// The position after the entry at `p` (which is not the end).
    @inline(__always)
    func position(after p: Position) -> Position {
        normalized(Position(chunk: p.chunk, slot: p.slot + 1))
    }

    /// Whether `entry` is in the index.
    func contains(_ entry: UnsafeRawBufferPointer) -> Bool {
        let p = lowerBound(entry)
        return p != end && chunk(p.chunk).withEntry(p.slot) { IndexBytes.compare($0, entry) == 0 }
    }

    /// Entries from `from` up to (not including) `to`.
    func count(from: Position, to: Position) -> Int {
        guard from.chunk < to.chunk || (from.chunk == to.chunk && from.slot < to.slot) else {
            return 0
        }
        var total = to.slot - from.slot
        for c in from.chunk..<to.chunk { total += chunk(c).count }
        return total
    }

    /// Calls `body` with each entry from `from` up to `to`, ascending, until it returns `false`.
    func forEach(
        from: Position, to: Position, _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) rethrows {
        var c = from.chunk
        var slot = from.slot
        while c < to.chunk || (c == to.chunk && slot < to.slot) {
            let chunk = self.chunk(c)
            let last = c == to.chunk ? to.slot : chunk.count
            let more = try chunk.withStorage { raw, ends -> Bool in
                while slot < last {
                    guard try body(IndexChunk.entry(raw, ends, slot)) else { return false }
                    slot += 1
                }
                return true
            }
            guard more else { return }
            c += 1
            slot = 0
        }
    }

    /// Calls `body` with each entry from `from` up to `to`, descending, until it returns `false`.
    func forEachReversed(
        from: Position, to: Position, _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) rethrows {
        var c = to.chunk
        var slot = to.slot
        while c > from.chunk || (c == from.chunk && slot > from.slot) {
            if slot == 0 {
                c -= 1
                slot = chunk(c).count
                continue
            }
            let chunk = self.chunk(c)
            let first = c == from.chunk ? from.slot : 0
            let more = try chunk.withStorage { raw, ends -> Bool in
                while slot > first {
                    slot -= 1
                    guard try body(IndexChunk.entry(raw, ends, slot)) else { return false }
                }
                return true
            }
            guard more else { return }
        }
    }

    // MARK: Changing

    /// Adds `entry`; `false` if it was there.
    @discardableResult
    func insert(_ entry: UnsafeRawBufferPointer) -> Bool {
        if slots.isEmpty {
            let chunk = IndexChunk()
            chunk.insert(entry, at: 0)
            slots.append(chunk)
            heads.append(IndexKey.head(entry))
            count = 1
            return true
        }
        var p = lowerBound(entry)
        if p != end, chunk(p.chunk).withEntry(p.slot, { IndexBytes.compare($0, entry) == 0 }) {
            return false
        }
        // An entry between two chunks goes at the end of the earlier one.
        if p.slot == 0 && p.chunk > 0 {
            p = Position(chunk: p.chunk - 1, slot: chunk(p.chunk - 1).count)
        }
        let chunk = self.chunk(p.chunk)
        chunk.insert(entry, at: p.slot)
        if p.slot == 0 { heads[p.chunk] = IndexKey.head(entry) }
        count += 1
        if chunk.byteCount > Self.maxChunkBytes && chunk.count > 1 {
            let tail = chunk.split(at: chunk.count / 2)
            makeAll()
            slots.insert(tail, at: p.chunk + 1)
            heads.insert(tail.withEntry(0, IndexKey.head), at: p.chunk + 1)
        }
        return true
    }

    /// Removes `entry`; `false` if it was not there.
    @discardableResult
    func remove(_ entry: UnsafeRawBufferPointer) -> Bool {
        let p = lowerBound(entry)
        guard p != end,
            chunk(p.chunk).withEntry(p.slot, { IndexBytes.compare($0, entry) == 0 })
        else { return false }
        let chunk = self.chunk(p.chunk)
        chunk.remove(at: p.slot)
        count -= 1
        if chunk.count == 0 {
            makeAll()
            slots.remove(at: p.chunk)
            heads.remove(at: p.chunk)
            return true
        }
        if p.slot == 0 { heads[p.chunk] = chunk.withEntry(0, IndexKey.head) }
        if p.chunk + 1 < slots.count,
            chunk.byteCount + self.chunk(p.chunk + 1).byteCount <= Self.targetChunkBytes
        {
            // Two small neighbours become one, so removals do not leave many tiny chunks.
            makeAll()
            let next = slots.remove(at: p.chunk + 1)!
            heads.remove(at: p.chunk + 1)
            chunk.append(next)
        }
        return true
    }

    /// Applies sorted removals and sorted additions at once: one merge pass over the index,
    /// for changes too many to apply one by one.
    func rebuild(removing removals: IndexEntries, adding additions: IndexEntries) {
        let old = chunks
        slots = []
        heads = []
        count = 0
        var merged = IndexEntries()
        merged.bytes.reserveCapacity(Self.targetChunkBytes * 2)
        var r = 0
        var a = 0
        func flush(force: Bool) {
            if merged.bytes.count >= Self.targetChunkBytes || (force && !merged.isEmpty) {
                append(sorted: merged)
                merged = IndexEntries()
            }
        }
        func take(_ entry: UnsafeRawBufferPointer) {
            merged.append(entry)
            flush(force: false)
        }
        removals.bytes.withUnsafeBytes { removed in
            additions.bytes.withUnsafeBytes { added in
                func addition(_ i: Int) -> UnsafeRawBufferPointer {
                    UnsafeRawBufferPointer(rebasing: added[additions.start(i)..<additions.ends[i]])
                }
                func removal(_ i: Int) -> UnsafeRawBufferPointer {
                    UnsafeRawBufferPointer(rebasing: removed[removals.start(i)..<removals.ends[i]])
                }
                for chunk in old {
                    chunk.withStorage { raw, ends in
                        for slot in 0..<ends.count {
                            let entry = IndexChunk.entry(raw, ends, slot)
                            while a < additions.count && IndexBytes.compare(addition(a), entry) < 0
                            {
                                take(addition(a))
                                a += 1
                            }
                            var added = false
                            if a < additions.count && IndexBytes.compare(addition(a), entry) == 0 {
                                a += 1
                                added = true
                            }
                            while r < removals.count && IndexBytes.compare(removal(r), entry) < 0 {
                                r += 1
                            }
                            var removed = false
                            if r < removals.count && IndexBytes.compare(removal(r), entry) == 0 {
                                r += 1
                                removed = true
                            }
                            if added || !removed { take(entry) }
                        }
                    }
                }
                while a < additions.count {
                    take(addition(a))
                    a += 1
                }
            }
        }
        flush(force: true)
    }

    /// Appends sorted entries that all sort after the index's, packed into new chunks.
    func appendSorted(_ entries: IndexEntries) { append(sorted: entries) }

    /// Appends chunks made in memory whose entries are in order and all sort after the index's.
    func appendChunks(_ more: [IndexChunk]) {
        makeAll()
        for chunk in more where chunk.count > 0 {
            slots.append(chunk)
            heads.append(chunk.withEntry(0, IndexKey.head))
            count += chunk.count
        }
    }

    /// Empties the index and returns its chunks, in order.
    func takeChunks() -> [IndexChunk] {
        let taken = chunks
        slots = []
        heads = []
        count = 0
        return taken
    }

    private func append(sorted entries: IndexEntries) {
        makeAll()
        Self.pack(sorted: entries) { chunk in
            slots.append(chunk)
            heads.append(chunk.withEntry(0, IndexKey.head))
            count += chunk.count
        }
    }

    /// Packs sorted entries into chunks of up to ``targetChunkBytes`` (an entry larger than that
    /// gets a chunk of its own), handing each to `body` in order: the chunks an index of them
    /// holds.
    static func pack(sorted entries: IndexEntries, _ body: (IndexChunk) throws -> Void) rethrows {
        guard !entries.isEmpty else { return }
        try entries.bytes.withUnsafeBytes { raw in
            var first = 0
            while first < entries.count {
                let base = entries.start(first)
                var last = first
                while last + 1 < entries.count
                    && entries.ends[last + 1] - base <= Self.targetChunkBytes
                {
                    last += 1
                }
                try body(
                    IndexChunk(
                        bytes: Array(raw[base..<entries.ends[last]]),
                        ends: entries.ends[first...last].map { UInt32($0 - base) }))
                first = last + 1
            }
        }
    }

    // MARK: Loading

    /// An index over chunks of a mapped snapshot, used in place (each made and checked before
    /// its first use); `heads` are as the snapshot records them. `mapping` holds the bytes.
    init(loaded: LoadedChunks, heads: [UInt64], count: Int, mapping: AnyObject) {
        slots = Array(repeating: nil, count: heads.count)
        self.loaded = loaded
        self.heads = heads
        self.count = count
        self.mapping = mapping
    }

    /// The mapped snapshot loaded chunks read (`nil` for an index built from records).
    private var mapping: AnyObject?

    /// Checks every loaded chunk not checked yet (see ``IndexChunk``).
    func checkAll() {
        for c in slots.indices { _ = chunk(c).count }
    }

    /// Takes the contents of `other` (an index built from the records in place of a loaded one
    /// that did not check).
    func replaceContents(with other: OrderedIndex) {
        slots = other.chunks
        loaded = nil
        heads = other.heads
        count = other.count
        mapping = nil
    }

    /// Bytes the index holds.
    var memoryBytes: Int {
        slots.indices.reduce(slots.capacity * 8 + heads.capacity * 8 + 64) { total, c in
            total + (slots[c]?.memoryBytes ?? loaded!.memoryBytes(c))
        }
    }
}
