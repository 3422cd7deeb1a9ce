import Foundation
import TestSupport
import Testing

@testable import LogStore

/// Writes to a store whose index was mapped from `keys.dir` at open: they keep what the app's
/// reads mapped, and the table leaves its mapping once written often.
@Suite struct MappedWriteTests {
    private func options() -> LogStoreOptions { .alwaysWritingKeyDirectoryFile }

    private func table(_ store: LogStore, _ keyspace: String) -> KeyDirectory.EntryTable {
        store.index.withLock { $0.directories[$0.keyspaces.id(of: keyspace)!].table }
    }

    /// A few writes leave the table mapped (each costs the kernel's copy of one page); once
    /// writes reach an eighth of its pages, the table is copied into memory of its own, and
    /// every key keeps its value, before and after a reopen.
    @Test func aMappedTableWrittenOftenMovesToMemoryOfItsOwn() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        let first = try LogStore(path: dir.path, options: options())
        var batch = WriteBatch()
        for i in 0..<20_000 {
            let value = Array("v\(i)".utf8)
            batch.put(value, for: Array("k\(i)".utf8), in: "k")
            model["k\(i)"] = value
        }
        _ = try first.commit(batch, durability: .sync)
        try first.close()

        let store = try LogStore(path: dir.path, options: options())
        #expect(store.recovery.notes.isEmpty)
        #expect(table(store, "k").isMapped)
        // 32,768 slots of 12 bytes: 96 pages, so the table moves after 12 writes.
        let pages = table(store, "k").count * MemoryLayout<KeyDirectory.Entry>.stride / 4096
        try store.put([1], for: Array("k1".utf8), in: "k", durability: .buffered)
        model["k1"] = [1]
        #expect(table(store, "k").isMapped)
        for i in 2...(pages / 8 + 1) {
            try store.put([2], for: Array("k\(i)".utf8), in: "k", durability: .buffered)
            model["k\(i)"] = [2]
        }
        #expect(!table(store, "k").isMapped)
        #expect(try CommitHistory.contents(of: store) == model)
        try store.close()
        let again = try LogStore(path: dir.path, options: options())
        defer { try? again.close() }
        #expect(try CommitHistory.contents(of: again) == model)
    }

    #if os(Linux)
        /// A large batch hands back the pages of what it wrote as it publishes (a bulk load
        /// does not hold its segment resident), but not the pages before it: those hold what
        /// the app read, and the batch's overwrites read them again to compare keys. Dropping
        /// them made every 4,096 puts fault them all back.
        @Test func anOverwriteBatchKeepsThePagesTheAppRead() throws {
            let dir = TemporaryDirectory()
            defer { dir.remove() }
            let first = try LogStore(path: dir.path, options: options())
            var load = WriteBatch()
            for i in 0..<4_000 {  // 16 MB of values
                load.put(
                    [UInt8](repeating: UInt8(i & 0xFF), count: 4096), for: Array("k\(i)".utf8),
                    in: "k")
            }
            _ = try first.commit(load, durability: .sync)
            try first.close()

            let store = try LogStore(path: dir.path, options: options())
            defer { try? store.close() }
            for i in 0..<4_000 { _ = try store.get(Array("k\(i)".utf8), in: "k") }
            let read = try #require(residentKB(ofFilesUnder: dir.path, endingIn: ".seg"))
            #expect(read >= 15_000, "resident after reading: \(read) KB")
            // Two release intervals of puts: overwrites of every key, then new ones.
            var batch = WriteBatch()
            for i in 0..<(2 * LogWriter.releaseInterval) {
                batch.put([7], for: Array("k\(i)".utf8), in: "k")
            }
            _ = try store.commit(batch, durability: .buffered)
            let after = try #require(residentKB(ofFilesUnder: dir.path, endingIn: ".seg"))
            #expect(
                after >= read * 9 / 10,
                "resident: \(read) KB after reading, \(after) KB after the batch")
            #expect(try store.get(Array("k3999".utf8), in: "k") == [7])
        }
    #endif
}
