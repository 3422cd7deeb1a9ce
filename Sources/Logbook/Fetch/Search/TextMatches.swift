import LogStore

/// The stored objects one search item matches in a text index: their keys ascending, how often
/// the item occurs in each, and each one's length. A value type.
struct ItemMatches {
    var keys: [UInt64] = []
    var frequencies: [Int] = []
    var lengths: [Int] = []

    var count: Int { keys.count }

    /// The matches of `item` (one part, or a phrase) in `index`.
    /// - Throws: ``ByteReader/Truncated`` for a damaged chunk.
    init(_ item: [SearchQuery.Part], in index: TextIndex) throws {
        if item.count == 1 {
            try addPart(item[0], in: index)
            return
        }
        // A phrase: objects holding every part, where the parts stand in a row.
        var parts: [PartPositions] = []
        for part in item {
            let found = try PartPositions(part, in: index)
            if found.keys.isEmpty { return }
            parts.append(found)
        }
        var cursors = [Int](repeating: 0, count: parts.count)
        var starts: [Int] = []
        var others: [Int] = []
        for (i, key) in parts[0].keys.enumerated() {
            var holdsAll = true
            for p in 1..<parts.count {
                while cursors[p] < parts[p].keys.count && parts[p].keys[cursors[p]] < key {
                    cursors[p] += 1
                }
                if cursors[p] == parts[p].keys.count || parts[p].keys[cursors[p]] != key {
                    holdsAll = false
                    break
                }
            }
            guard holdsAll else { continue }
            starts.removeAll(keepingCapacity: true)
            starts.append(contentsOf: parts[0].positions(i))
            for p in 1..<parts.count where !starts.isEmpty {
                others.removeAll(keepingCapacity: true)
                others.append(contentsOf: parts[p].positions(cursors[p]))
                // Both ascending: keep the starts whose part p stands p places on.
                var kept = 0
                var j = 0
                for start in starts {
                    while j < others.count && others[j] < start + p { j += 1 }
                    if j < others.count && others[j] == start + p {
                        starts[kept] = start
                        kept += 1
                    }
                }
                starts.removeLast(starts.count - kept)
            }
            if !starts.isEmpty {
                keys.append(key)
                frequencies.append(starts.count)
                lengths.append(parts[0].lengths[i])
            }
        }
    }

    /// The matches of one term, or of every term a prefix starts, without positions.
    private mutating func addPart(_ part: SearchQuery.Part, in index: TextIndex) throws {
        if !part.isPrefix {
            try part.term.withUnsafeBytes { term in
                try index.withPostings(of: term) { postings in try append(postings) }
            }
            return
        }
        var found: [(key: UInt64, frequency: Int, length: Int)] = []
        var terms = 0
        try part.term.withUnsafeBytes { prefix in
            try index.forEachTerm(withPrefix: prefix) { _, postings in
                terms += 1
                try TextIndexCoding.forEachPosting(postings) { posting in
                    found.append((posting.key, posting.frequency, posting.length))
                    return true
                }
            }
        }
        // One term's postings are in key order already; several are merged.
        if terms > 1 { found.sort { $0.key < $1.key } }
        for match in found {
            if let last = keys.last, last == match.key {
                frequencies[frequencies.count - 1] += match.frequency
            } else {
                keys.append(match.key)
                frequencies.append(match.frequency)
                lengths.append(match.length)
            }
        }
    }

    private mutating func append(_ postings: UnsafeRawBufferPointer) throws {
        let count = try TextIndexCoding.count(postings)
        keys.reserveCapacity(count)
        frequencies.reserveCapacity(count)
        lengths.reserveCapacity(count)
        try TextIndexCoding.forEachPosting(postings) { posting in
            keys.append(posting.key)
            frequencies.append(posting.frequency)
            lengths.append(posting.length)
            return true
        }
    }
}

/// The objects that hold one part of a phrase, with the positions where it stands in each.
private struct PartPositions {
    var keys: [UInt64] = []
    var lengths: [Int] = []
    /// The positions of object i are `positions[ends[i - 1]..<ends[i]]`, ascending.
    var ends: [Int] = []
    var positions: [Int] = []

    func positions(_ i: Int) -> ArraySlice<Int> {
        positions[(i == 0 ? 0 : ends[i - 1])..<ends[i]]
    }

    init(_ part: SearchQuery.Part, in index: TextIndex) throws {
        var found: [(key: UInt64, length: Int, positions: [Int])] = []
        func add(_ postings: UnsafeRawBufferPointer) throws {
            try TextIndexCoding.forEachPosting(postings) { posting in
                var positions: [Int] = []
                try TextIndexCoding.positions(posting.payload, into: &positions)
                found.append((posting.key, posting.length, positions))
                return true
            }
        }
        var terms = 0
        try part.term.withUnsafeBytes { term in
            if part.isPrefix {
                try index.forEachTerm(withPrefix: term) { _, postings in
                    terms += 1
                    try add(postings)
                }
            } else {
                try index.withPostings(of: term) { postings in try add(postings) }
            }
        }
        if terms > 1 { found.sort { $0.key < $1.key } }
        for match in found {
            if let last = keys.last, last == match.key {
                positions.append(contentsOf: match.positions)
                let start = ends.count > 1 ? ends[ends.count - 2] : 0
                positions[start...].sort()
                ends[ends.count - 1] = positions.count
            } else {
                keys.append(match.key)
                lengths.append(match.length)
                positions.append(contentsOf: match.positions)
                ends.append(positions.count)
            }
        }
    }
}
