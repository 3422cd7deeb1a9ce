import LogStore
import Synchronization
import TestSupport
import Testing

/// Compaction has the OS start writing each piece of an output segment as soon as it is handed
/// over (``FileSystem/startWriteback(_:from:length:)``), so that the `fdatasync` finishing the
/// output waits only for the last piece; the sync still comes before the rename.
@Suite struct CompactionWritebackTests {
    /// What the hooked file system saw of the `.seg.tmp` outputs, in order.
    final class Events: Sendable {
        enum Event: Equatable {
            case writeback(path: String, offset: Int64, length: Int)
            case sync(path: String)
        }
        let list = Mutex<[Event]>([])
    }

    @Test func everyByteOfAnOutputIsWrittenBackBeforeItsSync() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let events = Events()
        var options = LogStoreOptions()
        options.autoCompactionDeadFraction = nil
        options.fileSystem = HookedFileSystem(
            afterWriteback: { file, offset, length in
                guard file.path.hasSuffix(".seg.tmp") else { return }
                events.list.withLock {
                    $0.append(.writeback(path: file.path, offset: offset, length: length))
                }
            },
            afterSync: { file in
                guard file.path.hasSuffix(".seg.tmp") else { return }
                events.list.withLock { $0.append(.sync(path: file.path)) }
            })
        let store = try LogStore(path: dir.child("s"), options: options)
        // About 3 MB of live values, twice: the output holds several 1 MiB pieces.
        let value = [UInt8](repeating: 7, count: 1000)
        for round in 0..<2 {
            var batch = WriteBatch()
            for i in 0..<3000 {
                batch.put(value + [UInt8(round)], for: Array("k\(i)".utf8), in: "k")
            }
            try store.commit(batch)
        }
        try store.compact()
        let seen = events.list.withLock { $0 }
        let syncs = seen.compactMap { if case .sync(let path) = $0 { path } else { nil } }
        #expect(syncs.count == 1)
        // The pieces written back tile the output from its start to its end, before its sync.
        var end: Int64 = 0
        for event in seen {
            guard case .writeback(let path, let offset, let length) = event else { break }
            #expect(path == syncs.first)
            #expect(offset == end)
            end = offset + Int64(length)
        }
        #expect(end > 3_000_000)
        let output = syncs.first.map { String($0.dropLast(".tmp".count)) } ?? ""
        #expect(end == Int64(readFile(output).count))
        try store.close()
    }
}
