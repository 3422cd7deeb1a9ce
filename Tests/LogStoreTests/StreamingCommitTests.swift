import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One atomic commit written in pieces (``StreamingCommit``).
@Suite struct StreamingCommitTests {
    /// `count` puts of `size`-byte values under keys `prefix0`, `prefix1`, … of keyspace "k".
    private func chunk(_ prefix: String, _ range: Range<Int>, size: Int = 40) -> WriteBatch {
        var batch = WriteBatch()
        for i in range {
            batch.put(
                [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: size),
                for: Array("\(prefix)\(i)".utf8), in: "k")
        }
        return batch
    }

    private func options(segmentSize: Int = 64 << 20) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = segmentSize
        options.autoCompactionDeadFraction = nil
        return options
    }

    @Test func streamedCommitIsInvisibleUntilItFinishesThenVisibleWhole() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        try store.put(b("before"), for: b("old"), in: "k")
        let commit = try store.beginCommit()
        #expect(commit.sequence == 2)
        for part in 0..<20 {
            try commit.append(chunk("key", part * 1000..<(part + 1) * 1000))
            // Another thread reads meanwhile: nothing of the commit.
            let seen = DispatchQueue.global().sync {
                (try? store.count(in: "k"), try? store.get(b("key0"), in: "k"), store.lastSequence)
            }
            #expect(seen.0 == 1)
            #expect(seen.1 == nil)
            #expect(seen.2 == 1)
        }
        #expect(commit.operations == 20_000)
        #expect(try commit.finish() == 2)
        #expect(try commit.finish() == 2)
        #expect(try store.count(in: "k") == 20_001)
        #expect(try store.get(b("key19999"), in: "k") == [UInt8](repeating: 0x1F, count: 40))
        #expect(store.lastSequence == 2)
        #expect(try store.put(b("after"), for: b("new"), in: "k") == 3)
        try store.close()
        let reopened = try LogStore(path: path, options: options())
        #expect(reopened.recovery.isClean)
        #expect(try reopened.count(in: "k") == 20_002)
        #expect(reopened.lastSequence == 3)
    }

    @Test func laterPutsOfTheSameKeyWinAcrossChunks() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options())
        let commit = try store.beginCommit()
        var first = WriteBatch()
        first.put(b("1"), for: b("a"), in: "k")
        first.put(b("1"), for: b("b"), in: "k")
        try commit.append(first)
        var second = WriteBatch()
        second.put(b("2"), for: b("a"), in: "k")
        second.delete(b("b"), in: "k")
        second.put(b("x"), for: b("c"), in: "other")
        try commit.append(second)
        try commit.finish()
        #expect(try store.get(b("a"), in: "k") == b("2"))
        #expect(try store.get(b("b"), in: "k") == nil)
        #expect(try store.get(b("c"), in: "other") == b("x"))
        #expect(try store.keyspaces() == ["k", "other"])
    }

    @Test func cancelledStreamLeavesNoTrace() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        try store.put(b("v"), for: b("kept"), in: "k")
        let segment = segmentFiles(path).last!
        let size = readFile(segment).count
        let commit = try store.beginCommit()
        try commit.append(chunk("gone", 0..<5000))
        try commit.append(chunk("gone", 5000..<10000, size: 0))
        commit.cancel()
        commit.cancel()
        #expect(throws: LogStoreError.closed) { try commit.append(chunk("x", 0..<1)) }
        #expect(throws: LogStoreError.closed) { try commit.finish() }
        #expect(readFile(segment).count == size)
        #expect(try store.count(in: "k") == 1)
        #expect(try store.put(b("v"), for: b("next"), in: "k") == 2)
        try store.close()
        let reopened = try LogStore(path: path, options: options())
        #expect(reopened.recovery.isClean)
        #expect(try reopened.keys(in: "k").count == 2)
    }

    @Test func droppingAnUnfinishedStreamCancelsIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options())
        do {
            let commit = try store.beginCommit()
            try commit.append(chunk("gone", 0..<100))
        }
        #expect(try store.put(b("v"), for: b("k"), in: "k") == 1)
        #expect(try store.count(in: "k") == 1)
    }

    @Test func otherCommitsWaitBehindAnOpenStreamInOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options())
        let commit = try store.beginCommit()
        try commit.append(chunk("s", 0..<10))
        let done = DispatchSemaphore(value: 0)
        let sequence = Locked<UInt64?>(nil)
        DispatchQueue.global().async {
            let got = try? store.put(b("w"), for: b("waiting"), in: "k")
            sequence.withLock { $0 = got }
            done.signal()
        }
        // The put is held back while the stream is open.
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(sequence.withLock { $0 } == nil)
        try commit.append(chunk("s", 10..<20))
        #expect(try commit.finish() == 1)
        done.wait()
        #expect(sequence.withLock { $0 } == 2)
        #expect(try store.count(in: "k") == 21)
    }

    @Test func theThreadHoldingAStreamCannotCommitSyncOrCompact() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options())
        let commit = try store.beginCommit()
        let refused = { (error: Error) in
            if case LogStoreError.invalidArgument(let reason) = error {
                return reason.contains("streaming commit")
            }
            return false
        }
        #expect(performing: { try store.put(b("v"), for: b("k"), in: "k") }, throws: refused)
        #expect(performing: { try store.sync() }, throws: refused)
        #expect(performing: { try store.compact() }, throws: refused)
        #expect(performing: { _ = try store.beginCommit() }, throws: refused)
        try commit.append(chunk("s", 0..<3))
        try commit.finish()
        #expect(try store.count(in: "k") == 3)
    }

    @Test func closeCancelsAnOpenStream() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        try store.put(b("v"), for: b("kept"), in: "k")
        let commit = try store.beginCommit()
        try commit.append(chunk("gone", 0..<1000))
        try store.close()
        #expect(throws: LogStoreError.closed) { try commit.finish() }
        #expect(throws: LogStoreError.closed) { _ = try store.beginCommit() }
        let reopened = try LogStore(path: path, options: options())
        #expect(reopened.recovery.isClean)
        #expect(try reopened.count(in: "k") == 1)
    }

    /// A commit is never split across segments: a stream many times the segment size stays in
    /// the segment it began in, and the next commit starts a new one.
    @Test func aStreamLargerThanTheSegmentSizeStaysInOneSegment() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options(segmentSize: 64 << 10))
        try store.put(b("v"), for: b("first"), in: "k")
        let commit = try store.beginCommit()
        for part in 0..<10 { try commit.append(chunk("big", part * 500..<(part + 1) * 500)) }
        try commit.finish()
        #expect(segmentFiles(path).count == 1)
        try store.put(b("v"), for: b("last"), in: "k")
        #expect(segmentFiles(path).count == 2)
        try store.close()
        let reopened = try LogStore(path: path, options: options(segmentSize: 64 << 10))
        #expect(try reopened.count(in: "k") == 5002)
        #expect(reopened.lastSequence == 3)
    }

    @Test func aFailedWriteAbandonsTheWholeStream() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        var options = options()
        options.fileSystem = fs
        let store = try LogStore(path: path, options: options)
        try store.put(b("v"), for: b("kept"), in: "k")
        let commit = try store.beginCommit()
        try commit.append(chunk("gone", 0..<20_000))  // over 1 MiB: some of it is written
        fs.inject(.error(ENOSPC), on: "write", pathSuffix: ".seg")
        #expect(
            throws: LogStoreError.io(operation: "write", path: segmentFiles(path)[0], errno: ENOSPC)
        ) {
            try commit.append(chunk("gone", 20_000..<40_000))
        }
        #expect(throws: LogStoreError.self) { try commit.finish() }
        #expect(try store.count(in: "k") == 1)
        // The store goes on.
        #expect(try store.put(b("v"), for: b("next"), in: "k") == 2)
        try store.close()
        let reopened = try LogStore(path: path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.keys(in: "k").count == 2)
    }

    @Test func anInvalidBatchAbandonsTheStream() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options())
        let commit = try store.beginCommit()
        try commit.append(chunk("gone", 0..<10))
        var bad = WriteBatch()
        bad.put([], for: [UInt8](repeating: 1, count: 70_000), in: "k")
        #expect(throws: LogStoreError.self) { try commit.append(bad) }
        #expect(throws: LogStoreError.self) { try commit.finish() }
        #expect(try store.count(in: "k") == 0)
        #expect(try store.put(b("v"), for: b("k"), in: "k") == 1)
    }

    /// Every cut of the segment inside or after a streamed commit leaves all of it or none.
    @Test func aStreamCutAnywhereIsAllOrNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        try store.put(b("v"), for: b("before"), in: "k")
        let commit = try store.beginCommit()
        for part in 0..<6 { try commit.append(chunk("s", part * 1000..<(part + 1) * 1000)) }
        try commit.finish()
        try store.close()
        let segment = segmentFiles(path)[0]
        let bytes = readFile(segment)
        var rng = SeededGenerator(seed: testSeed("stream cut"))
        for _ in 0..<40 {
            let cut = Int.random(in: 0..<bytes.count, using: &rng)
            let copy = dir.child("copy")
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.createDirectory(
                atPath: copy, withIntermediateDirectories: false)
            writeFile(
                copy + "/" + URL(fileURLWithPath: segment).lastPathComponent,
                Array(bytes.prefix(cut)))
            let reopened = try LogStore(path: copy, options: options())
            let count = try reopened.count(in: "k")
            #expect(count == 0 || count == 1 || count == 6001, "cut at \(cut): \(count) keys")
            try reopened.close()
        }
    }
}
