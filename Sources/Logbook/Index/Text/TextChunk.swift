import LogStore

/// A run of a text index's entries in term order (``TextIndexCoding``): its own bytes, or (for
/// a chunk of a sidecar read at open) bytes of the mapped file, used in place until the chunk
/// first changes. A loaded chunk is checked (its CRC, entry count and order) before anything
/// reads it;
/// one that fails reports to its ``LoadedChunkCheck`` and stands in as empty until its owner
/// builds the index again from the records.
///
/// Not thread-safe: guarded by the owning index's guard.
final class TextChunk {
    // Unchecked: every access is under the owner's guard (no overlapping accesses).
    @exclusivity(unchecked) private var own: [UInt8]
    @exclusivity(unchecked) private var mapped: UnsafeRawBufferPointer?
    /// For a loaded chunk not checked yet: its recorded CRC, entry count and first term, the
    /// next chunk's first term (`nil` for the last chunk), and where to report.
    @exclusivity(unchecked) private var pending:
        (
            crc: UInt32, entries: Int, head: [UInt8], nextHead: [UInt8]?,
            check: LoadedChunkCheck
        )?
    /// The number of entries (terms).
    private(set) var entryCount: Int

    init(bytes: [UInt8], entryCount: Int) {
        own = bytes
        self.entryCount = entryCount
    }

    /// A chunk over mapped bytes, which must outlive it or its first change, to be checked
    /// against `crc`, `entries`, `head` and the next chunk's head `nextHead` before its first
    /// use.
    init(
        mapped bytes: UnsafeRawBufferPointer, crc: UInt32, entries: Int, head: [UInt8],
        nextHead: [UInt8]?, check: LoadedChunkCheck
    ) {
        own = []
        mapped = bytes
        entryCount = entries
        pending = (crc, entries, head, nextHead, check)
    }

    /// Calls `body` with the chunk's bytes.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if pending != nil { verify() }
        if let mapped { return try body(mapped) }
        return try own.withUnsafeBytes(body)
    }

    /// Bytes the chunk takes in memory (a mapped one as if it were its own).
    var byteCount: Int { mapped?.count ?? own.count }

    /// Checks a loaded chunk, once: its CRC, and that its entries decode, number as recorded,
    /// start with the recorded head and strictly ascend, the last one below the next chunk's
    /// head (a lookup relies on the order: terms out of it, even with every CRC right, would
    /// hide others).
    @inline(never)
    private func verify() {
        guard let (crc, entries, head, nextHead, check) = pending, let bytes = mapped else {
            return
        }
        pending = nil
        var problem: String?
        if MappedSidecar.crc32c(bytes) != crc {
            problem = "a text index chunk fails its checksum"
        } else {
            var found = 0
            var first: [UInt8]?
            var previous: [UInt8] = []
            var ascending = true
            do {
                try TextIndexCoding.forEachEntry(bytes) { term, postings in
                    _ = try TextIndexCoding.count(postings)
                    if first == nil {
                        first = Array(term)
                    } else if previous.withUnsafeBytes({ IndexBytes.compare($0, term) >= 0 }) {
                        ascending = false
                        return false
                    }
                    previous.removeAll(keepingCapacity: true)
                    previous.append(contentsOf: term)
                    found += 1
                    return true
                }
                if !ascending {
                    problem = "a text index chunk's terms are not in order"
                } else if found != entries || found == 0 {
                    problem = "a text index chunk holds \(found) terms, not \(entries)"
                } else if first != head {
                    problem = "a text index chunk's first term is not its recorded head"
                } else if let nextHead,
                    previous.withUnsafeBytes({ p in
                        nextHead.withUnsafeBytes { IndexBytes.compare(p, $0) >= 0 }
                    })
                {
                    problem = "a text index chunk's last term is not below the next chunk's head"
                }
            } catch {
                problem = "a text index chunk does not decode"
            }
        }
        guard let problem else { return }
        if check.problem == nil { check.problem = problem }
        mapped = nil
        own = []
        entryCount = 0
    }

    /// Whether this chunk was loaded and not checked yet.
    var isUnchecked: Bool { pending != nil }

    /// Checks it now if it was loaded and not checked yet.
    func checkNow() { if pending != nil { verify() } }
}
