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
        // On the disk, not under TemporaryDirectory.base (/dev/shm): on a tmpfs the writer saved
        // and compacted so fast that, on a loaded machine, the reader's read-only open gave up
        // after its listing attempts (EAGAIN) while compactions kept changing the files.
        let dir = FileManager.default.temporaryDirectory.path + "/logbook-refresh-\(UUID())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = URL(fileURLWithPath: dir + "/s")
        var options = LogStoreOptions()
        options.segmentSize = 16 << 10
        options.autoCompactionDeadFraction = nil
        let container = try ModelContainer(for: [Employee.self], at: url, options: options)
        let writer = SavingThread(container, perSave: 10, compactEvery: 15)
        options.readOnly = true
        let reader = try ModelContainer(for: [Employee.self], at: url, options: options)
        var seen = 0
        var refreshes = 0
        var listed = 0
        while refreshes < 150 || seen < 1_000 {
            listed += try reader.refresh().reduce(0) { $0 + $1.inserted.count }
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
        #expect(writer.failure.withLock { $0 } == nil)
        try reader.refresh()
        #expect(try ModelContext(reader).fetchCount(FetchDescriptor<Employee>()) == writer.count)
        #expect(listed > 0)
        try reader.close()
        try container.close()
    }
}
