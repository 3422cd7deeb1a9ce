import LogStore

/// The bytes of a text index's chunks (FORMAT.md Part 2, "Text index sidecar"), the same in
/// memory and in the sidecar:
///
/// ```
/// chunk    := entry…                       // terms ascending (bytes compared unsigned)
/// entry    := shared: varint,              // bytes the term shares with the one before (0 first)
///             suffixLength: varint, suffix: [suffixLength]u8,
///             postingsLength: varint, postings
/// postings := count: varint, posting[count] // objects ascending by primary key, count ≥ 1
/// posting  := keyDelta: varint,            // the primary key minus the one before (the key first)
///             payload
/// payload  := length: varint,              // the object's terms, over all its searchable fields
///             positionCount: varint,       // ≥ 1: how often the term occurs in it
///             positionDelta: varint[positionCount]   // ascending; the first is the position
/// ```
/// Readers check every length against the bytes left and throw ``ByteReader/Truncated`` on
/// anything else, so a damaged chunk is an error, never a crash.
enum TextIndexCoding {
    /// Appends an entry for `term` (after `previous`, the term of the entry before it in the
    /// chunk; empty for the first) with its postings.
    static func appendEntry(
        term: UnsafeRawBufferPointer, previous: UnsafeRawBufferPointer,
        postings: UnsafeRawBufferPointer, to chunk: inout [UInt8]
    ) {
        var shared = 0
        let limit = min(term.count, previous.count)
        while shared < limit && term[shared] == previous[shared] { shared += 1 }
        Varint.append(UInt64(shared), to: &chunk)
        Varint.append(UInt64(term.count - shared), to: &chunk)
        chunk.append(contentsOf: UnsafeRawBufferPointer(rebasing: term[shared...]))
        Varint.append(UInt64(postings.count), to: &chunk)
        chunk.append(contentsOf: postings)
    }

