import LogStore
import Synchronization
import TestSupport
import Testing

/// Compaction re-points the index (step 4) by the list of where its copy found each record, not
/// by a second walk over the tables. Commits that run between the copy and the re-pointing move
/// entries: a removal shifts the entries after it back, growing the table rehashes every entry,
/// an overwrite points the key elsewhere. The index stays exact either way, and nothing is left
/// pointing into an input.
@Suite struct CompactionRepointTests {
    enum Change: String, CaseIterable, Sendable {
        /// Removes keys: later entries of their probe runs shift back into other slots.
        case remove
        /// Adds more keys than the table has room for (1,536 of 2,048 slots): it grows, every
        /// entry rehashed.
        case grow
        /// Overwrites keys: their entries point at the new records, which stay.
        case overwrite
    }

    /// Runs `body` once, on the first sync of a compaction output (after the copy, before the
    /// re-pointing).
    final class OnceAfterCopy: Sendable {
        let body = Mutex<(@Sendable () -> Void)?>(nil)
        func run() { body.withLock { $0.take() }?() }
    }

    @Test(arguments: Change.allCases)
    func commitsBetweenCopyAndRepointingKeepTheIndexExact(change: Change) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let hook = OnceAfterCopy()
        var options = LogStoreOptions()
        options.segmentSize = 64 << 10
        options.autoCompactionDeadFraction = nil
        options.compactionWindow = 256  // several windows
        options.fileSystem = HookedFileSystem(afterSync: { file in
            if file.path.hasSuffix(".seg.tmp") { hook.run() }
        })
        let store = try LogStore(path: path, options: options)
        var model: [String: [UInt8]] = [:]
        // 1,500 keys written twice: half the log is dead, the table holds 2,048 slots.
        for round in 0..<2 {
            var batch = WriteBatch()
            for i in 0..<1500 {
                let value = [UInt8](repeating: UInt8(round), count: 40 + i % 50)
                batch.put(value, for: b("key\(i)"), in: "k")
                model["key\(i)"] = value
            }
            try store.commit(batch, durability: .buffered)
        }
        let changed = Mutex(model)
        hook.body.withLock {
            $0 = {
                changed.withLock { model in
                    var batch = WriteBatch()
                    switch change {
                    case .remove:
                        for i in stride(from: 0, to: 1500, by: 3) {
                            batch.delete(b("key\(i)"), in: "k")
                            model["key\(i)"] = nil
                        }
                    case .grow:
                        for i in 1500..<4000 {
                            batch.put(b("new\(i)"), for: b("key\(i)"), in: "k")
                            model["key\(i)"] = b("new\(i)")
                        }
                    case .overwrite:
                        for i in stride(from: 0, to: 1500, by: 7) {
                            batch.put(b("over\(i)"), for: b("key\(i)"), in: "k")
                            model["key\(i)"] = b("over\(i)")
                        }
                    }
                    try! store.commit(batch, durability: .buffered)
                }
            }
        }
        let report = try store.compact()
        #expect(report.segmentsCompacted > 1)
        model = changed.withLock { $0 }
        #expect(try CommitHistory.contents(of: store) == model)
        for (key, value) in model { #expect(try store.get(b(key), in: "k") == value) }
        // Nothing points into the removed inputs: a second compaction and a reopen agree.
        try store.compact()
        #expect(try CommitHistory.contents(of: store) == model)
        try store.close()
        let reopened = try LogStore(path: path, options: LogStoreOptions())
        #expect(try CommitHistory.contents(of: reopened) == model)
    }
}
