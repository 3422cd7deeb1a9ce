import Foundation
import TestSupport
import Testing

@testable import LogStore

/// The key directory file (FORMAT.md, "Key directory file"): written at a clean close, mapped by
/// the next open when it still describes the store, ignored (and the index rebuilt) otherwise.
@Suite struct KeyDirectoryFileTests {
    private func options(minimumKeys: Int? = 0) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.autoCompactionDeadFraction = nil
        options.keyDirectoryFileMinimumKeys = minimumKeys
        options.keyDirectoryFileMaximumShare = nil
        return options
    }

    typealias Model = [String: [UInt8]]

    /// Puts and deletes over three keyspaces, several segments of them; returns the contents.
    @discardableResult
    private func write(_ store: LogStore, rounds: Range<Int>, into model: inout Model) throws
        -> Model
    {
        for i in rounds {
            let keyspace = ["a", "b", "c"][i % 3]
            let key = "key\(i % 97)"
            if i % 5 == 4 {
                try store.delete(Array(key.utf8), in: keyspace, durability: .buffered)
                model["\(keyspace)/\(key)"] = nil
            } else {
                let value = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 20 + i % 30)
                try store.put(value, for: Array(key.utf8), in: keyspace, durability: .buffered)
                model["\(keyspace)/\(key)"] = value
            }
        }
        return model
    }

    private func contents(_ store: LogStore) throws -> Model {
        var all: Model = [:]
        for keyspace in try store.keyspaces() {
            try store.forEach(in: keyspace) { key, value in
                all["\(keyspace)/\(String(decoding: key, as: UTF8.self))"] = Array(value)
            }
        }
        // Point reads agree with the scan.
        for (name, value) in all {
            let parts = name.split(separator: "/", maxSplits: 1)
            let found = try store.get(Array(parts[1].utf8), in: String(parts[0]))
            #expect(found == value)
        }
        return all
    }

    /// What a store's stats say, without the compaction report.
    private func summary(_ store: LogStore) throws -> String {
        var stats = try store.stats()
        stats.lastCompaction = nil
        return "\(stats)"
    }

    private func directoryFile(_ path: String) -> String { path + "/" + KeyDirectoryFile.name }

    /// Copies the store's files as they are now (what a process kill leaves).
    private func copyFiles(of path: String, to copy: String) throws {
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            try FileManager.default.copyItem(atPath: path + "/" + name, toPath: copy + "/" + name)
        }
    }

    @Test func aCleanCloseWritesItAndTheNextOpenMapsIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options())
        try write(first, rounds: 0..<600, into: &model)
        try first.close()
        #expect(FileManager.default.fileExists(atPath: directoryFile(dir.path)))

        #expect(try LogInspector.verify(storeAt: dir.path).problems.isEmpty)
        let store = try LogStore(path: dir.path, options: options())
        #expect(store.recovery.usedKeyDirectory)
        #expect(store.recovery.ignoredKeyDirectory == nil)
        #expect(try contents(store) == model)
        #expect(store.lastSequence == 600)
        let mapped = try summary(store)
        try store.close()

        // The same figures as an index rebuilt from the segments.
        try FileManager.default.removeItem(atPath: directoryFile(dir.path))
        let rebuilt = try LogStore(path: dir.path, options: options(minimumKeys: nil))
        #expect(!rebuilt.recovery.usedKeyDirectory)
        #expect(try summary(rebuilt) == mapped)
        #expect(try contents(rebuilt) == model)
        try rebuilt.close()
    }

    @Test func writesAfterAMappedOpenAreKeptAndReopenedAgain() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options())
        try write(first, rounds: 0..<400, into: &model)
        try first.close()
        for cycle in 1...3 {
            let store = try LogStore(path: dir.path, options: options())
            #expect(store.recovery.usedKeyDirectory)
            #expect(try contents(store) == model)
            try write(store, rounds: (cycle * 400)..<(cycle * 400 + 300), into: &model)
            #expect(try contents(store) == model)
            try store.close()
        }
        let last = try LogStore(path: dir.path, options: options())
        #expect(last.recovery.usedKeyDirectory)
        #expect(try contents(last) == model)
        try last.close()
    }

    /// A store killed after writes that followed a mapped open: the file covers a prefix of the
    /// last segment and the new segments after it; open scans only those.
    @Test func aKilledSessionIsReplayedPastTheFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options())
        try write(first, rounds: 0..<300, into: &model)
        try first.close()
        let store = try LogStore(path: dir.path, options: options())
        try write(store, rounds: 300..<700, into: &model)
        try store.sync()
        let copyDir = TemporaryDirectory()
        defer { copyDir.remove() }
        let copy = copyDir.child("killed")
        try copyFiles(of: dir.path, to: copy)
        try store.close()

        let reopened = try LogStore(path: copy, options: options())
        #expect(reopened.recovery.usedKeyDirectory)
        #expect(reopened.recovery.notes.contains { $0.contains("scanned the rest") })
        #expect(try contents(reopened) == model)
        #expect(reopened.lastSequence == 700)
        try reopened.close()
    }

    @Test func aCompactionMakesItStale() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options())
        try write(first, rounds: 0..<600, into: &model)
        try first.close()
        let store = try LogStore(path: dir.path, options: options())
        try store.compact()
        let copyDir = TemporaryDirectory()
        defer { copyDir.remove() }
        let copy = copyDir.child("killed")
        try copyFiles(of: dir.path, to: copy)
        try store.close()

        let reopened = try LogStore(path: copy, options: options())
        #expect(!reopened.recovery.usedKeyDirectory)
        #expect(reopened.recovery.ignoredKeyDirectory?.contains("lists segment") == true)
        #expect(try contents(reopened) == model)
        try reopened.close()
        // The clean close after the compaction wrote a current file.
        let again = try LogStore(path: dir.path, options: options())
        #expect(again.recovery.usedKeyDirectory)
        #expect(try contents(again) == model)
        try again.close()
    }

    /// Damage to the file, or a segment that changed under it: ignored, never trusted.
    @Test(arguments: [
        "table", "meta", "header", "truncated", "segment shorter", "segment rewritten",
    ])
    func aDamagedOrStaleFileIsIgnored(_ damage: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options())
        try write(first, rounds: 0..<600, into: &model)
        try first.close()
        let file = directoryFile(dir.path)
        var bytes = [UInt8](FileManager.default.contents(atPath: file)!)
        let segments = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".seg") }.sorted()
        switch damage {
        case "table": bytes[KeyDirectoryFile.pageSize + 5] ^= 0x10  // the first table
        case "meta": bytes[FileHeader.size + 6] ^= 0x01
        case "header": bytes[9] ^= 0x01  // the version
        case "truncated": bytes.removeLast(4096)
        case "segment shorter":
            let path = dir.path + "/" + segments[0]
            let handle = FileHandle(forWritingAtPath: path)!
            try handle.truncate(atOffset: UInt64(try handle.seekToEnd() - 1))
            try handle.close()
        default:
            // Same size, other bytes near its end: a segment copied from elsewhere.
            let path = dir.path + "/" + segments[0]
            var segment = [UInt8](FileManager.default.contents(atPath: path)!)
            segment[segment.count - 10] ^= 0xFF
            try Data(segment).write(to: URL(fileURLWithPath: path))
        }
        if damage.hasPrefix("segment") == false {
            try Data(bytes).write(to: URL(fileURLWithPath: file))
        }
        // verify finds what open finds, from the same checks.
        let verified = try LogInspector.verify(storeAt: dir.path).problems.first {
            $0.kind == .unusableKeyDirectory
        }
        var salvage = options()
        salvage.salvage = damage.hasPrefix("segment")
        let store = try LogStore(path: dir.path, options: salvage)
        #expect(!store.recovery.usedKeyDirectory)
        #expect(store.recovery.ignoredKeyDirectory != nil)
        #expect(verified?.reason == store.recovery.ignoredKeyDirectory)
        // A writer removed it: it would never pass again.
        #expect(!FileManager.default.fileExists(atPath: file))
        if !damage.hasPrefix("segment") { #expect(try contents(store) == model) }
        try store.close()
    }

    @Test func aStoreWithoutTheFileOpensAsBefore() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options(minimumKeys: nil))
        try write(first, rounds: 0..<300, into: &model)
        try first.close()
        #expect(!FileManager.default.fileExists(atPath: directoryFile(dir.path)))
        let store = try LogStore(path: dir.path, options: options())
        #expect(!store.recovery.usedKeyDirectory)
        #expect(store.recovery.ignoredKeyDirectory == nil)
        #expect(try contents(store) == model)
        try store.close()
        // Its clean close wrote one.
        let again = try LogStore(path: dir.path, options: options())
        #expect(again.recovery.usedKeyDirectory)
        try again.close()
    }

    /// Below the threshold no file is written (small stores open fast anyway).
    @Test func smallStoresDoNotWriteIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let store = try LogStore(path: dir.path, options: options(minimumKeys: 1000))
        try write(store, rounds: 0..<300, into: &model)
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: directoryFile(dir.path)))
    }

    /// Nor when the file would take more than its share of the store's bytes.
    @Test func aFileLargerThanItsShareIsNotWritten() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        var small = options()
        small.keyDirectoryFileMaximumShare = 0.01
        let store = try LogStore(path: dir.path, options: small)
        try write(store, rounds: 0..<300, into: &model)
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: directoryFile(dir.path)))
        small.keyDirectoryFileMaximumShare = 10
        let again = try LogStore(path: dir.path, options: small)
        try again.close()
        #expect(FileManager.default.fileExists(atPath: directoryFile(dir.path)))
    }

    /// A close with nothing new keeps the file as it is, and writes no hint for the active
    /// segment.
    @Test func aCloseWithoutChangesRewritesNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options())
        try write(first, rounds: 0..<300, into: &model)
        try first.close()
        let before = try FileManager.default.attributesOfItem(atPath: directoryFile(dir.path))
        let store = try LogStore(path: dir.path, options: options())
        #expect(store.recovery.usedKeyDirectory)
        _ = try contents(store)
        try store.close()
        let after = try FileManager.default.attributesOfItem(atPath: directoryFile(dir.path))
        #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int)
    }

    @Test func aReadOnlyOpenMapsItToo() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: Model = [:]
        let first = try LogStore(path: dir.path, options: options())
        try write(first, rounds: 0..<300, into: &model)
        try first.close()
        var readOnly = options()
        readOnly.readOnly = true
        let store = try LogStore(path: dir.path, options: readOnly)
        #expect(store.recovery.usedKeyDirectory)
        #expect(try contents(store) == model)
        try store.close()
        readOnly.indexedKeyspaces = ["b"]
        let some = try LogStore(path: dir.path, options: readOnly)
        #expect(some.recovery.usedKeyDirectory)
        #expect(try some.count(in: "a") == 0)
        #expect(try some.count(in: "b") == model.keys.filter { $0.hasPrefix("b/") }.count)
        try some.close()
    }
}
