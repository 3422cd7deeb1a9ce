import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// The text sidecar's chunks (FORMAT.md Part 2, "Text index sidecar") as a test forging one
/// sees them: where each chunk's bytes and summary record are, its terms, and how to make every
/// CRC right again after a change.
struct TextSidecarLayout {
    /// File offset of the snapshot (after the sidecar file's header).
    static let contents = 32
    struct Chunk {
        /// File range of its bytes.
        var bytes: Range<Int>
        /// File offset of its recorded CRC in the summary.
        var crc: Int
        /// Per entry: its term, the file offset of its suffix and the bytes it shares with the
        /// term before.
        var terms: [(term: [UInt8], suffix: Int, shared: Int)]
    }
    var chunks: [Chunk] = []
    var summary: Range<Int> = 0..<0

    init(_ bytes: [UInt8]) throws {
        let c = Self.contents
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        summary = (c + u64(c + 8))..<(c + u64(c + 8) + u64(c + 16))
        var p = summary.lowerBound
        func varint() -> Int { Self.varint(bytes, &p) }
        func skipString() { p += varint() }
        var data = c + TextIndexSnapshot.headerSize
        _ = varint()
        for _ in 0..<varint() {
            skipString()
            for _ in 0..<varint() { skipString() }
            _ = varint()
            _ = varint()
            for _ in 0..<varint() {
                let count = varint()
                _ = varint()
                var chunk = Chunk(bytes: data..<(data + count), crc: p, terms: [])
                p += 4
                skipString()
                Self.readTerms(bytes, &chunk)
                chunks.append(chunk)
                data += count
            }
        }
    }

    private static func readTerms(_ bytes: [UInt8], _ chunk: inout Chunk) {
        var q = chunk.bytes.lowerBound
        func varint() -> Int { Self.varint(bytes, &q) }
        var term: [UInt8] = []
        while q < chunk.bytes.upperBound {
            let shared = varint()
            let length = varint()
            term = Array(term.prefix(shared)) + bytes[q..<(q + length)]
            chunk.terms.append((term, q, shared))
            q += length
            q += varint()
        }
    }

    /// The varint at `p` of `bytes`, `p` moved past it.
    private static func varint(_ bytes: [UInt8], _ p: inout Int) -> Int {
        var value = 0
        var shift = 0
        while true {
            let byte = bytes[p]
            p += 1
            value |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// Makes every CRC of `bytes` right: each chunk's, the summary's and the file's.
    func reseal(_ bytes: inout [UInt8]) {
        func crc(_ range: Range<Int>, extending start: UInt32 = 0) -> UInt32 {
            bytes.withUnsafeBytes {
                MappedSidecar.crc32c(UnsafeRawBufferPointer(rebasing: $0[range]), extending: start)
            }
        }
        func store(_ value: UInt32, at: Int) {
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        for chunk in chunks { store(crc(chunk.bytes), at: chunk.crc) }
        let c = Self.contents
        store(crc(summary, extending: crc(c + 8..<c + 32)), at: c + 4)
        store(crc(0..<20), at: 20)
        store(crc(24..<bytes.count - 4), at: bytes.count - 4)
    }
}

/// Forged text sidecars (every CRC right) whose terms are out of order: the check before a
/// chunk's first use finds them, so a search is answered from a rebuilt index, not one that
/// misses terms.
@Suite struct TextSidecarOrderTests {
    /// A closed store of articles with many random words (so that the text index has many
    /// chunks): its sidecar's bytes, and each article's words.
    private func closedStore(_ fixture: LogbookFixture) throws -> ([UInt8], [[String]]) {
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        var rng = SeededGenerator(seed: 39)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var bodies: [[String]] = []
        for i in 0..<900 {
            let words = (0..<10).map { _ in
                String((0..<7).map { _ in letters.randomElement(using: &rng)! })
            }
            bodies.append(words)
            context.insert(SearchArticle("t\(i)", body: words.joined(separator: " ")))
        }
        try context.save()
        try container.close()
        return (readFile(fixture.url.path + "/logbook-text.sidecar"), bodies)
    }

    private func count(_ container: ModelContainer, _ term: [UInt8]) throws -> Int {
        try ModelContext(container).searchMatches(
            SearchDescriptor<SearchArticle>(String(decoding: term, as: UTF8.self))
        ).count
    }

    @Test func aChunkWhoseLastTermSortsAfterTheNextHeadFailsItsCheck() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var (bytes, bodies) = try closedStore(fixture)
        let layout = try TextSidecarLayout(bytes)
        #expect(layout.chunks.count > 4)
        // A chunk's last term raised at the first byte it does not share with the next
        // chunk's head, a byte it stores (not one shared with the term before): still after
        // the term before it, now after the next head.
        var forged: (term: [UInt8], at: Int)?
        for (c, chunk) in layout.chunks.enumerated().dropLast() {
            let last = chunk.terms[chunk.terms.count - 1]
            let next = layout.chunks[c + 1].terms[0].term
            let common = zip(last.term, next).prefix { $0 == $1 }.count
            if chunk.terms.count > 1 && common >= last.shared && common < last.term.count {
                forged = (last.term, last.suffix + common - last.shared)
                break
            }
        }
        let (term, at) = try #require(forged)
        bytes[at] = 0xFE
        try expectRebuilt(fixture, bytes, layout, bodies, term, "not below the next chunk's head")
    }

    /// Opens the store with the forged sidecar `bytes` (resealed): a search of `term` finds
    /// what `bodies` say, the note says `problem`, and the index agrees with the records.
    private func expectRebuilt(
        _ fixture: LogbookFixture, _ bytes: [UInt8], _ layout: TextSidecarLayout,
        _ bodies: [[String]], _ term: [UInt8], _ problem: String
    ) throws {
        let wanted = bodies.filter { $0.contains(String(decoding: term, as: UTF8.self)) }.count
        #expect(wanted > 0)
        var bytes = bytes
        layout.reseal(&bytes)
        writeFile(fixture.url.path + "/logbook-text.sidecar", bytes)
        let container = try fixture.open([SearchArticle.self])
        defer { try? container.close() }
        #expect(try count(container, term) == wanted)
        let note = container.textIndexSidecarNote ?? ""
        #expect(note.contains(problem), "\(note)")
        #expect(try container.textIndexProblems().isEmpty)
    }

    @Test func termsOutOfOrderInAChunkFailItsCheck() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var (bytes, bodies) = try closedStore(fixture)
        let layout = try TextSidecarLayout(bytes)
        // A term lowered at its first stored byte, below the term before it.
        let chunk = layout.chunks[1]
        let t = try #require(
            chunk.terms.indices.dropFirst().first {
                chunk.terms[$0 - 1].term.count > chunk.terms[$0].shared
            })
        bytes[chunk.terms[t].suffix] = 0x01
        try expectRebuilt(
            fixture, bytes, layout, bodies, chunk.terms[t].term, "terms are not in order")
    }
}
