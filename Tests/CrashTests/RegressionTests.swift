import Foundation
import LogStore
import TestSupport
import Testing

/// One test per anomaly the crash suite found, each named for it.
@Suite struct RegressionTests {
    private static func nextSegmentName(after path: String) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let order = UInt64(name.prefix(16), radix: 16)! + (1 << 16)
        let digits = String(order, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits + ".seg"
    }

    /// A power loss after a new segment's directory entry and size reached the disk but before
    /// its header did leaves zeros (or garbage) where the header should be. The header is synced
    /// before anything is written after it, so such a segment is at most 24 bytes and holds no
    /// commit: a torn tail, not corruption. The store opens with everything, and the bytes cut
    /// are kept.
    @Test(arguments: [false, true])
    func unwrittenHeaderOfNewestSegmentIsATornTail(garbage: Bool) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.segmentSize = 100
        var store = try openStore(path, options: options)
        for i in 0..<4 {
            try store.put([UInt8](repeating: UInt8(i), count: 80), for: b("k\(i)"), in: "a")
        }
        try store.close()
        let next = path + "/" + Self.nextSegmentName(after: segmentFiles(path).last!)
        var rng = SeededGenerator(seed: 7)
        let header = (0..<24).map { _ in garbage ? UInt8.random(in: 0...255, using: &rng) : 0 }
        writeFile(next, header)
        store = try openStore(path, options: options)
        #expect(try store.count(in: "a") == 4)
        #expect(store.recovery.droppedTailBytes == 24)
        #expect(store.recovery.cuts.first.flatMap { $0.keptIn.map(readFile) } == header)
        try store.put(b("v"), for: b("after"), in: "a")
        try store.close()
        store = try openStore(path, options: options)
        #expect(store.recovery.isClean)
        #expect(try store.count(in: "a") == 5)
    }

    /// The same damage is corruption when a valid commit follows the header: that segment held
    /// acknowledged data.
    @Test func damagedHeaderOfNewestSegmentWithCommitsIsCorruption() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try openStore(path)
        try store.put(b("1"), for: b("a"), in: "k")
        try store.close()
        let segment = segmentFiles(path)[0]
        var bytes = readFile(segment)
        for i in 0..<24 { bytes[i] = 0 }
        writeFile(segment, bytes)
        #expect(
            throws: LogStoreError.corruption(
                path: segment, offset: 0, reason: "not a Logbook segment file (bad magic)")
        ) {
            _ = try openStore(path)
        }
    }

    /// Compaction named its output segments after the input with the highest *handle*, not the
    /// highest order. In a second compaction the inputs are an earlier compaction's output (a
    /// high handle, a low order) and a newer ordinary segment, so the outputs replayed before
    /// that segment, and removing "oldest first" went by handle too: a crash after removing the
    /// newer input but not the older one brought a deleted key back.
    @Test func deletedKeyStaysDeletedWhenASecondCompactionIsInterrupted() throws {
        let scratch = ScratchDirectory("regression")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let workload = Workload(name: "compact twice", segmentSize: 200) { d in
            try d.open()
            try d.put("gone", size: 80)  // in the oldest segment
            try d.put("x", size: 80)
            try d.compact()  // its output holds "gone" and has the newest handle
            try d.put("y", size: 80)
            try d.delete("gone")  // the delete lands in a segment newer than that output
            try d.compact()
            try d.close()
        }
        let recording = try Recording(workload, seed: 3, root: root)
        var checked = 0
        recording.forEachCrashPoint { point in
            for (v, variant) in [
                CrashVariant(entries: .kept, data: .kept, seed: 0),
                CrashVariant(entries: .lost, data: .lost, seed: 0),
            ].enumerated() {
                let target = scratch.child("crash-\(point.operations)-\(v)")
                try! FileManager.default.createDirectory(
                    atPath: target, withIntermediateDirectories: false)
                try! point.disk.image(variant).write(to: target)
                let problem = checkRecoveredStore(
                    at: target + "/store", states: recording.states,
                    acknowledged: point.acknowledged, attempted: point.attempted, writeAfter: false)
                #expect(
                    problem == nil,
                    "after \(describe(point.last, root: root)), \(variant): \(problem ?? "")")
                checked += 1
            }
        }
        #expect(checked > 40)
    }

    /// Compaction outputs replay after every segment they replace and before the active one.
    @Test func compactionOutputsAreOrderedAfterEveryInput() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 200
        options.autoCompactionDeadFraction = nil
        let store = try openStore(dir.child("s"), options: options)
        try store.put([UInt8](repeating: 1, count: 150), for: b("a"), in: "k")
        try store.put([UInt8](repeating: 2, count: 150), for: b("b"), in: "k")
        try store.compact()
        try store.put([UInt8](repeating: 3, count: 150), for: b("c"), in: "k")
        let before = Set(segmentFiles(dir.child("s")))
        try store.compact()
        let after = segmentFiles(dir.child("s"))
        let outputs = after.filter { !before.contains($0) }
        let active = after.last!
        #expect(!outputs.isEmpty)
        for output in outputs where output != active {
            for input in before {
                #expect(output > input, "output \(output) sorts before input \(input)")
            }
        }
        try store.close()
    }
}

