import Foundation
import LogStore
import TestSupport
import Testing

/// One test per log anomaly (FORMAT.md, "Recovery").
@Suite struct RecoveryTests {
    private func reopen(_ path: String, salvage: Bool = false, readOnly: Bool = false) throws
        -> LogStore
    {
        var options = LogStoreOptions()
        options.salvage = salvage
        options.readOnly = readOnly
        return try LogStore(path: path, options: options)
    }

    private func expectCorruption(
        _ path: String, at offset: Int64? = nil, _ comment: Comment? = nil
    ) {
        do {
            _ = try reopen(path)
            Issue.record("open succeeded on a damaged store \(comment?.rawValue ?? "")")
        } catch let LogStoreError.corruption(file, found, _) {
            #expect(file.hasSuffix(".seg"))
            if let offset { #expect(found == offset, comment) }
        } catch {
            Issue.record("wrong error: \(error)")
        }
    }

    @Test func truncatedTrailingFrameIsCut() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        let bytes = readFile(history.newestSegment)[..<(history.sizes[5] - 7)]
        writeFile(history.newestSegment, Array(bytes))
        let store = try reopen(history.path)
        #expect(try CommitHistory.contents(of: store) == history.states[4])
        #expect(store.recovery.droppedTailBytes == Int64(history.sizes[5] - 7 - history.sizes[4]))
        #expect(readFile(history.newestSegment).count == history.sizes[4])
    }

