import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `ModelContainer.refresh()` on a read-only container of its own (its own open of the files,
/// as another process has) while a writer saves ten employees a save and compacts: every
/// refresh shows whole saves only, and fetches through the index agree with the records.
@Suite struct ContainerRefreshTests {
    @Test func aReaderNeverSeesHalfASaveWhileTheWriterSavesAndCompacts() throws {
        // Under TemporaryDirectory.base (/dev/shm where there is one): there the writer saves
        // and compacts fast enough that a compaction outlasted the reader's replays, which gave
        // up (EAGAIN after their listing attempts, or ENOENT) until a read-only open replayed
        // files it had opened before checking the listing (PinnedListing).
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.child("s"))
        var options = LogStoreOptions()
        options.segmentSize = 16 << 10
        options.autoCompactionDeadFraction = nil
        let container = try ModelContainer(for: [Employee.self], at: url, options: options)
        // 40 compactions at most (20 in the default tier): a writer on a tmpfs outran the
        // reader's refreshes without a bound (each reload takes in the whole store, which kept
        // growing).
        let (maxSaves, minRefreshes, minSeen) = TestTier.pick(
            quick: (300, 75, 500), long: (600, 150, 1_000))
        let writer = SavingThread(
            container, perSave: 10, compactEvery: 15, maxSaves: maxSaves)
        options.readOnly = true
        let reader = try ModelContainer(for: [Employee.self], at: url, options: options)
        var seen = 0
        var refreshes = 0
        var listed = 0
        /// Refreshes that brought saves in: the writer was still at work.
        var refreshesWithSaves = 0
        while refreshes < minRefreshes || seen < minSeen {
            let inserted = try reader.refresh().reduce(0) { $0 + $1.inserted.count }
            listed += inserted
            if inserted > 0 { refreshesWithSaves += 1 }
            refreshes += 1
            let context = ModelContext(reader)
            let count = try context.fetchCount(FetchDescriptor<Employee>())
            #expect(count % 10 == 0, "half a save: \(count) employees")
            #expect(count >= seen)
            // Through the index on designation, the same state.
            var byDesignation = 0
            for d in 0..<7 {
                let designation = "d\(d)"
                byDesignation += try context.fetchCount(
                    FetchDescriptor<Employee>(
                        predicate: #Predicate { $0.designation == designation }))
            }
            #expect(byDesignation == count)
            seen = count
            if writer.failure.withLock({ $0 }) != nil { break }
        }
        writer.finish()
        print(
            "container refresh: \(refreshes) refreshes (\(refreshesWithSaves) with saves), "
                + "\(writer.count) employees saved")
        #expect(writer.failure.withLock { $0 } == nil)
        try reader.refresh()
        #expect(try ModelContext(reader).fetchCount(FetchDescriptor<Employee>()) == writer.count)
        #expect(listed > 0)
        try reader.close()
        try container.close()
    }
}