    /// Calls `body` with each entry's term and postings, in order, until it returns `false`.
    /// - Throws: ``ByteReader/Truncated`` for bytes that are not entries.
    static func forEachEntry(
        _ chunk: UnsafeRawBufferPointer,
        _ body: (_ term: UnsafeRawBufferPointer, _ postings: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var r = ByteReader(chunk)
        var term: [UInt8] = []
        term.reserveCapacity(32)
        while !r.isAtEnd {
            let shared = try r.varint()
            guard shared <= UInt64(term.count) else { throw ByteReader.Truncated() }
            term.removeSubrange(Int(shared)...)
            let suffix = try r.lengthPrefixed()
            // An empty suffix would repeat the term or go back: terms ascend.
            guard term.count + suffix.count <= TextTokenizer.maxTermBytes, !suffix.isEmpty else {
                throw ByteReader.Truncated()
            }
            term.append(contentsOf: suffix)
            let postings = try r.lengthPrefixed()
            let more = try term.withUnsafeBytes { try body($0, postings) }
            if !more { return }
        }
    }

    /// Appends a posting: the key (after `previousKey`, 0 for the first) and its payload.
    @inline(__always)
    static func appendPosting(
        key: UInt64, previousKey: UInt64, payload: UnsafeRawBufferPointer, to out: inout [UInt8]
    ) {
        Varint.append(key &- previousKey, to: &out)
        out.append(contentsOf: payload)
    }

    /// Appends a payload: the object's length and the term's positions in it (ascending).
    static func appendPayload(length: Int, positions: some Collection<Int>, to out: inout [UInt8]) {
        Varint.append(UInt64(length), to: &out)
        Varint.append(UInt64(positions.count), to: &out)
        var previous = 0
        for position in positions {
            Varint.append(UInt64(position - previous), to: &out)
            previous = position
        }
    }

    /// One posting as read: the object's key, its length, how often the term occurs in it,
    /// and its payload's bytes (for ``positions(_:)`` or to copy).
    struct Posting {
        var key: UInt64
        var length: Int
        var frequency: Int
        var payload: UnsafeRawBufferPointer
    }

    /// Calls `body` with each posting of `postings`, in key order, until it returns `false`.
    /// - Throws: ``ByteReader/Truncated`` for bytes that are not postings (keys not ascending,
    ///   a count of 0, positions not ascending, bytes left over).
    @inline(__always)
    static func forEachPosting(
        _ postings: UnsafeRawBufferPointer, _ body: (Posting) throws -> Bool
    ) throws {
        var r = ByteReader(postings)
        let count = try r.varint()
        guard count >= 1, count <= UInt64(postings.count) else { throw ByteReader.Truncated() }
        var key: UInt64 = 0
        for i in 0..<count {
            let delta = try r.varint()
            guard i == 0 || delta > 0 else { throw ByteReader.Truncated() }
            let (sum, overflow) = key.addingReportingOverflow(delta)
            guard !overflow else { throw ByteReader.Truncated() }
            key = sum
            let start = r.offset
            let length = try r.varint()
            let frequency = try r.varint()
            guard frequency >= 1, frequency <= UInt64(postings.count) else {
                throw ByteReader.Truncated()
            }
            for _ in 0..<frequency { _ = try r.varint() }
            guard length <= UInt64(Int32.max) else { throw ByteReader.Truncated() }
            let payload = UnsafeRawBufferPointer(rebasing: postings[start..<r.offset])
            guard
                try body(
                    Posting(
                        key: key, length: Int(length), frequency: Int(frequency), payload: payload))
            else { return }
        }
        guard r.isAtEnd else { throw ByteReader.Truncated() }
    }

    /// The number of postings in `postings` (the term's document frequency).
    /// - Throws: ``ByteReader/Truncated``.
    static func count(_ postings: UnsafeRawBufferPointer) throws -> Int {
        var r = ByteReader(postings)
        let count = try r.varint()
        guard count >= 1, count <= UInt64(postings.count) else { throw ByteReader.Truncated() }
        return Int(count)
    }

    /// The positions a payload holds, ascending.
    /// - Throws: ``ByteReader/Truncated``.
    static func positions(_ payload: UnsafeRawBufferPointer, into out: inout [Int]) throws {
        var r = ByteReader(payload)
        _ = try r.varint()
        let count = try r.varint()
        var position: UInt64 = 0
        for i in 0..<count {
            let delta = try r.varint()
            guard i == 0 || delta > 0, delta <= UInt64(Int32.max) else {
                throw ByteReader.Truncated()
            }
            position += delta
            guard position <= UInt64(Int32.max) else { throw ByteReader.Truncated() }
            out.append(Int(position))
        }
    }

    // MARK: Edits

    // A commit's changes to the postings, before they reach the chunks, are entries of an
    // ``IndexEntries`` list, in memory only: `term 0x00 key` (a posting taken out) or
    // `term 0x00 key payload` (one added, the payload as ``appendPayload(length:positions:to:)``
    // writes it), the key a `u64` big-endian so that a term's edits sort by key. Terms hold no
    // 0x00.

    /// Appends an edit's `term 0x00 key`; an addition's payload follows.
    @inline(__always)
    static func appendEdit(term: UnsafeRawBufferPointer, key: UInt64, to out: inout [UInt8]) {
        out.append(contentsOf: term)
        out.append(0)
        IndexKey.appendPrimaryKey(key, to: &out)
    }

    /// The number of bytes of an edit's term: those before its 0x00.
    @inline(__always)
    static func editTermLength(_ edit: UnsafeRawBufferPointer) -> Int {
        var end = 0
        while end < edit.count && edit[end] != 0 { end += 1 }
        return end
    }

    /// The key of an edit whose term has `termLength` bytes.
    @inline(__always)
    static func editKey(_ edit: UnsafeRawBufferPointer, termLength: Int) -> UInt64 {
        UInt64(bigEndian: edit.loadUnaligned(fromByteOffset: termLength + 1, as: UInt64.self))
    }

    /// The payload of an addition whose term has `termLength` bytes.
    @inline(__always)
    static func editPayload(_ edit: UnsafeRawBufferPointer, termLength: Int)
        -> UnsafeRawBufferPointer
    {
        UnsafeRawBufferPointer(rebasing: edit[(termLength + 9)...])
    }
}
