import Foundation
import TestSupport
import Testing

@testable import LogStore

/// A store whose `keys.dir` the library wrote at version 1 (Fixtures/KeyDirectoryV1.logbook, see
/// Fixtures/README.md) opens with today's library, which uses the file as it is.
@Suite struct KeyDirectoryVersionFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/KeyDirectoryV1.logbook").path

    /// Every file of the store at `path` but `LOCK`, by name.
    private func files(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name != "LOCK" {
            files[name] = FileManager.default.contents(atPath: path + "/" + name)
        }
        return files
    }

    @Test func aVersion1KeyDirectoryFileIsUsedAndLeftAsItIs() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/store"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        let before = try files(path)
        #expect(before[KeyDirectoryFile.name]?[8] == 1)

        var options = LogStoreOptions()
        options.keyDirectoryFileMinimumKeys = 0
        let store = try LogStore(path: path, options: options)
        #expect(store.recovery.usedKeyDirectory)
        #expect(try store.get(Array("key 7".utf8), in: "a") == Array("changed".utf8))
        #expect(try store.get(Array("key 8".utf8), in: "a") == nil)
        for i in [0, 9, 1_234, 5_999] {
            #expect(try store.get(Array("key \(i)".utf8), in: "a") == Array("value \(i)".utf8))
        }
        #expect(try store.get([2], in: "b") == [2])
        #expect(try store.count(in: "a") == 5_999)
        #expect(store.recovery.usedKeyDirectory)
        try store.close()
        // A close with nothing new leaves every file as it was, the version-1 file among them.
        #expect(try files(path) == before)
    }
}