/// Compaction removed its inputs oldest first but made the removals durable together, with one
/// directory sync: a file system that does not keep directory changes in order could keep the
/// removal of a newer input (holding a delete) and lose that of an older one (holding the put),
/// and the deleted key came back. Each removal must be synced before the next.
@Suite struct CompactionRemovalOrderTests {
    @Test func eachInputRemovalIsDurableBeforeTheNext() throws {
        let scratch = ScratchDirectory("regression")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let recording = try Recording(Workload.compaction, seed: 5, root: root)
        var removalsSinceSync = 0
        var removals = 0
        for event in recording.events {
            switch event {
            case .remove(let path) where path.hasSuffix(".seg"):
                #expect(
                    removalsSinceSync == 0, "\(path) removed before the last removal was synced")
                removalsSinceSync += 1
                removals += 1
            case .syncDirectory:
                removalsSinceSync = 0
            default:
                break
            }
        }
        #expect(removals >= 4)
    }
}

/// Anomalies IOErrorTests found in the writer's handling of failed syncs.
@Suite struct FailedSyncRegressionTests {
    private func open(_ path: String, _ fs: FaultInjectingFileSystem) throws -> LogStore {
        var options = LogStoreOptions()
        options.fileSystem = fs
        options.autoCompactionDeadFraction = nil
        return try openStore(path, options: options)
    }

    /// A `.sync` commit's `fdatasync` failed after a `.buffered` commit; `sync()` then retried
    /// the `fdatasync`, which succeeded (the kernel had cleared the error, perhaps with the
    /// pages), and reported the buffered commit durable.
    @Test func syncAfterAFailedFdatasyncDoesNotAcknowledgeBufferedCommits() throws {
        let dir = ScratchDirectory("regression")
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let store = try open(path, fs)
        try store.put(b("1"), for: b("buffered"), in: "k", durability: .buffered)
        fs.inject(.error(EIO), on: "fdatasync", pathSuffix: ".seg")
        #expect(throws: LogStoreError.self) { try store.put(b("2"), for: b("synced"), in: "k") }
        #expect(throws: LogStoreError.writesDisabled(path: path, cause: EIO)) { try store.sync() }
        try? store.close()
    }

    /// Starting a segment (here for compaction) failed at the new file's `fdatasync`, after the
    /// file was made; the writer went on appending to the old segment. At the next open the
    /// leftover file is the newest segment, which seals the old one — so a crash during any of
    /// those later appends left a torn tail in a sealed segment: corruption, and a store that
    /// does not open. Commits must be refused until the store is reopened.
    @Test func failedSegmentStartRefusesCommitsUntilReopen() throws {
        let dir = ScratchDirectory("regression")
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let store = try open(path, fs)
        try store.put(b("1"), for: b("a"), in: "k")
        fs.inject(.error(EIO), on: "fdatasync", pathSuffix: "0000000000020000.seg")
        #expect(
            throws: LogStoreError.io(
                operation: "fdatasync", path: path + "/0000000000020000.seg", errno: EIO)
        ) {
            try store.compact()
        }
        #expect(throws: LogStoreError.writesDisabled(path: path, cause: EIO)) {
            try store.put(b("2"), for: b("b"), in: "k")
        }
        try? store.close()
        let reopened = try openStore(path)
        #expect(try reopened.get(b("a"), in: "k") == b("1"))
        try reopened.put(b("3"), for: b("c"), in: "k")
        try reopened.close()
    }
}

