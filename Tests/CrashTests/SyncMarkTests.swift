import Foundation
import LogStore
import TestSupport
import Testing

/// Sync marks (FORMAT.md, "Sync marks"): each group write after a sync records how far the
/// segment was durable, so recovery cuts damage no mark vouches for as a torn write and reports
/// damage a mark vouches for as corruption. Version-1 segments (no marks) are still read.
@Suite struct SyncMarkTests {
    /// The frames of a segment as (offset, type, payload), walked by their lengths.
    static func frames(_ bytes: [UInt8]) -> [(offset: Int, type: UInt8, payload: [UInt8])] {
        var result: [(Int, UInt8, [UInt8])] = []
        var offset = 24
        while offset + 17 <= bytes.count {
            let length = bytes[(offset + 4)..<(offset + 8)].reversed()
                .reduce(0) { $0 << 8 | Int($1) }
            result.append(
                (offset, bytes[offset + 8], Array(bytes[(offset + 17)..<(offset + 17 + length)])))
            offset += 17 + length
        }
        return result
    }

    /// A closed store with one commit (`key` → [1] in keyspace "a") and no hint files.
    static func storeWithOneCommit(in scratch: ScratchDirectory, key: String) throws
        -> (path: String, segment: String)
    {
        let path = scratch.child("store")
        let store = try openStore(path)
        try store.put([1], for: Array(key.utf8), in: "a")
        try store.close()
        try removeHints(path)
        return (path, segmentFiles(path)[0])
    }

