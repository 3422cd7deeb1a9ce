import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct VerifyTests {
    @Test func cleanStoreExitsZero() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == "verify: OK: 1 segment, 3 commits, 6 records, 196 B, last sequence 3; "
                + "0 errors, 0 warnings\n")
    }

    @Test func tornTailIsAWarningUnlessStrict() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let segment = segmentFiles(path)[0]
        let bytes = readFile(segment)
        // A crash: no closing sync mark (25 bytes), and the last commit loses its end.
        writeFile(segment, Array(bytes.dropLast(25 + 3)))
        let result = try CLI.run(["verify", path])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("warning: \(segment) at offset 139: "))
        #expect(result.stdout.contains("torn tail"))
        // The hint written at close describes the segment before the crash: open ignores it.
        #expect(result.stdout.contains("it describes a segment of another size"))
        #expect(result.stdout.hasSuffix("; 0 errors, 2 warnings\n"))
        let strict = try CLI.run(["verify", "--strict", path])
        #expect(strict.status == 1)
        #expect(strict.stdout.hasPrefix("error: \(segment) at offset 139: "))
        #expect(strict.stdout.contains("verify: DAMAGED"))
    }

    @Test func bitFlipInAnEarlierCommitIsDamageWithFileAndOffset() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let segment = segmentFiles(path)[0]
        var bytes = readFile(segment)
        bytes[72] ^= 0x01  // the second commit's length field
        writeFile(segment, bytes)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("error: \(segment) at offset 67: "))
        #expect(result.stdout.contains("verify: DAMAGED"))
        // Salvage would scan the segment: its hint, which no longer matches it, is ignored.
        #expect(result.stdout.contains("\(segment.dropLast(4)).hint: its segment fails a checksum"))
        #expect(result.stdout.hasSuffix("; 1 error, 1 warning\n"))
    }

    @Test func damagedHeaderIsDamage() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.manySegments(at: path)
        let segment = segmentFiles(path)[0]
        var bytes = readFile(segment)
        bytes[0] = UInt8(ascii: "X")
        writeFile(segment, bytes)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("error: \(segment) at offset 0: "))
    }

    @Test func staleHintIsAWarningUnlessStrict() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.manySegments(at: path)
        let hints = try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { $0.hasSuffix(".hint") }.sorted()
        let hint = try #require(hints.first.map { "\(path)/\($0)" })
        var bytes = readFile(hint)
        bytes[bytes.count - 1] ^= 0xFF  // the hint's CRC
        writeFile(hint, bytes)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 0)
        // A hint is refused whole: its problem names the file, not an offset in it.
        #expect(
            result.stdout.hasPrefix("warning: \(hint): checksum mismatch (open ignores this hint"))
        #expect(result.stdout.hasSuffix("; 0 errors, 1 warning\n"))
        let strict = try CLI.run(["verify", path, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.stdout.hasPrefix("error: \(hint): checksum mismatch"))
        writeFile(dir.child("store/0000000000030001.seg.tmp"), b("half a compaction"))
        let leftover = try CLI.run(["verify", path])
        #expect(leftover.status == 0)
        #expect(
            leftover.stdout.contains(
                "warning: \(path)/0000000000030001.seg.tmp: a file left by an interrupted "))
    }

    @Test func newerFormatVersionCannotBeChecked() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path)
        let segment = segmentFiles(path)[0]
        var bytes = readFile(segment)
        bytes[8] = 4  // formatVersion 4, with its header CRC: a newer format, not damage
        resealFileHeader(&bytes)
        writeFile(segment, bytes)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("format version 4"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func missingStoreCannotBeChecked() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let result = try CLI.run(["verify", dir.child("nothing")])
        #expect(result.status == 2)
        #expect(
            result.stderr == "logbook: no store at \(dir.child("nothing")): no such directory\n")
        writeFile(dir.child("file"), b("not a store"))
        let file = try CLI.run(["verify", dir.child("file")])
        #expect(file.status == 2)
        #expect(file.stderr.contains("is not a store"))
        let empty = try CLI.run(["verify", dir.path])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("holds no segment files"))
    }

    @Test func everyTruncationOfTheNewestSegmentNeverCrashes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let segment = segmentFiles(path)[0]
        let bytes = readFile(segment)
        for length in stride(from: 0, through: bytes.count, by: 7) {
            writeFile(segment, Array(bytes.prefix(length)))
            let result = try CLI.run(["verify", "--quiet", path])
            // Every prefix is a torn tail (below 24 bytes, a torn header), which verify and open
            // treat alike: a warning, never damage.
            #expect(result.status == 0, "length \(length): \(result.stdout) \(result.stderr)")
            let dump = try CLI.run(["dump", path, "--format", "jsonl"])
            #expect(dump.status == 0, "length \(length): \(dump.stderr)")
        }
    }
}

