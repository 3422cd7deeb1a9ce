import Foundation
import TestSupport
import Testing

@testable import LogStore

/// The zero tail (FORMAT.md, "Zero tail"): durable commits overwrite zeros the writer reserved
/// ahead of them; a reader takes zeros from a commit boundary to the end of the file for the end
/// of the segment, and anything else there for damage, as before.
@Suite struct ZeroTailTests {
    /// Small steps, early: the first extension after two durable groups, 4 KiB at a time.
    private func options(_ fs: (any FileSystem)? = nil) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.autoCompactionDeadFraction = nil
        options.keyDirectoryFileMinimumKeys = nil
        options.zeroTail = ZeroTailPolicy(step: 4096, afterDurableGroups: 2)
        if let fs { options.fileSystem = fs }
        return options
    }

    private func fileSize(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).intValue
    }

    private func value(_ i: Int) -> [UInt8] {
        [UInt8](repeating: UInt8(i & 0xFF), count: 40 + i % 7)
    }

    /// `count` durable puts from `first` on; the model gets them too.
    private func put(
        _ store: LogStore, _ first: Int, _ count: Int, _ model: inout [String: [UInt8]]
    ) throws {
        for i in first..<first + count {
            try store.put(value(i), for: Array("k\(i)".utf8), in: "a", durability: .sync)
            model["k\(i)"] = value(i)
        }
    }

    private func expectContents(_ store: LogStore, _ model: [String: [UInt8]]) throws {
        #expect(try store.count(in: "a") == model.count)
        for (key, value) in model { #expect(try store.get(Array(key.utf8), in: "a") == value) }
    }

    /// `store` holds `model`, and so does the store closed and reopened, with a clean recovery.
    private func expectSameAfterReopen(_ store: LogStore, _ model: [String: [UInt8]]) throws {
        try expectContents(store, model)
        try store.close()
        let reopened = try LogStore(path: store.path, options: options())
        #expect(reopened.recovery.isClean)
        try expectContents(reopened, model)
        try reopened.close()
    }

    /// The bytes of the store's only segment past its frames' end are all zero, and there are
    /// some.
    private func expectZeroTail(_ store: LogStore) throws -> (size: Int, fileSize: Int) {
        let segment = try #require(segmentFiles(store.path).last)
        let size = Int(try store.stats().fileBytes)
        let fileSize = try fileSize(segment)
        #expect(fileSize > size)
        #expect(fileSize % 4096 == 0)
        #expect(readFile(segment)[size...].allSatisfy { $0 == 0 })
        return (size, fileSize)
    }

    /// Durable puts extend the segment with zeros and then overwrite them (the file does not
    /// grow with each one); a clean close leaves the zeros; a reopen takes them for the end (no
    /// cut, the hint used), appends over them, and verify finds nothing wrong.
    @Test func durableCommitsOverwriteTheZeroTailAndReopenPastIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        let store = try LogStore(path: dir.path, options: options())
        try put(store, 0, 20, &model)
        let (_, reserved) = try expectZeroTail(store)
        try put(store, 20, 3, &model)  // 3 × ~70 bytes: inside the zeros
        #expect(try fileSize(segmentFiles(dir.path)[0]) == reserved)
        try expectContents(store, model)
        try store.close()
        #expect(try fileSize(segmentFiles(dir.path)[0]) == reserved)

        let reopened = try LogStore(path: dir.path, options: options())
        #expect(reopened.recovery.isClean)
        #expect(reopened.recovery.cuts.isEmpty && reopened.recovery.ignoredHints.isEmpty)
        try expectContents(reopened, model)
        let (size, _) = try expectZeroTail(reopened)
        try put(reopened, 23, 1, &model)
        #expect(try reopened.stats().fileBytes > Int64(size))
        try reopened.close()
        #expect(try LogInspector.verify(storeAt: dir.path).problems.isEmpty)

        var readOnly = options()
        readOnly.readOnly = true
        let reader = try LogStore(path: dir.path, options: readOnly)
        #expect(reader.recovery.isClean)
        try expectContents(reader, model)
        try reader.close()
    }

    /// Buffered commits that callers wait for (`waitUntilDurable`, as the object layer saves)
    /// count as durable: the segment gets its zero tail. Buffered commits nobody waits for, as a
    /// bulk load writes them, never make the writer sync zeros.
    @Test func waitedForBufferedCommitsReserveAZeroTailAndUnwaitedOnesDoNot() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        let bulk = try LogStore(path: dir.child("bulk"), options: options())
        for i in 0..<200 {
            try bulk.put(value(i), for: Array("k\(i)".utf8), in: "a", durability: .buffered)
        }
        #expect(try fileSize(segmentFiles(bulk.path)[0]) == Int(try bulk.stats().fileBytes))
        try bulk.close()

        let store = try LogStore(path: dir.child("waited"), options: options())
        for i in 0..<12 {
            let sequence = try store.put(
                value(i), for: Array("k\(i)".utf8), in: "a", durability: .buffered)
            try store.waitUntilDurable(sequence)
            model["k\(i)"] = value(i)
        }
        _ = try expectZeroTail(store)
        try expectSameAfterReopen(store, model)
    }

    /// A read-only follower of another writer (`commits(after:follow:)`) opened while the
    /// segment had a zero tail: the commits written over the zeros, which do not grow the file,
    /// and those after the next extension reach it, in order.
    @Test func aFollowerSeesCommitsWrittenOverTheZeroTail() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        let writer = try LogStore(path: dir.path, options: options())
        try put(writer, 0, 6, &model)
        let (_, reserved) = try expectZeroTail(writer)
        var readOnly = options()
        readOnly.readOnly = true
        let follower = try LogStore(path: dir.path, options: readOnly)
        let reader = try follower.commits(after: 0, follow: true)
        var sequences: [UInt64] = []
        while let commit = try reader.next() { sequences.append(commit.sequence) }
        #expect(sequences == Array(1...6))
        try put(writer, 6, 1, &model)
        #expect(try fileSize(segmentFiles(dir.path)[0]) == reserved)
        while let commit = try reader.next() { sequences.append(commit.sequence) }
        #expect(sequences == Array(1...7))
        try put(writer, 7, 100, &model)  // past several extensions
        while let commit = try reader.next() { sequences.append(commit.sequence) }
        #expect(sequences == Array(1...107))
        try follower.close()
        try writer.close()
    }

    /// A copy of the store taken while it is open (what a crash leaves): the zero tail is the
    /// end, with nothing cut, for a writer and a reader, and verify agrees.
    @Test func aCrashLeavesTheZeroTailAndOpenTakesItForTheEnd() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        let store = try LogStore(path: dir.path, options: options())
        try put(store, 0, 12, &model)
        _ = try expectZeroTail(store)
        let copy = TemporaryDirectory()
        defer { copy.remove() }
        try copy.copyFiles(of: dir.path)
        try store.close()

        #expect(try LogInspector.verify(storeAt: copy.path).problems.isEmpty)
        var readOnly = options()
        readOnly.readOnly = true
        let reader = try LogStore(path: copy.path, options: readOnly)
        #expect(reader.recovery.isClean)
        try expectContents(reader, model)
        try reader.close()
        let writer = try LogStore(path: copy.path, options: options())
        #expect(writer.recovery.cuts.isEmpty && writer.recovery.skipped.isEmpty)
        try expectContents(writer, model)
        try put(writer, 12, 2, &model)
        try writer.close()
        let again = try LogStore(path: copy.path, options: options())
        try expectContents(again, model)
        try again.close()
    }

    /// Bytes that are not zero after the frames' end (a torn write into the zero tail) make it
    /// no zero tail: a torn tail, cut at the frames' end and kept, as verify reports first.
    @Test func bytesInTheZeroTailAreATornTail() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        let size: Int
        do {
            let store = try LogStore(path: dir.path, options: options())
            try put(store, 0, 12, &model)
            size = try expectZeroTail(store).size
            try store.close()
        }
        // The close wrote a mark after the last commit: the frames now end 25 bytes later.
        let end = size + SyncMark.frameSize
        let segment = segmentFiles(dir.path)[0]
        var bytes = readFile(segment)
        #expect(bytes[end...].allSatisfy { $0 == 0 } && bytes.count > end + 120)
        bytes.replaceSubrange(end + 100..<end + 110, with: [UInt8](repeating: 0xAB, count: 10))
        writeFile(segment, bytes)

        // (The hint the close wrote no longer fits the file: reported, and ignored by open.)
        let problems = try LogInspector.verify(storeAt: dir.path).problems
        #expect(problems.contains { $0.kind == .tornTail && $0.offset == Int64(end) })
        #expect(!problems.contains { $0.kind == .corruption })
        let store = try LogStore(path: dir.path, options: options())
        #expect(store.recovery.cuts.map(\.offset) == [Int64(end)])
        try expectContents(store, model)
        try store.close()
        #expect(try fileSize(segment) == end)
    }

    /// A full disk when the zeros are written: the writer cuts them away and appends, and no
    /// commit fails.
    @Test func anExtensionThatFailsFallsBackToAppends() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fs = FaultInjectingFileSystem()
        var model: [String: [UInt8]] = [:]
        let store = try LogStore(path: dir.path, options: options(fs))
        try put(store, 0, 2, &model)
        // The third durable group's first write is the extension's.
        fs.inject(.error(ENOSPC), on: "write", pathSuffix: ".seg")
        try put(store, 2, 10, &model)
        let segment = segmentFiles(dir.path)[0]
        #expect(try fileSize(segment) == Int(try store.stats().fileBytes))
        try expectSameAfterReopen(store, model)
    }

    /// A store whose newest segment is version 2 (no zero tail) opens; commits go to a new
    /// version-3 segment, and the old one is left byte for byte.
    @Test func aVersionTwoSegmentIsReadButNotAppendedTo() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        do {
            let store = try LogStore(path: dir.path, options: options())
            try put(store, 0, 1, &model)
            try store.close()
        }
        let old = segmentFiles(dir.path)[0]
        var bytes = readFile(old)
        bytes[8] = 2
        resealFileHeader(&bytes)
        writeFile(old, bytes)
        let store = try LogStore(path: dir.path, options: options())
        #expect(store.recovery.isClean)
        try put(store, 1, 12, &model)
        try store.close()
        let segments = segmentFiles(dir.path)
        try #require(segments.count == 2)
        #expect(readFile(segments[0]) == bytes)
        #expect(readFile(segments[1])[8] == 3)
        let again = try LogStore(path: dir.path, options: options())
        try expectContents(again, model)
        try again.close()
    }
}
