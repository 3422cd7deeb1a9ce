import Foundation
import LogStore
import TestSupport
import Testing

/// A writable session that only reads a store a clean close left (an app listing its objects,
/// `employees list`) leaves every file as it was: its close has no byte to make durable, no mark
/// to add, and the active segment's hint on disk already describes it. Before, each such close
/// made an `fdatasync` of the segment and wrote the hint again (a write, an `fdatasync`, a rename
/// and a directory `fsync`).
@Suite struct ReadOnlySessionTests {
    private func options(_ fileSystem: any FileSystem = PosixFileSystem()) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.fileSystem = fileSystem
        options.autoCompactionDeadFraction = nil
        return options
    }

    /// 200 keys (no key directory file: below its minimum), closed cleanly.
    private func fill(_ path: String) throws {
        let store = try LogStore(path: path, options: options())
        for i in 0..<200 {
            try store.put(Array("value \(i)".utf8), for: Array("key \(i)".utf8), in: "k")
        }
        try store.close()
    }

    /// The store's files and their bytes.
    private func contents(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            files[name] = FileManager.default.contents(atPath: path + "/" + name)
        }
        return files
    }

    @Test func aSessionThatOnlyReadsWritesAndSyncsNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try fill(dir.path)
        let before = try contents(dir.path)
        #expect(before.keys.contains { $0.hasSuffix(".hint") })

        let log = CallLogFileSystem(PosixFileSystem())
        let store = try LogStore(path: dir.path, options: options(log))
        #expect(try store.get(Array("key 7".utf8), in: "k") == Array("value 7".utf8))
        #expect(try store.count(in: "k") == 200)
        try store.close()
        let changing = log.calls.filter {
            ["write", "fdatasync", "fsync-directory", "rename", "unlink", "ftruncate"].contains(
                $0.operation)
        }
        #expect(changing.isEmpty, "\(changing)")
        #expect(try contents(dir.path) == before)
    }

    @Test func aSessionThatWritesStillSyncsMarksAndWritesTheHint() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try fill(dir.path)
        let log = CallLogFileSystem(PosixFileSystem())
        let store = try LogStore(path: dir.path, options: options(log))
        try store.put(Array("new".utf8), for: Array("key 200".utf8), in: "k", durability: .buffered)
        try store.close()
        let operations = log.calls.map(\.operation)
        #expect(operations.contains("fdatasync"))
        #expect(log.calls.contains { $0.operation == "rename" && $0.path.hasSuffix(".hint.tmp") })
        let reopened = try LogStore(path: dir.path, options: options())
        #expect(reopened.recovery.ignoredHints.isEmpty)
        #expect(try reopened.count(in: "k") == 201)
        try reopened.close()
    }

    /// After a crash the segment has no closing mark: the next session's close syncs what the
    /// crashed one wrote and marks it, even if it only reads.
    @Test func aSessionAfterACrashSealsWhatItFound() throws {
        let dir = TemporaryDirectory()
        let crashed = TemporaryDirectory()
        defer {
            dir.remove()
            crashed.remove()
        }
        // A copy of the files of a store still open, as a crash would leave them: no closing
        // mark, no hint of the active segment.
        let store = try LogStore(path: dir.path, options: options())
        for i in 0..<200 {
            try store.put(Array("value \(i)".utf8), for: Array("key \(i)".utf8), in: "k")
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            try FileManager.default.copyItem(
                atPath: dir.path + "/" + name, toPath: crashed.path + "/" + name)
        }
        try store.close()

        let log = CallLogFileSystem(PosixFileSystem())
        let reopened = try LogStore(path: crashed.path, options: options(log))
        #expect(try reopened.get(Array("key 199".utf8), in: "k") == Array("value 199".utf8))
        try reopened.close()
        #expect(log.calls.contains { $0.operation == "fdatasync" && $0.path.hasSuffix(".seg") })
        #expect(log.calls.contains { $0.operation == "write" && $0.path.hasSuffix(".seg") })
        #expect(log.calls.contains { $0.operation == "rename" && $0.path.hasSuffix(".hint.tmp") })
    }
}