/// Anomalies in how replay judges frames whose CRC matches.
@Suite struct ChecksummedFrameRegressionTests {
    /// A store of one commit, then `frame` appended to its segment (no hint file).
    private func store(endingWith frame: [UInt8], in dir: ScratchDirectory) throws -> (
        String, String
    ) {
        let path = dir.child("s")
        let store = try openStore(path)
        try store.put([1], for: b("k"), in: "a")
        try store.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: path)
        where name.hasSuffix(".hint") {
            try FileManager.default.removeItem(atPath: path + "/" + name)
        }
        let segment = segmentFiles(path)[0]
        writeFile(segment, readFile(segment) + frame)
        return (path, segment)
    }

    /// A frame whose CRC matches but whose type this version does not know (a newer writer's)
    /// was reported as not checksummed, so at the tail of the newest segment it was cut as a torn
    /// write: a writable open of an old reader silently deleted a newer writer's data. FORMAT.md:
    /// corruption, never cut.
    @Test func unknownFrameTypeIsCorruptionEvenAtTheTail() throws {
        let dir = ScratchDirectory("regression")
        defer { dir.remove() }
        let frame = FrameBuilder.frame(
            type: 6, sequence: 2, payload: FrameBuilder.put(key: b("x"), value: [2]))
        let (path, segment) = try store(endingWith: frame, in: dir)
        let size = readFile(segment).count
        #expect(
            throws: LogStoreError.corruption(
                path: segment, offset: Int64(size - frame.count + 8), reason: "unknown frame type 6"
            )
        ) {
            _ = try openStore(path)
        }
        #expect(readFile(segment).count == size, "the frame was cut")
    }

    /// A commit numbered 2^64-1 (CRC and records valid) made a writable open trap: the writer's
    /// next sequence number overflowed. Sequence numbers over 2^63 are corruption.
    @Test func hugeSequenceNumberIsCorruptionNotATrap() throws {
        let dir = ScratchDirectory("regression")
        defer { dir.remove() }
        for sequence: UInt64 in [.max, .max - 1, (1 << 63) + 1] {
            let frame = FrameBuilder.frame(
                sequence: sequence, payload: FrameBuilder.put(key: b("x"), value: [2]))
            let (path, segment) = try store(endingWith: frame, in: dir)
            let size = readFile(segment).count
            #expect(throws: LogStoreError.self) { _ = try openStore(path) }
            #expect(readFile(segment).count == size, "the frame was cut")
            try FileManager.default.removeItem(atPath: path)
        }
    }
}

/// Found by ThreadSanitizer (`swift test --sanitize=thread`) on ConcurrentPowerLossTests: the
/// group-commit leader set each member's `result` outside the queue's lock while the members,
/// waiting under the lock, read it — a data race on a multi-word value (a member could see a torn
/// `Result`, with a `LogStoreError`'s strings half written). Without the sanitizer this test only
/// checks that every commit gets its own sequence number; run it with `--sanitize=thread`.
@Suite struct GroupCommitRaceRegressionTests {
    @Test func groupCommitMembersReadTheirResultOnlyAfterTheLeaderPublishesIt() throws {
        let dir = ScratchDirectory("regression")
        defer { dir.remove() }
        let store = try openStore(dir.child("s"))
        let threads = 6
        let perThread = 150
        let writers = (0..<threads).map { t in
            BackgroundThread { () -> [UInt64] in
                (0..<perThread).map { n in
                    try! store.put([UInt8(n % 256)], for: Array("t\(t)n\(n)".utf8), in: "k")
                }
            }
        }
        let sequences = writers.flatMap { $0.value() }
        #expect(Set(sequences).count == threads * perThread)
        #expect(sequences.max() == UInt64(threads * perThread))
        try store.close()
    }
}
