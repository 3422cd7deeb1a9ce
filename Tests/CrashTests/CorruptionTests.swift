import Foundation
import LogStore
import TestSupport
import Testing

/// Every single-bit flip of a small store (issue 8, part 4; one bit of each byte in the default
/// tier, all eight in the long one) is detected: opening fails with
/// corruption (naming the damaged file, at or before the flipped byte) or an unsupported
/// version; or the flip is in the sync mark a clean close appends, which recovery cuts as a torn
/// write (it holds no data); or the flip is in a hint file, which is then not trusted. A wrong
/// value is never returned. After a crash (no closing mark), only a flip in the final commit
/// may be cut as a torn tail.
@Suite struct CorruptionTests {
    /// About 2.3 KB: a compaction output, sealed and active segments, hint files, two keyspaces.
    static func buildStore(at path: String, seed: UInt64) throws -> BuiltStore {
        try BuiltStore(path: path, segmentSize: 700, seed: seed, commits: 22, compactAfter: [5]) {
            i, d in
            if i % 5 == 4 {
                return [
                    .delete(keyspace: "a", key: "k\(i - 3)"),
                    .put(keyspace: "b", key: "d\(i)", value: d.value(9)),
                ]
            }
            return (0...(i % 3)).map {
                .put(keyspace: $0 == 1 ? "b" : "a", key: "k\((i + $0) % 7)", value: d.value(20 + i))
            }
        }
    }

    enum Outcome: Hashable, CustomStringConvertible {
        case corruption, unsupportedVersion, intact, finalCommitCut, closeMarkCut

        var description: String {
            switch self {
            case .corruption: "corruption"
            case .unsupportedVersion: "unsupported version"
            case .intact: "intact"
            case .finalCommitCut: "final commit cut"
            case .closeMarkCut: "closing mark cut"
            }
        }
    }

    /// Bits flipped in each byte: every bit in the long tier; in the default tier, one of each
    /// byte's eight, chosen by the seed (so runs cover different bits).
    static let bitsPerByte = TestTier.pick(quick: 1, long: 8)

    @Test func everySingleBitFlipIsDetected() throws {
        let dir = ScratchDirectory("flips")
        defer { dir.remove() }
        let path = dir.child("s")
        let seed = testSeed("bit flips")
        let store = try Self.buildStore(at: path, seed: seed)
        var rng = SeededGenerator(seed: seed ^ 0x5BD1_E995)
        let total = store.files.reduce(0) { $0 + readFile($1).count }
        #expect(total <= 64 << 10)
        #expect(store.files.contains { $0.hasSuffix(".hint") })
        var readOnly = LogStoreOptions()
        readOnly.readOnly = true
        var counts: [Outcome: Int] = [:]
        var flips = 0
        var failures: [String] = []
        let started = Date()
        for file in store.files {
            let original = readFile(file)
            let isHint = file.hasSuffix(".hint")
            let isNewest = file == store.newestSegment
            for offset in 0..<original.count {
                for bit in (0..<8).shuffled(using: &rng).prefix(Self.bitsPerByte) {
                    var bytes = original
                    bytes[offset] ^= 1 << bit
                    writeFile(file, bytes)
                    flips += 1
                    let place =
                        "\(URL(fileURLWithPath: file).lastPathComponent) byte \(offset) bit \(bit)"
                    let outcome: Outcome
                    do {
                        let opened = try LogStore(path: path, options: readOnly)
                        let found = try contents(of: opened)
                        if opened.lastSequence == store.last && found == store.states[store.last] {
                            outcome =
                                opened.recovery.droppedTailBytes == 25 ? .closeMarkCut : .intact
                        } else if opened.lastSequence == store.last - 1
                            && found == store.states[store.last - 1]
                            && opened.recovery.droppedTailBytes > 0
                        {
                            outcome = .finalCommitCut
                        } else {
                            failures.append(
                                "\(place): opened with the wrong contents (sequence \(opened.lastSequence)): "
                                    + describeDifference(found, store.states[store.last]!))
                            continue
                        }
                    } catch LogStoreError.corruption(let damaged, let at, _) {
                        outcome = .corruption
                        // A frame's damage is reported at or before the flipped byte; the
                        // header's at its CRC (it is checked as one piece).
                        let inHeader = offset < 24 && at < 24
                        if damaged != file || (at > Int64(offset) && !inHeader) {
                            failures.append("\(place): corruption reported in \(damaged) at \(at)")
                        }
                    } catch LogStoreError.unsupportedVersion {
                        outcome = .unsupportedVersion
                    } catch {
                        failures.append("\(place): unexpected error \(error)")
                        continue
                    }
                    counts[outcome, default: 0] += 1
                    // Only a hint may be damaged harmlessly; only the closing mark may be cut.
                    switch outcome {
                    case .intact where !isHint:
                        failures.append("\(place): flip not detected")
                    case .finalCommitCut:
                        failures.append("\(place): a commit of a cleanly closed store was cut")
                    case .closeMarkCut where !(isNewest && offset >= original.count - 25):
                        failures.append("\(place): cut as a torn tail outside the closing mark")
                    case .corruption where isHint, .unsupportedVersion where isHint:
                        failures.append("\(place): a damaged hint made the store unusable")
                    default:
                        break
                    }
                }
            }
            writeFile(file, original)
        }
        print(
            "bit flips: \(flips) flips of \(total) bytes in \(store.files.count) files: "
                + counts.sorted { $0.key.description < $1.key.description }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + String(format: ", %.1f s", Date().timeIntervalSince(started)))
        for failure in failures.prefix(10) { Issue.record("\(failure)") }
        #expect(failures.count == 0, "flips mishandled")
    }

    /// Writable opens of flips in the final commit of a store whose writer crashed after it:
    /// the cut lands exactly where the commit (or the sync mark before it) starts, and the store
    /// goes on.
    @Test func flipInTheFinalCommitAfterACrashIsCutExactly() throws {
        let dir = ScratchDirectory("flips")
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try Self.buildStore(at: path, seed: testSeed("final commit flips"))
        store.removeCloseMark()
        let segment = store.newestSegment
        let original = readFile(segment)
        // The final group write: a sync mark (the commit before it was synced), then the commit.
        #expect(original[store.finalCommitStart + 8] == 5)
        let commitStart = store.finalCommitStart + 25
        let hints = store.files.filter { $0.hasSuffix(".hint") }.map { ($0, readFile($0)) }
        var rng = SeededGenerator(seed: 1)
        for offset in store.finalCommitStart..<original.count {
            var bytes = original
            bytes[offset] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            writeFile(segment, bytes)
            for (hint, content) in hints { writeFile(hint, content) }
            let opened = try openStore(path)
            #expect(opened.lastSequence == store.last - 1, "flip at \(offset)")
            #expect(try contents(of: opened) == store.states[store.last - 1]!, "flip at \(offset)")
            #expect(
                readFile(segment).count
                    == (offset < commitStart ? store.finalCommitStart : commitStart),
                "flip at \(offset)")
            try opened.close()
            let again = try openStore(path)
            #expect(again.recovery.isClean)
            try again.close()
            try LogInspector.discardCutFiles(storeAt: path)
        }
    }
}
