import Foundation
import LogStore
import TestSupport
import Testing

/// ``LogStore/segmentStats()``: per segment, what ``LogStore/stats()`` adds up.
@Suite struct SegmentStatsTests {
    @Test func segmentsAddUpToTheStoreAndOnlyTheNewestIsActive() throws {
        let directory = TemporaryDirectory("segment-stats")
        defer { directory.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 2048
        options.autoCompactionDeadFraction = nil
        let store = try LogStore(path: directory.child("store"), options: options)
        for i in 0..<400 {
            try store.put(
                Array(repeating: UInt8(i % 256), count: 40), for: Array("k\(i % 50)".utf8), in: "k")
        }
        let stats = try store.stats()
        let segments = try store.segmentStats()
        #expect(segments.count == stats.segments)
        #expect(segments.count > 3)
        #expect(segments.reduce(0) { $0 + $1.fileBytes } == stats.fileBytes)
        #expect(segments.reduce(0) { $0 + $1.liveBytes } == stats.liveBytes)
        #expect(
            segments.map(\.name)
                == segmentFiles(directory.child("store")).map { ($0 as NSString).lastPathComponent }
        )
        #expect(segments.filter(\.isActive).map(\.name) == [segments.last!.name])
        #expect(segments.dropLast().allSatisfy { $0.deadBytes > 0 })
        try store.close()
        var readOnly = options
        readOnly.readOnly = true
        let reader = try LogStore(path: directory.child("store"), options: readOnly)
        defer { try? reader.close() }
        #expect(try reader.segmentStats().allSatisfy { !$0.isActive })
        #expect(try reader.segmentStats().reduce(0) { $0 + $1.liveBytes } == stats.liveBytes)
    }
}
