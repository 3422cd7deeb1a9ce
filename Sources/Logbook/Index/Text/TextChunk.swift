import LogStore

/// A run of a text index's entries in term order (``TextIndexCoding``): its own bytes, or (for
/// a chunk of a sidecar read at open) bytes of the mapped file, used in place until the chunk
/// first changes. A loaded chunk is checked (its CRC and entry count) before anything reads it;
/// one that fails reports to its ``LoadedChunkCheck`` and stands in as empty until its owner
/// builds the index again from the records.
///
/// Not thread-safe: guarded by the owning index's guard.
final class TextChunk {
    // Unchecked: every access is under the owner's guard (no overlapping accesses).
    @exclusivity(unchecked) private var own: [UInt8]
    @exclusivity(unchecked) private var mapped: UnsafeRawBufferPointer?
    /// For a loaded chunk not checked yet: its recorded CRC, entry count and first term, and
    /// where to report.
    @exclusivity(unchecked) private var pending:
        (crc: UInt32, entries: Int, head: [UInt8], check: LoadedChunkCheck)?
    /// The number of entries (terms).
    private(set) var entryCount: Int

    init(bytes: [UInt8], entryCount: Int) {
        own = bytes
        self.entryCount = entryCount
    }

    /// A chunk over mapped bytes, which must outlive it or its first change, to be checked
    /// against `crc`, `entries` and `head` before its first use.
    init(
        mapped bytes: UnsafeRawBufferPointer, crc: UInt32, entries: Int, head: [UInt8],
        check: LoadedChunkCheck
    ) {
        own = []
        mapped = bytes
        entryCount = entries
        pending = (crc, entries, head, check)
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

    /// Checks a loaded chunk, once: its CRC, and that its entries decode, number as recorded
    /// and start with the recorded head.
    @inline(never)
    private func verify() {
        guard let (crc, entries, head, check) = pending, let bytes = mapped else { return }
        pending = nil
        var problem: String?
        if MappedSidecar.crc32c(bytes) != crc {
            problem = "a text index chunk fails its checksum"
        } else {
            var found = 0
            var first: [UInt8]?
            do {
                try TextIndexCoding.forEachEntry(bytes) { term, postings in
                    _ = try TextIndexCoding.count(postings)
                    if first == nil { first = Array(term) }
                    found += 1
                    return true
                }
                if found != entries || found == 0 {
                    problem = "a text index chunk holds \(found) terms, not \(entries)"
                } else if first != head {
                    problem = "a text index chunk's first term is not its recorded head"
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
