import Foundation
import Synchronization
import TestSupport
import Testing

@testable import LogStore

/// A store opened read-only lists its directory while the writer may compact: the files it
/// listed may be removed and replaced while it replays them, however long that takes (FORMAT.md,
/// "Readers in other processes").
@Suite struct ReaderListingTests {
    private func options(readOnly: Bool = false) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.autoCompactionDeadFraction = nil
        options.readOnly = readOnly
        return options
    }

    /// The writer commits and compacts each time the reader maps a segment, so a compaction
    /// outlasts every replay and every refresh that replays: a reader that replays first and
    /// then lists again to see whether anything moved never finds a listing that holds (it
    /// gave up with `EAGAIN`, or met a removed file). Its reads are the writer's state all along.
    @Test func aReplayOutlastedByEveryCompactionStillOpensAndRefreshes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("reader listing"))
        var model: [String: [UInt8]] = [:]
        let writer = try LogStore(path: dir.child("s"), options: options())
        try randomWrites(writer, 300, keys: 100, maxValue: 80, rng: &rng, model: &model)
        _ = try writer.compact()
        // Sealed segments with hints, compaction outputs, and commits in the newest segment.
        try randomWrites(writer, 100, keys: 100, maxValue: 80, rng: &rng, model: &model)
        let churn = Churn(writer)
        var readerOptions = options(readOnly: true)
        readerOptions.fileSystem = HookedFileSystem(beforeMappingSegment: { try churn.step() })
        churn.enabled.store(true, ordering: .relaxed)
        let reader = try LogStore(path: dir.child("s"), options: readerOptions)
        #expect(churn.compactions.load(ordering: .relaxed) > 0)
        #expect(try CommitHistory.contents(of: reader) == model)

        // Commits compacted away before the reader looks: the refresh replays the directory.
        try randomWrites(writer, 300, keys: 100, maxValue: 80, rng: &rng, model: &model)
        _ = try writer.compact()
        let compactions = churn.compactions.load(ordering: .relaxed)
        let report = try reader.refresh()
        #expect(report.reloaded)
        #expect(churn.compactions.load(ordering: .relaxed) > compactions)
        #expect(try CommitHistory.contents(of: reader) == model)

        churn.enabled.store(false, ordering: .relaxed)
        #expect(try reader.refresh().lastSequence == writer.lastSequence)
        #expect(try CommitHistory.contents(of: reader) == model)
        #expect(try reader.get(Array("n".utf8), in: "churn") != nil)
        try reader.close()
        try writer.close()
    }
}

extension ReaderListingTests {
    /// A read-only replay that opens hints by name (the rebuild after a key directory file fails
    /// a check later, which replays segments it already holds) may find a listed hint removed
    /// by a compaction: it scans that segment instead of failing.
    @Test func aHintRemovedUnderAReadOnlyReplayIsScannedInstead() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("reader hint removed"))
        var model: [String: [UInt8]] = [:]
        let writer = try LogStore(path: dir.child("s"), options: options())
        try randomWrites(writer, 300, keys: 100, maxValue: 80, rng: &rng, model: &model)
        let last = writer.lastSequence
        try writer.close()
        // Replay from the segments and their hints, not from the index the close saved.
        try? FileManager.default.removeItem(atPath: dir.child("s/keys.dir"))
        let hints = try FileManager.default.contentsOfDirectory(atPath: dir.child("s"))
            .filter { $0.hasSuffix(".hint") }.sorted()
        try #require(hints.count >= 2)
        // Mapping a segment takes the next segment's hint away, as a compaction would.
        let mapped = Atomic<Int>(0)
        var readerOptions = options(readOnly: true)
        readerOptions.fileSystem = HookedFileSystem(beforeMappingSegment: {
            let next = mapped.add(1, ordering: .relaxed).newValue
            if next < hints.count {
                try? FileManager.default.removeItem(atPath: dir.child("s/" + hints[next]))
            }
        })
        var replay = Replay(path: dir.child("s"), options: readerOptions)
        let opened = try replay.run()
        #expect(opened.state.lastSequence == last)
        #expect(opened.report.notes.filter { $0.contains("was removed") }.count == hints.count - 1)
    }
}

/// Another commit (to keyspace `churn`, which the tests' model leaves out) and a compaction, each
/// time ``step()`` runs while ``enabled``.
private final class Churn: Sendable {
    let enabled = Atomic<Bool>(false)
    let compactions = Atomic<Int>(0)
    private let writer: LogStore

    init(_ writer: LogStore) { self.writer = writer }

    func step() throws {
        guard enabled.load(ordering: .relaxed) else { return }
        let n = compactions.add(1, ordering: .relaxed).newValue
        try writer.put(Array("\(n)".utf8), for: Array("n".utf8), in: "churn")
        _ = try writer.compact()
    }
}
