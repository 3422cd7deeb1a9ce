import Foundation
import LogStore
import TestSupport
import Testing

/// Error paths through the IO seam: each injected failure gives a typed error and loses nothing
/// that was acknowledged.
@Suite struct FaultTests {
    private func open(_ path: String, _ fs: FaultInjectingFileSystem) throws -> LogStore {
        var options = LogStoreOptions()
        options.fileSystem = fs
        return try LogStore(path: path, options: options)
    }

    @Test func diskFullDuringCommitFailsThatCommitOnly() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let store = try open(path, fs)
        try store.put(b("1"), for: b("a"), in: "k")
        fs.inject(.error(ENOSPC), on: "write", pathSuffix: ".seg")
        #expect(throws: LogStoreError.self) { try store.put(b("2"), for: b("b"), in: "k") }
        #expect(try store.get(b("b"), in: "k") == nil)
        // The store goes on once space is back, and the failed commit left nothing behind.
        try store.put(b("3"), for: b("c"), in: "k")
        try store.close()
        let reopened = try LogStore(path: path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.get(b("a"), in: "k") == b("1"))
        #expect(try reopened.get(b("b"), in: "k") == nil)
        #expect(try reopened.get(b("c"), in: "k") == b("3"))
    }

    @Test func shortWritesAreCompleted() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let store = try open(path, fs)
        fs.inject(.shortWrite(5), on: "write", pathSuffix: ".seg", times: 3)
        try store.put([UInt8](repeating: 9, count: 1000), for: b("a"), in: "k")
        try store.close()
        let reopened = try LogStore(path: path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.get(b("a"), in: "k") == [UInt8](repeating: 9, count: 1000))
    }

    /// A write that makes no progress reports `EIO` (a named errno, as every I/O error carries),
    /// and a truncation that cannot undo it disables writes with the same cause.
    @Test func writeThatMakesNoProgressFailsWithEIO() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let store = try open(path, fs)
        fs.inject(.shortWrite(0), on: "write", pathSuffix: ".seg")
        #expect(
            throws: LogStoreError.io(operation: "write", path: segmentFiles(path)[0], errno: EIO)
        ) {
            try store.put(b("1"), for: b("a"), in: "k")
        }
        fs.inject(.shortWrite(0), on: "write", pathSuffix: ".seg")
        fs.inject(.error(EIO), on: "ftruncate", pathSuffix: ".seg")
        #expect(throws: LogStoreError.self) { try store.put(b("1"), for: b("a"), in: "k") }
        #expect(throws: LogStoreError.writesDisabled(path: path, cause: EIO)) {
            try store.put(b("1"), for: b("a"), in: "k")
        }
    }

    @Test func openingAMissingStoreWithoutCreatingItFailsWithENOENT() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.createIfMissing = false
        #expect(throws: LogStoreError.io(operation: "open", path: dir.child("none"), errno: ENOENT))
        {
            _ = try LogStore(path: dir.child("none"), options: options)
        }
    }

    @Test func failedSyncDisablesWritesUntilReopen() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let store = try open(path, fs)
        try store.put(b("1"), for: b("a"), in: "k")
        fs.inject(.error(EIO), on: "fdatasync", pathSuffix: ".seg")
        #expect(
            throws: LogStoreError.io(
                operation: "fdatasync", path: segmentFiles(path)[0], errno: EIO)
        ) {
            try store.put(b("2"), for: b("b"), in: "k")
        }
        // Not visible, and no retry: the kernel may have dropped the pages.
        #expect(try store.get(b("b"), in: "k") == nil)
        #expect(throws: LogStoreError.writesDisabled(path: path, cause: EIO)) {
            try store.put(b("3"), for: b("c"), in: "k")
        }
        #expect(try store.get(b("a"), in: "k") == b("1"))
        try store.close()
        let reopened = try LogStore(path: path)
        #expect(try reopened.get(b("a"), in: "k") == b("1"))
        try reopened.put(b("4"), for: b("d"), in: "k")
    }

    @Test func failureCreatingTheStoreIsAnIOError() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fs = FaultInjectingFileSystem()
        fs.inject(.error(EACCES), on: "mkdir")
        #expect(throws: LogStoreError.io(operation: "mkdir", path: dir.child("s"), errno: EACCES)) {
            _ = try open(dir.child("s"), fs)
        }
    }

    /// Two processes creating one store at once: the one whose `mkdir` finds the directory
    /// already made opens it, rather than failing with `EEXIST`.
    @Test func aStoreCreatedByAnotherProcessMeanwhileOpens() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        // Our mkdir waits 300 ms; the "other process" makes the directory after 50 ms.
        fs.inject(.delay(300_000), on: "mkdir")
        let other = Thread {
            usleep(50_000)
            try? FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false)
        }
        other.start()
        let store = try open(path, fs)
        try store.put(b("1"), for: b("a"), in: "k")
        #expect(try store.get(b("a"), in: "k") == b("1"))
        try store.close()
    }

    @Test func failedSegmentRollLosesNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        var options = LogStoreOptions()
        options.fileSystem = fs
        options.segmentSize = 64  // every commit starts a new segment
        let store = try LogStore(path: path, options: options)
        for i in 0..<5 { try store.put([UInt8](repeating: 1, count: 100), for: b("\(i)"), in: "k") }
        fs.inject(.error(ENOSPC), on: "open", pathSuffix: ".seg")
        #expect(throws: LogStoreError.self) { try store.put(b("x"), for: b("x"), in: "k") }
        fs.heal()
        try store.put(b("y"), for: b("y"), in: "k")
        try store.close()
        let reopened = try LogStore(path: path)
        #expect(try reopened.count(in: "k") == 6)
        #expect(try reopened.get(b("x"), in: "k") == nil)
    }

    @Test func syncCommitIssuesDataSyncBeforeReturning() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fs = FaultInjectingFileSystem()
        let store = try open(dir.child("s"), fs)
        let start = fs.calls.count
        try store.put(b("1"), for: b("a"), in: "k")
        let calls = fs.calls[start...].map(\.operation)
        #expect(calls == ["write", "fdatasync"])
        let buffered = fs.calls.count
        try store.put(b("1"), for: b("a"), in: "k", durability: .buffered)
        #expect(fs.calls[buffered...].map(\.operation) == ["write"])
    }
}
