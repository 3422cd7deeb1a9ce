import LogStore

/// The terms of one object's searchable fields, with their positions: what the text index holds
/// of it. Fields are added in stored order; the positions of one field follow those of the
/// field before with a gap of one, so a phrase never spans two fields. Its length is its number
/// of terms.
///
/// Reused from object to object (``reset()``), so a scan allocates nothing per object once
/// its buffers are warm. Not thread-safe.
final class TextDocument {
    /// The terms' bytes, back to back.
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    /// Each term in position order: where its bytes are, and its position.
    @exclusivity(unchecked) private var terms: [(start: Int32, count: Int32, position: Int32)] = []
    /// Term indices ordered by bytes, then position (after ``finish()``).
    @exclusivity(unchecked) private var order: [Int32] = []
    /// Scratch of ``forEachTerm(_:)``: the positions of one term.
    @exclusivity(unchecked) private var positions: [Int] = []
    private var next = 0
    private var finished = true

    init() {}

    /// The number of terms.
    var length: Int { terms.count }

    /// Forgets every term.
    func reset() {
        bytes.removeAll(keepingCapacity: true)
        terms.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        next = 0
        finished = true
    }

    /// Adds the terms of one field's text.
    func add(_ text: String) {
        next =
            TextTokenizer.forEachTerm(in: text, from: next) { term, position in
                append(term, position)
            } + 1
        finished = false
    }

    /// Adds the terms of one field's text, given as UTF-8 (as a record holds it).
    func add(utf8: UnsafeRawBufferPointer) {
        next =
            TextTokenizer.forEachTerm(utf8: utf8, from: next) { term, position in
                append(term, position)
            } + 1
        finished = false
    }

    /// Moves past one field without text (a `nil` value), as ``add(_:)`` of "" does.
    func skipField() { next += 1 }

    @inline(__always)
    private func append(_ term: UnsafeRawBufferPointer, _ position: Int) {
        terms.append((Int32(bytes.count), Int32(term.count), Int32(position)))
        bytes.append(contentsOf: term)
    }

    /// Orders the terms by bytes for the calls below.
    private func finish() {
        guard !finished else { return }
        finished = true
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: 0..<Int32(terms.count))
        guard terms.count > 1 else { return }
        bytes.withUnsafeBytes { raw in
            let terms = self.terms
            order.sort { a, b in
                let c = IndexBytes.compare(
                    Self.term(raw, terms[Int(a)]), Self.term(raw, terms[Int(b)]))
                return c != 0 ? c < 0 : terms[Int(a)].position < terms[Int(b)].position
            }
        }
    }

    @inline(__always)
    private static func term(
        _ raw: UnsafeRawBufferPointer, _ t: (start: Int32, count: Int32, position: Int32)
    ) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: raw[Int(t.start)..<Int(t.start + t.count)])
    }

    /// Calls `body` with each distinct term, ascending, and the positions where it stands.
    func forEachTerm(_ body: (UnsafeRawBufferPointer, ArraySlice<Int>) throws -> Void) rethrows {
        finish()
        try bytes.withUnsafeBytes { raw in
            var i = 0
            while i < order.count {
                let first = Self.term(raw, terms[Int(order[i])])
                positions.removeAll(keepingCapacity: true)
                var j = i
                while j < order.count
                    && IndexBytes.compare(Self.term(raw, terms[Int(order[j])]), first) == 0
                {
                    positions.append(Int(terms[Int(order[j])].position))
                    j += 1
                }
                try body(first, positions[...])
                i = j
            }
        }
    }

    /// Appends, for each distinct term, an addition (``TextIndexCoding/appendEdit(term:key:to:)``
    /// and the payload): the postings this object adds to the index.
    func appendEntries(key: UInt64, to entries: inout IndexEntries) {
        forEachTerm { term, positions in
            TextIndexCoding.appendEdit(term: term, key: key, to: &entries.bytes)
            TextIndexCoding.appendPayload(length: length, positions: positions, to: &entries.bytes)
            entries.close()
        }
    }

    /// Appends, for each distinct term, a removal (``TextIndexCoding/appendEdit(term:key:to:)``):
    /// the postings this object takes out of the index.
    func appendKeys(key: UInt64, to entries: inout IndexEntries) {
        forEachTerm { term, _ in
            TextIndexCoding.appendEdit(term: term, key: key, to: &entries.bytes)
            entries.close()
        }
    }

    /// Whether `other` holds the same terms at the same positions.
    func hasSameTerms(as other: TextDocument) -> Bool {
        guard terms.count == other.terms.count, bytes == other.bytes else { return false }
        for (a, b) in zip(terms, other.terms) where a.position != b.position { return false }
        return true
    }

    /// How often `item` (one part, or a phrase) occurs in the object.
    func frequency(of item: [SearchQuery.Part]) -> Int {
        bytes.withUnsafeBytes { raw in
            var count = 0
            for start in terms.indices where start + item.count <= terms.count {
                var matches = true
                for (k, part) in item.enumerated() {
                    let t = terms[start + k]
                    guard Int(t.position) == Int(terms[start].position) + k,
                        Self.matches(Self.term(raw, t), part)
                    else {
                        matches = false
                        break
                    }
                }
                if matches { count += 1 }
            }
            return count
        }
    }

    private static func matches(_ term: UnsafeRawBufferPointer, _ part: SearchQuery.Part) -> Bool {
        part.term.withUnsafeBytes { wanted in
            part.isPrefix
                ? IndexBytes.hasPrefix(term, wanted) : IndexBytes.compare(term, wanted) == 0
        }
    }
}
