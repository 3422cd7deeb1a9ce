import Foundation
import TestSupport
import Testing

@testable import LogStore

/// The index names a segment in 28 bits: a session that would need one more segment handle gets
/// a typed error, and no file, instead of a trap in the index.
@Suite struct SegmentHandleLimitTests {
    @Test func aSegmentPastTheLastHandleIsRefusedBeforeAnyFileIsMade() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let last = KeyDirectory.Entry.segmentMask - 1
        let order: UInt64 = 5 << 16
        do {
            _ = try Segment(
                directory: dir.path, order: order, handle: last + 1,
                fileSystem: PosixFileSystem(), growing: true, create: true)
            Issue.record("a segment with handle \(last + 1) was made")
        } catch LogStoreError.invalidArgument(let reason) {
            #expect(reason.contains("segment handles"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        let segment = try Segment(
            directory: dir.path, order: order, handle: last, fileSystem: PosixFileSystem(),
            growing: true, create: true)
        #expect(segment.handle == last)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path)
                == [Segment.fileName(order: order)])
    }
}