    @Test func truncatedFrameHeaderIsCut() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        let bytes = readFile(history.newestSegment)
        writeFile(history.newestSegment, Array(bytes[..<(history.sizes[4] + 5)]))
        let store = try reopen(history.path)
        #expect(try CommitHistory.contents(of: store) == history.states[4])
        #expect(store.recovery.droppedTailBytes == 5)
    }

    @Test func checksumMismatchAtTailIsCut() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        history.removeCloseMark()
        var bytes = readFile(history.newestSegment)
        bytes[history.sizes[5] - 3] ^= 0x40
        writeFile(history.newestSegment, bytes)
        let store = try reopen(history.path)
        #expect(try CommitHistory.contents(of: store) == history.states[4])
        #expect(store.recovery.droppedTailBytes == Int64(history.sizes[5] - history.sizes[4]))
    }

    @Test func checksumMismatchMidSegmentIsCorruption() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        var bytes = readFile(history.newestSegment)
        bytes[history.sizes[2] + 20] ^= 0x01
        writeFile(history.newestSegment, bytes)
        expectCorruption(history.path, at: Int64(history.sizes[2]))
        // Nothing was cut.
        #expect(readFile(history.newestSegment) == bytes)
    }

    /// A clean close ends the segment with a sync mark, so damage even in its final commit is
    /// known to be damage to durable bytes, not a torn write.
    @Test func damageInTheFinalCommitOfACleanlyClosedStoreIsCorruption() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        var bytes = readFile(history.newestSegment)
        #expect(bytes.count == history.sizes[5] + 25)
        bytes[history.sizes[5] - 3] ^= 0x40
        writeFile(history.newestSegment, bytes)
        expectCorruption(history.path, at: Int64(history.sizes[4]))
        #expect(readFile(history.newestSegment) == bytes)
    }

    @Test func salvageSkipsDamageAndReportsIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5, recordsPerCommit: 1)
        var bytes = readFile(history.newestSegment)
        bytes[history.sizes[2] + 20] ^= 0x01
        writeFile(history.newestSegment, bytes)
        let store = try reopen(history.path, salvage: true)
        #expect(store.recovery.skipped.count == 1)
        #expect(store.recovery.skipped.first?.offset == Int64(history.sizes[2]))
        #expect(store.recovery.skipped.first?.length == Int64(history.sizes[3] - history.sizes[2]))
    }

    @Test func lengthBeyondEndOfFileAtTailIsCut() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        history.removeCloseMark()
        var bytes = readFile(history.newestSegment)
        let lengthField = history.sizes[4] + 4
        bytes.replaceSubrange(lengthField..<lengthField + 4, with: [0xFF, 0xFF, 0xFF, 0x7F])
        writeFile(history.newestSegment, bytes)
        let store = try reopen(history.path)
        #expect(try CommitHistory.contents(of: store) == history.states[4])
    }

    @Test func hugeLengthMidSegmentIsCorruptionNotAnAllocation() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        var bytes = readFile(history.newestSegment)
        let lengthField = history.sizes[1] + 4
        bytes.replaceSubrange(lengthField..<lengthField + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        writeFile(history.newestSegment, bytes)
        expectCorruption(history.path, at: Int64(history.sizes[1]))
    }

    @Test func unknownRecordTypeIsCorruptionEvenAtTheTail() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 3)
        var bytes = readFile(history.newestSegment)
        // Rewrite the last frame's first record op to 9 and fix the frame CRC: a well-formed frame
        // this version does not understand must never be cut away as a torn write.
        let frame = history.sizes[2]
        bytes[frame + 17] = 9
        bytes.replaceSubrange(
            frame..<frame + 4, with: crcBytes(Array(bytes[(frame + 4)..<history.sizes[3]])))
        writeFile(history.newestSegment, bytes)
        expectCorruption(history.path, at: Int64(frame + 17))
    }

    @Test func unknownVersionIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 2)
        var bytes = readFile(history.newestSegment)
        bytes[8] = 4
        resealFileHeader(&bytes)
        writeFile(history.newestSegment, bytes)
        #expect(
            throws: LogStoreError.unsupportedVersion(
                path: history.newestSegment, found: 4, supported: 3)
        ) {
            _ = try reopen(history.path)
        }
    }

    @Test func badMagicIsCorruption() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 2)
        var bytes = readFile(history.newestSegment)
        bytes[0] = UInt8(ascii: "X")
        writeFile(history.newestSegment, bytes)
        expectCorruption(history.path, at: 0)
    }

    /// In a version-2 segment (no zero tail), zeros after the last commit are a torn tail.
    @Test func zeroFilledTailOfAVersionTwoSegmentIsCut() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 4)
        var bytes = readFile(history.newestSegment)
        bytes[8] = 2
        resealFileHeader(&bytes)
        writeFile(history.newestSegment, bytes + [UInt8](repeating: 0, count: 4096))
        let store = try reopen(history.path)
        #expect(try CommitHistory.contents(of: store) == history.states[4])
        #expect(store.recovery.droppedTailBytes == 4096)
    }

    /// In a version-3 segment, zeros from the end of the last commit to the end of the file are
    /// its zero tail (FORMAT.md, "Zero tail"): nothing is dropped, and the next commit goes over
    /// them.
    @Test func zeroFilledTailOfAVersionThreeSegmentIsItsEnd() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 4)
        let size = readFile(history.newestSegment).count
        writeFile(
            history.newestSegment,
            readFile(history.newestSegment) + [UInt8](repeating: 0, count: 4096))
        let store = try reopen(history.path)
        #expect(try CommitHistory.contents(of: store) == history.states[4])
        #expect(store.recovery.isClean && store.recovery.cuts.isEmpty)
        try store.put([7], for: Array("over".utf8), in: "extra")
        #expect(readFile(history.newestSegment).count == size + 4096)
        #expect(readFile(history.newestSegment)[size] != 0)
        try store.close()
    }

    @Test func newestSegmentShorterThanItsHeaderIsATornTailEvenWithAHint() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 512
        let path = dir.child("s")
        do {
            let store = try LogStore(path: path, options: options)
            for i in 0..<20 {
                try store.put([UInt8](repeating: 1, count: 50), for: b("\(i)"), in: "k")
            }
        }
        let newest = segmentFiles(path).last!
        #expect(FileManager.default.fileExists(atPath: String(newest.dropLast(4)) + ".hint"))
        var inNewest = 0
        try LogInspector.walk(storeAt: path) { record in
            if record.kind == .put && path + "/" + record.segment == newest { inNewest += 1 }
        }
        writeFile(newest, Array(readFile(newest).prefix(10)))
        let store = try LogStore(path: path, options: options)
        #expect(store.recovery.droppedTailBytes == 10)
        #expect(try store.count(in: "k") == 20 - inNewest)
    }

    @Test func readOnlyOpenIgnoresATornTailWithoutCuttingIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 4)
        let damaged = Array(readFile(history.newestSegment)[..<(history.sizes[4] - 3)])
        writeFile(history.newestSegment, damaged)
        let store = try reopen(history.path, readOnly: true)
        #expect(try CommitHistory.contents(of: store) == history.states[3])
        #expect(store.recovery.droppedTailBytes > 0)
        #expect(readFile(history.newestSegment) == damaged)
    }

    @Test func damageInASealedSegmentIsCorruptionEvenAtItsEnd() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.segmentSize = 1024
        do {
            let store = try LogStore(path: path, options: options)
            for i in 0..<100 {
                try store.put(
                    [UInt8](repeating: 7, count: 50), for: b("\(i)"), in: "k", durability: .buffered
                )
            }
        }
        let sealed = segmentFiles(path)[0]
        var bytes = readFile(sealed)
        bytes[bytes.count - 2] ^= 0xFF
        writeFile(sealed, bytes)
        expectCorruption(path)
    }

    @Test func truncationAtEveryByteOfTheLastTwoCommitsLandsOnACommit() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 6)
        let original = readFile(history.newestSegment)
        for cut in history.sizes[4]...history.sizes[6] {
            writeFile(history.newestSegment, Array(original[..<cut]))
            let store = try reopen(history.path)
            let expected = cut == history.sizes[6] ? 6 : (cut >= history.sizes[5] ? 5 : 4)
            #expect(
                try CommitHistory.contents(of: store) == history.states[expected], "cut at \(cut)")
            #expect(store.lastSequence == UInt64(expected), "cut at \(cut)")
            try store.close()
        }
    }

    @Test func aLargeBatchCutAnywhereIsAllOrNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let before: Int
        let end: Int
        do {
            let store = try LogStore(path: path)
            try store.put(b("yes"), for: b("before"), in: "k")
            before = readFile(segmentFiles(path)[0]).count
            var batch = WriteBatch()
            for i in 0..<20_000 {
                batch.put([UInt8](repeating: UInt8(i % 256), count: 30), for: b("key\(i)"), in: "k")
            }
            try store.commit(batch)
            end = readFile(segmentFiles(path)[0]).count
        }
        let original = readFile(segmentFiles(path)[0])
        #expect(end - before > 3 * 65_536)  // several frames
        var rng = SeededGenerator(seed: 42)
        var cuts = [before, before + 1, before + 17, before + 65_000, end - 1]
        for _ in 0..<25 { cuts.append(Int.random(in: before..<end, using: &rng)) }
        for cut in cuts {
            writeFile(segmentFiles(path)[0], Array(original[..<cut]))
            let store = try LogStore(path: path)
            #expect(try store.count(in: "k") == 1, "cut at \(cut)")
            #expect(try store.get(b("before"), in: "k") == b("yes"))
            try store.close()
        }
        writeFile(segmentFiles(path)[0], original)
        let store = try LogStore(path: path)
        #expect(try store.count(in: "k") == 20_001)
    }
}
