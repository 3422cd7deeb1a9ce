import Foundation
import LogStore
import TestSupport
import Testing

/// `LogStore.refresh()`: a store opened read-only takes in what its writer committed since, each
/// commit whole, across segment rolls and compactions.
@Suite struct RefreshTests {
    private func options(readOnly: Bool = false, segmentSize: Int = 4096) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = segmentSize
        options.autoCompactionDeadFraction = nil
        options.readOnly = readOnly
        return options
    }

    private func write(
        _ store: LogStore, _ operations: Int, rng: inout SeededGenerator,
        model: inout [String: [UInt8]]
    ) throws {
        try randomWrites(store, operations, keys: 100, maxValue: 80, rng: &rng, model: &model)
    }

    @Test func aReaderSeesNewCommitsAfterARefresh() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("refresh"))
        var model: [String: [UInt8]] = [:]
        let writer = try LogStore(path: dir.child("s"), options: options())
        try write(writer, 50, rng: &rng, model: &model)
        let reader = try LogStore(path: dir.child("s"), options: options(readOnly: true))
        #expect(try CommitHistory.contents(of: reader) == model)
        for round in 0..<30 {
            let before = model
            try write(writer, Int.random(in: 0..<40, using: &rng), rng: &rng, model: &model)
            #expect(try CommitHistory.contents(of: reader) == before, "round \(round)")
            let report = try reader.refresh()
            #expect(!report.reloaded)
            #expect(report.lastSequence == writer.lastSequence)
            #expect(try CommitHistory.contents(of: reader) == model, "round \(round)")
        }
        // Nothing new: nothing to do.
        #expect(try reader.refresh().commits == 0)
        try reader.close()
        try writer.close()
    }

    /// With segments large enough that none rolls between two looks, every commit a compaction
    /// takes in was in a segment the reader holds open, so it never reloads; with small ones,
    /// segments written and compacted away between two looks make it reload, still exact.
    @Test(arguments: [4096, 1 << 20])
    func aReaderFollowsItsWriterThroughCompactions(segmentSize: Int) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("refresh compaction"))
        var model: [String: [UInt8]] = [:]
        let writer = try LogStore(path: dir.child("s"), options: options(segmentSize: segmentSize))
        try write(writer, 300, rng: &rng, model: &model)
        let reader = try LogStore(
            path: dir.child("s"), options: options(readOnly: true, segmentSize: segmentSize))
        var reloads = 0
        for round in 0..<20 {
            try write(writer, Int.random(in: 1..<60, using: &rng), rng: &rng, model: &model)
            if round % 3 == 0 { _ = try writer.compact() }
            try write(writer, Int.random(in: 0..<20, using: &rng), rng: &rng, model: &model)
            let report = try reader.refresh()
            if report.reloaded { reloads += 1 }
            #expect(report.lastSequence == writer.lastSequence, "round \(round)")
            #expect(try CommitHistory.contents(of: reader) == model, "round \(round)")
            // Caught up: it reads the writer's segments now, not the removed ones.
            #expect(try reader.stats().segments == (try writer.stats().segments), "round \(round)")
        }
        // Random rounds need not write a whole segment between two looks (seed
        // 14329176633727290006 did not): a last round that rolls several and compacts them
        // away before the reader looks makes sure the small case reloads at least once.
        try write(writer, 400, rng: &rng, model: &model)
        _ = try writer.compact()
        if try reader.refresh().reloaded { reloads += 1 }
        #expect(try CommitHistory.contents(of: reader) == model)
        #expect(segmentSize == 4096 ? reloads > 0 : reloads == 0)
        try reader.close()
        try writer.close()
    }

    /// Commits compacted away before the reader saw them: it rebuilds its index from the
    /// directory and says so.
    @Test func commitsCompactedAwayUnseenMakeTheReaderReload() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("refresh reload"))
        var model: [String: [UInt8]] = [:]
        let writer = try LogStore(path: dir.child("s"), options: options())
        try write(writer, 100, rng: &rng, model: &model)
        let reader = try LogStore(path: dir.child("s"), options: options(readOnly: true))
        // Several segments written and compacted away before the reader looks.
        try write(writer, 400, rng: &rng, model: &model)
        _ = try writer.compact()
        let report = try reader.refresh()
        #expect(report.reloaded)
        #expect(try CommitHistory.contents(of: reader) == model)
        try write(writer, 10, rng: &rng, model: &model)
        #expect(!(try reader.refresh().reloaded))
        #expect(try CommitHistory.contents(of: reader) == model)
        try reader.close()
        try writer.close()
    }

    /// A commit whose bytes are only partly in the file is not taken in until it is whole.
    @Test func aCommitHalfWrittenIsNotSeen() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = options()
        options.segmentSize = 1 << 20
        let writer = try LogStore(path: dir.child("s"), options: options)
        try writer.put([1], for: Array("a".utf8), in: "k")
        try writer.close()
        let segment = segmentFiles(dir.child("s")).last!
        let before = readFile(segment)
        let again = try LogStore(path: dir.child("s"), options: options)
        var batch = WriteBatch()
        for i in 0..<50 {
            batch.put([UInt8](repeating: 7, count: 100), for: Array("b\(i)".utf8), in: "k")
        }
        try again.commit(batch)
        try again.close()
        let after = readFile(segment)
        // The file as a reader meets it while the writer is in the middle of that commit.
        writeFile(segment, Array(after[..<(before.count + (after.count - before.count) / 2)]))
        let reader = try LogStore(path: dir.child("s"), options: self.options(readOnly: true))
        #expect(try reader.count(in: "k") == 1)
        #expect(try reader.refresh().commits == 0)
        #expect(try reader.count(in: "k") == 1)
        writeFile(segment, after)
        let report = try reader.refresh()
        #expect(report.commits >= 1)
        #expect(try reader.count(in: "k") == 51)
        try reader.close()
    }

    @Test func aWriterAndAViewDoNotRefresh() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let writer = try LogStore(path: dir.child("s"), options: options())
        try writer.put([1], for: [1], in: "k")
        try writer.put([2], for: [1], in: "k")
        let report = try writer.refresh()
        #expect(report.lastSequence == 2 && report.commits == 0 && !report.reloaded)
        let view = try writer.snapshot(asOf: 1)
        #expect(try view.refresh().lastSequence == 1)
        #expect(try view.get([1], in: "k") == [1])
        try writer.close()
    }
}
