import Foundation
import TestSupport
import Testing

@testable import LogStore

/// Replays the committed corpora of the `frames` and `hints` fuzz targets (Tests/Fuzz/corpus) on
/// every `swift test`: every input libFuzzer found interesting, or that once broke an invariant,
/// must hold every invariant of its fuzz body (Tests/LogStoreTests/Support/FuzzFrames.swift and
/// FuzzHints.swift).
@Suite struct FuzzDecoderCorpusTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus").path

    private func replay(_ target: String, minimum: Int, _ body: ([UInt8]) -> [String]) throws {
        let directory = Self.corpora + "/" + target
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names.count >= minimum)
        for name in names {
            for problem in body(readFile(directory + "/" + name)) {
                Issue.record("\(target)/\(name): \(problem)")
            }
        }
    }

    @Test func framesTargetCorpusReplaysWithoutFindings() throws {
        try replay("frames", minimum: 10, fuzzFrames)
    }

    @Test func hintsTargetCorpusReplaysWithoutFindings() throws {
        try replay("hints", minimum: 10, fuzzHints)
    }

    /// The seeds as the generator makes them today (the corpus holds them as they were made).
    @Test func seedInputsHoldEveryInvariant() throws {
        let seeds = try FuzzSeeds.make()
        for (name, input) in seeds.frames {
            for problem in fuzzFrames(input) { Issue.record("frames seed \(name): \(problem)") }
        }
        for (name, input) in seeds.hints {
            for problem in fuzzHints(input) { Issue.record("hints seed \(name): \(problem)") }
        }
    }

    /// `LOGBOOK_WRITE_FUZZ_SEEDS=1 swift test --filter writesSeedInputs` (re)writes the seeds into
    /// Tests/Fuzz/corpus/frames and hints, named `seed-…`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LOGBOOK_WRITE_FUZZ_SEEDS"] != nil))
    func writesSeedInputs() throws {
        let seeds = try FuzzSeeds.make()
        for (target, inputs) in [("frames", seeds.frames), ("hints", seeds.hints)] {
            for (name, input) in inputs {
                writeFile(Self.corpora + "/" + target + "/seed-" + name, input)
            }
        }
    }
}

/// Seed inputs for the `frames` and `hints` targets: segments and hints from the library itself
/// and from ``FuzzFixtures/sampleSegment``, whole, torn and damaged, in each input mode.
enum FuzzSeeds {
    static func make() throws -> (frames: [(String, [UInt8])], hints: [(String, [UInt8])]) {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 1024
        options.autoCompactionDeadFraction = nil
        options.durability = .buffered
        // Several sealed segments with hints: single puts and deletes in two keyspaces, batches.
        let small = dir.child("small")
        var store = try LogStore(path: small, options: options)
        for i in 0..<40 {
            let key = Array("k\(i % 13)".utf8)
            if i % 5 == 4 {
                try store.delete(key, in: i % 2 == 0 ? "a" : "b")
            } else {
                try store.put([UInt8](repeating: UInt8(i), count: i * 3), for: key, in: "a")
            }
            if i % 10 == 9 {
                var batch = WriteBatch()
                for j in 0..<6 { batch.put([UInt8(j)], for: Array("batch\(j)".utf8), in: "b") }
                batch.delete(Array("k1".utf8), in: "a")
                try store.commit(batch)
            }
        }
        try store.close()
        let segments = segmentFiles(small)
        // A batch over the 64 KiB frame target: a commit of several frames.
        let large = dir.child("large")
        store = try LogStore(path: large, options: options)
        var batch = WriteBatch()
        for j in 0..<3 {
            batch.put([UInt8](repeating: UInt8(j), count: 30_000), for: [UInt8(j)], in: "big")
        }
        try store.commit(batch)
        try store.close()

        let sample = FuzzFixtures.sampleSegment
        let sampleFrames = Array(sample.dropFirst(FileHeader.size))
        var frames: [(String, [UInt8])] = [
            ("sample-segment", [0] + sample),
            ("sample-frames", [1] + sampleFrames),
            ("sample-frames-resealed", [3] + sampleFrames),
            ("sample-zero-tail", [0] + sample + [UInt8](repeating: 0, count: 40)),
            ("empty-segment", [0] + sample.prefix(FileHeader.size)),
            ("short-header", [0] + sample.prefix(10)),
            ("multi-frame-commit", [0] + readFile(segmentFiles(large)[0])),
        ]
        for (i, path) in segments.prefix(3).enumerated() {
            frames.append(("library-segment-\(i)", [0] + readFile(path)))
        }
        // Torn tails: cut inside a frame header, inside a payload, and inside a multi-frame commit.
        for cut in [30, 60, 150, 300, sample.count - 3] where cut < sample.count {
            frames.append(("sample-torn-at-\(cut)", [0] + sample.prefix(cut)))
        }
        // Damage in the middle (a CRC mismatch with valid commits after it), and a frame whose CRC
        // matches but whose type and records are wrong.
        var flipped = sample
        flipped[FileHeader.size + 20] ^= 0x40
        frames.append(("sample-bit-flip", [0] + flipped))
        var badType = sampleFrames
        badType[8] = 0
        frames.append(("sample-type-zero-resealed", [3] + badType))
        var badRecord = sampleFrames
        badRecord[Frame.headerSize] = 9
        frames.append(("sample-unknown-record-resealed", [3] + badRecord))

        let sampleHint = Hint.build(for: FuzzFixtures.segment(sample))!
        let sampleHintBody = Array(sampleHint.dropFirst(FileHeader.size).dropLast(4))
        let firstSegment = readFile(segments[0])
        let firstFrames = Array(firstSegment.dropFirst(FileHeader.size))
        let firstHint = readFile(segments[0].replacingOccurrences(of: ".seg", with: ".hint"))
        let length = [UInt8(firstFrames.count & 0xFF), UInt8(firstFrames.count >> 8)]
        var hints: [(String, [UInt8])] = [
            ("sample-hint", [0] + sampleHint),
            ("sample-hint-body", [2] + sampleHintBody),
            ("sample-hint-body-sized", [6] + sampleHintBody),
            ("sample-hint-over-sample", [8] + sampleHint),
            ("sample-hint-truncated", [0] + sampleHint.dropLast(7)),
            ("empty-hint", [0]),
            ("library-hint", [1] + length + firstFrames + firstHint),
            ("library-hint-body", [3] + length + firstFrames + firstHint.dropFirst(24).dropLast(4)),
            ("library-hint-against-sample", [0] + firstHint),
        ]
        for (i, path) in segments.dropFirst().prefix(2).enumerated() {
            let hint = readFile(path.replacingOccurrences(of: ".seg", with: ".hint"))
            hints.append(
                ("library-hint-\(i + 1)-body-over-sample", [14] + hint.dropFirst(24).dropLast(4)))
        }
        return (frames, hints)
    }
}