    static func removeHints(_ path: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path)
        where name.hasSuffix(".hint") {
            try FileManager.default.removeItem(atPath: path + "/" + name)
        }
    }

    @Test func aGroupWriteAfterASyncStartsWithAMark() throws {
        let scratch = ScratchDirectory("marks")
        defer { scratch.remove() }
        let path = scratch.child("store")
        let store = try openStore(path)
        let segment = segmentFiles(path)[0]
        var ends: [Int] = []
        for durability: Durability in [.sync, .sync, .buffered, .buffered, .sync] {
            try store.put([1], for: Array("k\(ends.count)".utf8), in: "a", durability: durability)
            ends.append(readFile(segment).count)
        }
        try store.close()
        let marks = Self.frames(readFile(segment)).filter { $0.type == 5 }
        // After the first and the second commit's syncs (none after buffered commits), and at
        // the close, after the last sync.
        #expect(marks.map(\.offset) == [ends[0], ends[1], ends[4]])
        #expect(marks.map { FrameBuilder.le(UInt64($0.offset)) } == marks.map(\.payload))
        #expect(marks.allSatisfy { $0.payload.count == 8 })
    }

    /// The mirror of `unsyncedCommitsSurvivingOutOfOrderAreATornTail`: the same hole, but in a
    /// commit that a later mark says was durable, is bit rot, never a torn tail.
    @Test func damageThatAMarkVouchesForIsCorruption() throws {
        let scratch = ScratchDirectory("marks")
        defer { scratch.remove() }
        let path = scratch.child("store")
        let store = try openStore(path)
        let segment = segmentFiles(path)[0]
        let firstStart = readFile(segment).count
        try store.put([UInt8](repeating: 1, count: 600), for: Array("synced".utf8), in: "a")
        try store.put([2], for: Array("later".utf8), in: "a", durability: .buffered)
        try store.close()
        try Self.removeHints(path)
        var bytes = readFile(segment)
        for i in (firstStart + 100)..<(firstStart + 200) { bytes[i] = 0 }
        writeFile(segment, bytes)
        #expect {
            try openStore(path)
        } throws: { error in
            guard case LogStoreError.corruption(let damaged, let offset, _) = error else {
                return false
            }
            return damaged == segment && offset == Int64(firstStart)
        }
    }

    /// A mark is checked like any frame: one that claims more than lies before it, or carries a
    /// sequence number, is corruption even at the end of the newest segment.
    @Test func malformedMarkIsCorruption() throws {
        let scratch = ScratchDirectory("marks")
        defer { scratch.remove() }
        let (path, segment) = try Self.storeWithOneCommit(in: scratch, key: "k")
        let original = readFile(segment)
        let end = UInt64(original.count)
        let bad: [[UInt8]] = [
            FrameBuilder.frame(type: 5, sequence: 0, payload: FrameBuilder.le(end + 1)),
            FrameBuilder.frame(type: 5, sequence: 3, payload: FrameBuilder.le(end)),
            FrameBuilder.frame(type: 5, sequence: 0, payload: FrameBuilder.le(UInt64(10))),
            FrameBuilder.frame(type: 5, sequence: 0, payload: FrameBuilder.le(UInt32(24))),
        ]
        for mark in bad {
            writeFile(segment, original + mark)
            #expect(throws: LogStoreError.self, "\(mark)") { try openStore(path) }
        }
        // A well-formed mark at the end is harmless.
        writeFile(
            segment,
            original + FrameBuilder.frame(type: 5, sequence: 0, payload: FrameBuilder.le(end)))
        let reopened = try openStore(path)
        #expect(try reopened.get(Array("k".utf8), in: "a") == [1])
        #expect(reopened.recovery.isClean)
        try reopened.close()
    }

    /// A store written by format version 1 opens; new commits go to a new version-3 segment
    /// (a version-1 file is never given marks), and a mark inside a version-1 segment is an
    /// unknown frame type there.
    @Test func versionOneSegmentIsReadButNotAppendedTo() throws {
        let scratch = ScratchDirectory("marks")
        defer { scratch.remove() }
        let (path, segment) = try Self.storeWithOneCommit(in: scratch, key: "old")
        // A version-1 writer closed it without a sync mark.
        var bytes = readFile(segment)
        #expect(bytes[8] == 3 && bytes[bytes.count - 17] == 5)
        bytes.removeLast(25)
        bytes[8] = 1
        resealFileHeader(&bytes)
        writeFile(segment, bytes)
        let v1 = bytes

        let reopened = try openStore(path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.get(Array("old".utf8), in: "a") == [1])
        try reopened.put([2], for: Array("new".utf8), in: "a")
        try reopened.close()
        let segments = segmentFiles(path)
        try #require(segments.count == 2)
        #expect(readFile(segments[0]) == v1)
        #expect(readFile(segments[1])[8] == 3)
        let again = try openStore(path)
        #expect(try again.get(Array("old".utf8), in: "a") == [1])
        #expect(try again.get(Array("new".utf8), in: "a") == [2])
        try again.close()

        try FileManager.default.removeItem(atPath: segments[1])
        try Self.removeHints(path)
        let mark = FrameBuilder.frame(type: 5, sequence: 0, payload: FrameBuilder.le(UInt64(24)))
        writeFile(segments[0], v1 + mark)
        #expect {
            try openStore(path)
        } throws: { error in
            guard case LogStoreError.corruption(_, _, let reason) = error else { return false }
            return reason.contains("unknown frame type 5")
        }
    }
}

extension SyncMarkTests {
    /// Opening and closing without commits leaves a cleanly closed segment as it was; a segment
    /// left without a closing mark (a crash) gets one at the next clean close.
    @Test func closingWithoutCommitsAddsNoMark() throws {
        let scratch = ScratchDirectory("marks")
        defer { scratch.remove() }
        let path = scratch.child("store")
        let store = try openStore(path)
        try store.put([1], for: Array("k".utf8), in: "a")
        try store.close()
        let segment = segmentFiles(path)[0]
        let closed = readFile(segment)
        for _ in 0..<3 { try openStore(path).close() }
        #expect(readFile(segment) == closed)

        writeFile(segment, Array(closed.dropLast(25)))  // a crash before the close
        try Self.removeHints(path)
        for _ in 0..<3 { try openStore(path).close() }
        #expect(readFile(segment) == closed)
    }
}