extension VerifyTests {
    /// A flipped version byte fails the header CRC, which is checked first: damage (exit 1),
    /// not a newer format (exit 2).
    @Test func flippedVersionByteIsDamage() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path)
        let segment = segmentFiles(path)[0]
        var bytes = readFile(segment)
        bytes[8] ^= 1
        writeFile(segment, bytes)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 1)
        #expect(
            result.stdout.hasPrefix(
                "error: \(segment) at offset 20: file header checksum mismatch"))
    }

    /// Bytes recovery cut are a warning until discarded; `--discard-cut` removes them.
    @Test func cutBytesAreAWarningUntilDiscarded() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let segment = segmentFiles(path)[0]
        writeFile(segment, Array(readFile(segment).dropLast(25 + 3)))
        let opened = try LogStore(path: path)
        let kept = try #require(opened.recovery.cuts.first?.keptIn)
        try opened.close()
        let result = try CLI.run(["verify", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("warning: \(kept): bytes recovery cut from a torn tail"))
        #expect(try CLI.run(["verify", "--strict", path]).status == 1)
        let discarded = try CLI.run(["verify", "--discard-cut", path])
        #expect(discarded.status == 0)
        #expect(discarded.stdout.hasPrefix("removed \(kept)\n"))
        #expect(discarded.stdout.hasSuffix("; 0 errors, 0 warnings\n"))
        #expect(!FileManager.default.fileExists(atPath: kept))
    }

    /// A random file in the newest segment's place: damage, for verify as for open, and verify
    /// leaves it as it was.
    @Test func randomNewestSegmentIsDamageAndStaysAsItWas() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        var rng = SeededGenerator(seed: testSeed("verify random newest"))
        let random = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let newest = path + "/0000000000020000.seg"
        writeFile(newest, random)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("error: \(newest) at offset 0: "))
        #expect(readFile(newest) == random)
        #expect(throws: LogStoreError.self) { _ = try LogStore(path: path) }
        #expect(readFile(newest) == random)
    }

    @Test func randomDamageNeverCrashesTheTool() throws {
        let seed = testSeed("randomDamageNeverCrashesTheTool")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.manySegments(at: path, commits: 12)
        let files = segmentFiles(path)
        let originals = files.map(readFile)
        for round in 0..<15 {
            for (file, bytes) in zip(files, originals) { writeFile(file, bytes) }
            let victim = Int.random(in: 0..<files.count, using: &rng)
            var bytes = originals[victim]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let offset = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[offset] ^= UInt8.random(in: 1...255, using: &rng)
            }
            writeFile(files[victim], bytes)
            for command in [
                ["verify"], ["dump", "--format", "jsonl"], ["dump", "--live"], ["stats"],
            ] {
                let result = try CLI.run([command[0], path] + command.dropFirst())
                #expect(
                    !result.crashed && [0, 1, 2].contains(result.status),
                    "seed \(seed) round \(round) \(command): status \(result.status) \(result.stderr)"
                )
            }
        }
    }
}
