import Foundation
import TestSupport
import Testing

@testable import LogStore

/// Forged `keys.dir` entries (CRCs resealed, so open maps the file) met by the paths that follow
/// every entry rather than one key's: walks in log or table order, a view's walk, the first
/// ordered iteration (which builds the key order) and compaction's copy of live records. Each
/// must throw `damagedKeyDirectory`, never read outside the segment mapping or lose a record;
/// the store must go on serving the other keys, and a writable store must remove the file at
/// close so the next open rebuilds the index with every value.
@Suite struct ForgedKeyDirectoryWalkTests {
    private func options(ordered: Bool = false) -> LogStoreOptions {
        var options = LogStoreOptions.alwaysWritingKeyDirectoryFile
        options.segmentSize = 1 << 20
        if ordered { options.orderedKeyspaces = ["a"] }
        return options
    }

    /// A put (op 1) in keyspace 1 whose key length runs far past the segment's end, as bytes a
    /// value carries for a forged entry to point at.
    private static let pastTheEnd: [UInt8] = [0x01, 0x01, 0xFF, 0xFF, 0xFF, 0x7F, 0x05, 0xEE]
    private static let target = Array("key7".utf8)

    /// A store of one segment: keyspace `a` with 50 keys and the bait, keyspace `b` with the
    /// target's key too; its `keys.dir` forged so that `a`'s entry of the target points at what
    /// `forgery` names (resealed). Returns the contents by keyspace and key.
    private func makeForgedStore(_ path: String, _ forgery: String) throws -> [String: [UInt8]] {
        var model: [String: [UInt8]] = [:]
        do {
            let store = try LogStore(path: path, options: options())
            var batch = WriteBatch()
            for i in 0..<50 {
                let value = [UInt8](repeating: UInt8(i), count: 10 + i)
                batch.put(value, for: Array("key\(i)".utf8), in: "a")
                model["a/key\(i)"] = value
            }
            batch.put(Self.pastTheEnd, for: Array("bait".utf8), in: "a")
            model["a/bait"] = Self.pastTheEnd
            batch.put([0xB0, 0xB1], for: Self.target, in: "b")
            model["b/key7"] = [0xB0, 0xB1]
            try store.commit(batch)
            try store.close()
        }
        let segmentName = try #require(
            try FileManager.default.contentsOfDirectory(atPath: path).first { $0.hasSuffix(".seg") }
        )
        let segment = [UInt8](FileManager.default.contents(atPath: path + "/" + segmentName)!)
        let file = KeyDirectoryFile.path(in: path)
        var bytes = [UInt8](FileManager.default.contents(atPath: file)!)
        let entry = try #require(KeyDirectoryForgery.entry(of: Self.target, in: bytes))
        func offset(of key: String, table: Int) throws -> Int {
            let at = try #require(
                KeyDirectoryForgery.entry(of: Array(key.utf8), in: bytes, table: table))
            return KeyDirectoryForgery.load32(bytes, at: at + 4)
        }
        let forged: Int
        switch forgery {
        case "lengths past the end":
            forged = try #require(KeyDirectoryForgery.find(Self.pastTheEnd, in: segment))
        case "near the end": forged = segment.count - 2
        case "another key's record": forged = try offset(of: "key8", table: 0)
        default: forged = try offset(of: "key7", table: 1)  // another keyspace's record
        }
        KeyDirectoryForgery.store(UInt32(forged), in: &bytes, at: entry + 4)
        KeyDirectoryForgery.reseal(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return model
    }

    /// Expects `body` to throw `damagedKeyDirectory` for `keys.dir` in keyspace `a`.
    private func expectDamage(_ path: String, _ body: () throws -> Void) {
        let thrown = #expect(throws: LogStoreError.self) { try body() }
        guard case .damagedKeyDirectory(let damagedPath, let reason) = thrown else {
            Issue.record("not damagedKeyDirectory: \(String(describing: thrown))")
            return
        }
        #expect(damagedPath == KeyDirectoryFile.path(in: path))
        #expect(reason.contains("keyspace \"a\""))
    }

    /// After the store that met the damage closed: the file is gone, and a reopen rebuilds the
    /// index from the log with every value, which verify finds sound.
    private func expectRebuilt(_ path: String, _ model: [String: [UInt8]]) throws {
        #expect(!FileManager.default.fileExists(atPath: KeyDirectoryFile.path(in: path)))
        let store = try LogStore(path: path, options: options())
        #expect(!store.recovery.usedKeyDirectory)
        #expect(try KeyDirectoryForgery.contents(store) == model)
        try store.close()
        #expect(try LogInspector.verify(storeAt: path).problems.isEmpty)
    }

    /// An entry whose record runs past its segment's end, or starts two bytes before it: every
    /// walk throws (the trusted decoder read far past the mapping, or gave an empty key), the
    /// other keys still read right, and close removes the file.
    @Test(
        arguments: ["forEach", "keys", "view walk", "view read", "ordered"],
        ["lengths past the end", "near the end"])
    func aWalkOverAnEntryThatPointsAtNoRecordThrows(_ walk: String, _ forgery: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let model = try makeForgedStore(dir.path, forgery)
        let store = try LogStore(path: dir.path, options: options(ordered: walk == "ordered"))
        #expect(store.recovery.usedKeyDirectory)
        expectDamage(dir.path) {
            switch walk {
            case "forEach": try store.forEach(in: "a") { _, value in _ = Array(value) }
            case "keys": _ = try store.keys(in: "a")
            case "view walk": try store.view(of: "a").forEach { _, value in _ = Array(value) }
            case "view read":
                _ = try Self.target.withUnsafeBytes { key in
                    try store.view(of: "a").withValue(forKey: key) { Array($0) }
                }
            default: try store.forEach(in: "a", range: .all) { _, value in _ = Array(value) }
            }
        }
        for (name, value) in model where name != "a/key7" {
            let parts = name.split(separator: "/", maxSplits: 1)
            #expect(try store.get(Array(parts[1].utf8), in: String(parts[0])) == value)
        }
        try store.close()
        try expectRebuilt(dir.path, model)
    }

    /// Compaction over a forged entry: one that points at no record, at another key's record
    /// (its copy could not be re-pointed, and the entry would be left pointing into an unmapped
    /// input), or at another keyspace's record of the same key (the keyspace's own record would
    /// not be copied, and so lost). Compaction throws before it removes any input; reads go on;
    /// the store reopens by a rebuild with every value.
    @Test(
        arguments: [
            "lengths past the end", "near the end", "another key's record",
            "another keyspace's record",
        ])
    func compactionOverAForgedEntryThrowsAndLosesNothing(_ forgery: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let model = try makeForgedStore(dir.path, forgery)
        let store = try LogStore(path: dir.path, options: options())
        #expect(store.recovery.usedKeyDirectory)
        expectDamage(dir.path) { _ = try store.compact() }
        for (name, value) in model where name != "a/key7" {
            let parts = name.split(separator: "/", maxSplits: 1)
            #expect(try store.get(Array(parts[1].utf8), in: String(parts[0])) == value)
        }
        try store.put([1], for: Array("key9".utf8), in: "a")
        var after = model
        after["a/key9"] = [1]
        try store.close()
        try expectRebuilt(dir.path, after)
    }
}
