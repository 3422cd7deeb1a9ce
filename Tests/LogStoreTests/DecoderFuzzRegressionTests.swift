import Foundation
import TestSupport
import Testing

@testable import LogStore

/// One test per finding of the `frames` and `hints` fuzz targets (Tests/Fuzz/README.md), each
/// named for it: the minimised input (kept in Tests/Fuzz/corpus) replayed through its fuzz body,
/// and the same anomaly met through the public API.
@Suite struct DecoderFuzzRegressionTests {
    static let hintsCorpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/hints").path

    private func replayHintInput(_ name: String) {
        let input = readFile(Self.hintsCorpus + "/" + name)
        #expect(!input.isEmpty, "\(name) is missing from the corpus")
        for problem in fuzzHints(input) { Issue.record("\(name): \(problem)") }
    }

    /// A one-segment store holding `k` → `v` in keyspace `k`, closed, so the segment has a hint.
    private func storeWithHint(_ path: String) throws -> (segment: String, hint: String) {
        let store = try LogStore(path: path)
        try store.put(b("v"), for: b("k"), in: "k")
        try store.close()
        let segment = try #require(segmentFiles(path).first)
        let hint = Hint.path(forSegment: segment)
        #expect(FileManager.default.fileExists(atPath: hint))
        return (segment, hint)
    }

    /// Replaces the entries and trailer of the hint at `path` (keeping its header) and recomputes
    /// its CRC, as a forged or miswritten hint would be.
    private func rewriteHint(_ path: String, body: [UInt8]) throws {
        let order = try readFile(path).withUnsafeBytes {
            try FileHeader.decode($0, kind: .hint, path: path).fileOrder
        }
        writeFile(path, FuzzFixtures.sealHint(body, order: order))
    }

    private func trailer(segmentSize: UInt64, lastSequence: UInt64, entries: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(segmentSize)
        bytes.appendLE(lastSequence)
        bytes.appendLE(entries)
        return bytes
    }

    /// `Hint.apply` converted the trailer's segment size (a u64 from the file) to an Int, which
    /// traps for 2^63 and above: a hint with a valid CRC crashed `open` instead of being ignored.
    @Test func hintWithSegmentSizeBeyondIntIsIgnoredNotATrap() throws {
        replayHintInput("crash-hint-segment-size-beyond-int")
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let (_, hint) = try storeWithHint(path)
        try rewriteHint(hint, body: trailer(segmentSize: UInt64.max, lastSequence: 1, entries: 0))
        let store = try LogStore(path: path)
        #expect(try store.get(b("k"), in: "k") == b("v"))
        #expect(store.recovery.notes.contains { $0.contains("another size") })
    }

    /// `Hint.apply` applied a hint's keyspace definitions one by one and only then found one that
    /// conflicts: the hint was refused, but the definitions before the conflict stayed in the
    /// index, so the scan that follows found its own definitions conflicting and `open` failed
    /// with corruption on a good segment.
    @Test func hintWithConflictingDefinitionsLeavesTheIndexAsItWas() throws {
        replayHintInput("crash-hint-conflicting-definitions-left-in-index")
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let (segment, hint) = try storeWithHint(path)
        let define = { (name: String) in
            [RecordOp.defineKeyspace, 1, UInt8(name.utf8.count)] + b(name)
        }
        let size = UInt64(readFile(segment).count)
        try rewriteHint(
            hint,
            body: define("wrong") + define("other")
                + trailer(segmentSize: size, lastSequence: 1, entries: 2))
        let store = try LogStore(path: path)
        #expect(try store.keyspaces() == ["k"])
        #expect(try store.get(b("k"), in: "k") == b("v"))
        #expect(
            store.recovery.notes.contains {
                $0.contains("keyspace 1 is defined as \"other\", but was \"wrong\"")
            })
    }

    /// A record may use longer varints than needed (FORMAT.md allows up to 10 bytes each).
    /// Replay and hints added such a put's shortest size to its segment's live bytes, but a
    /// replaced record subtracts its real size: the statistics drifted, and could go negative.
    @Test func liveBytesCountARecordsRealSizeWhenItsVarintsAreLonger() throws {
        replayHintInput("crash-hint-long-varints-miscount-live-bytes")
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // put, keyspace 1, keyLength 1 in three bytes, valueLength 1, "a", "v": 8 bytes, not 6.
        let longPut: [UInt8] = [RecordOp.put, 1, 0x81, 0x80, 0x00, 1] + b("av")
        let segment =
            FileHeader(kind: .segment, fileOrder: FuzzFixtures.order).encoded()
            + FuzzFixtures.frame(
                .full, sequence: 1,
                records: [
                    FuzzFixtures.record(RecordOp.defineKeyspace, keyspace: 1, key: b("k")), longPut,
                ])
        writeFile(path + "/" + Segment.fileName(order: FuzzFixtures.order), segment)
        var store = try LogStore(path: path)
        #expect(try store.get(b("a"), in: "k") == b("v"))
        #expect(try store.stats().liveBytes == 8)
        try store.put(b("w"), for: b("a"), in: "k")  // replaces it with a 6-byte record
        #expect(try store.stats().liveBytes == 6)
        try store.close()
        // The same through the hint written at close.
        store = try LogStore(path: path)
        #expect(store.recovery.notes.isEmpty)
        #expect(try store.stats().liveBytes == 6)
        try store.close()
    }
}
