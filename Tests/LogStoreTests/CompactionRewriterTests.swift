import Foundation
import LogStore
import Synchronization
import TestSupport
import Testing

/// What compaction asks a ``CompactionRewriter``: a keyspace's rewrite is prepared once per
/// compaction, then applied to each of its live records; the default preparation answers
/// through ``CompactionRewriter/rewrite(_:in:)``.
@Suite struct CompactionRewriterTests {
    /// Rewrites the values of keyspace "a" that start with "old" to start with "new";
    /// implements only the two basic requirements.
    struct Renamer: CompactionRewriter {
        func rewrites(keyspace: String) -> Bool { keyspace == "a" }
        func rewrite(_ value: UnsafeRawBufferPointer, in keyspace: String) -> [UInt8]? {
            guard keyspace == "a", value.starts(with: Array("old".utf8)) else { return nil }
            return Array("new".utf8) + value.dropFirst(3)
        }
    }

    /// The renamer with a prepared rewrite, counting how often each way is asked.
    final class CountingRenamer: CompactionRewriter {
        let prepared = Mutex<[String]>([])
        let perRecord = Atomic<Int>(0)
        func rewrites(keyspace: String) -> Bool { keyspace == "a" }
        func rewrite(_ value: UnsafeRawBufferPointer, in keyspace: String) -> [UInt8]? {
            perRecord.add(1, ordering: .relaxed)
            return Renamer().rewrite(value, in: keyspace)
        }
        func preparedRewrite(
            forKeyspace keyspace: String
        ) -> ((UnsafeRawBufferPointer) -> [UInt8]?)? {
            prepared.withLock { $0.append(keyspace) }
            guard keyspace == "a" else { return nil }
            return { Renamer().rewrite($0, in: "a") }
        }
    }

    /// Writes 200 keys in each of "a" and "b" (half of each "old…", half "keep…") over several
    /// segments, with overwrites, so there is something to compact; then 8 KiB in keyspace "z",
    /// so that the newest segment, which compaction leaves, holds none of them.
    private func fill(_ store: LogStore) throws {
        for round in 0..<3 {
            for i in 0..<200 {
                let value = Array((i % 2 == 0 ? "old\(i)-\(round)" : "keep\(i)-\(round)").utf8)
                for keyspace in ["a", "b"] {
                    try store.put(
                        value, for: Array("key\(i)".utf8), in: keyspace, durability: .buffered)
                }
            }
        }
        for i in 0..<32 {
            try store.put(
                [UInt8](repeating: 7, count: 256), for: Array("z\(i)".utf8), in: "z",
                durability: .buffered)
        }
    }

    private var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.autoCompactionDeadFraction = nil
        return options
    }

    private func expectRenamed(_ store: LogStore) throws {
        for i in 0..<200 {
            let key = Array("key\(i)".utf8)
            let prefix = i % 2 == 0 ? "new" : "keep"
            #expect(try store.get(key, in: "a") == Array("\(prefix)\(i)-2".utf8))
            let untouched = i % 2 == 0 ? "old" : "keep"
            #expect(try store.get(key, in: "b") == Array("\(untouched)\(i)-2".utf8))
        }
    }

    @Test func theDefaultPreparationRewritesThroughRewriteInKeyspace() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options)
        try fill(store)
        store.setCompactionRewriter(Renamer())
        _ = try store.compact()
        try expectRenamed(store)
    }

    @Test func aPreparedRewriteIsAskedOncePerKeyspaceAndAppliedToEachRecord() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options)
        try fill(store)
        let rewriter = CountingRenamer()
        store.setCompactionRewriter(rewriter)
        _ = try store.compact()
        try expectRenamed(store)
        #expect(rewriter.prepared.withLock { $0.sorted() } == ["a", "b", "z"])
        #expect(rewriter.perRecord.load(ordering: .relaxed) == 0)
    }
}
