import Foundation
import LogStore
import TestSupport
import Testing

/// `waitUntilDurable(_:)`: `.buffered` commits whose callers then wait for them share one
/// `fdatasync`, outside the commit queue (the object layer's durable saves, issue 14).
@Suite struct SharedSyncTests {
    private func open(_ path: String, _ fs: FaultInjectingFileSystem) throws -> LogStore {
        var options = LogStoreOptions()
        options.fileSystem = fs
        return try LogStore(path: path, options: options)
    }

    private func syncs(_ fs: FaultInjectingFileSystem) -> Int {
        fs.calls.filter { $0.operation == "fdatasync" && $0.path.hasSuffix(".seg") }.count
    }

    @Test func waitersShareFdatasyncsAndCommitsGoOnMeanwhile() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fs = FaultInjectingFileSystem()
        let store = try open(dir.child("s"), fs)
        fs.inject(.delay(3_000), on: "fdatasync", pathSuffix: ".seg", times: Int.max)
        let before = syncs(fs)
        let (threads, perThread) = (8, 10)
        let done = DispatchGroup()
        for t in 0..<threads {
            done.enter()
            Thread {
                for i in 0..<perThread {
                    let sequence = try! store.put(
                        b("\(i)"), for: b("t\(t)k\(i)"), in: "k", durability: .buffered)
                    try! store.waitUntilDurable(sequence)
                }
                done.leave()
            }.start()
        }
        done.wait()
        let shared = syncs(fs) - before
        #expect(shared < threads * perThread * 3 / 4, "\(shared) syncs for \(threads * perThread)")
        #expect(try store.keys(in: "k").count == threads * perThread)
        try store.close()
    }

    @Test func aFailedSharedSyncDisablesWrites() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fs = FaultInjectingFileSystem()
        let store = try open(dir.child("s"), fs)
        let sequence = try store.put(b("1"), for: b("a"), in: "k", durability: .buffered)
        fs.inject(.error(EIO), on: "fdatasync", pathSuffix: ".seg")
        #expect(throws: LogStoreError.self) { try store.waitUntilDurable(sequence) }
        do {
            try store.put(b("2"), for: b("b"), in: "k")
            Issue.record("a commit after a failed shared sync was accepted")
        } catch LogStoreError.writesDisabled {
        } catch {
            Issue.record("unexpected \(error)")
        }
        // A wait the failed sync did not satisfy fails too, even with the disk back.
        #expect(throws: LogStoreError.self) { try store.waitUntilDurable(sequence) }
        _ = try? store.close()
    }

    /// The writer's sync marks vouch for what shared syncs made durable: the group after one
    /// starts with a mark, as after a `.sync` commit.
    @Test func theGroupAfterASharedSyncStartsWithASyncMark() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        func growth(waiting: Bool, _ path: String) throws -> Int {
            let fs = FaultInjectingFileSystem()
            let store = try open(path, fs)
            let first = try store.put(b("1"), for: b("a"), in: "k", durability: .buffered)
            if waiting { try store.waitUntilDurable(first) }
            let segment = segmentFiles(path)[0]
            let before = readFile(segment).count
            try store.put(b("2"), for: b("b"), in: "k", durability: .buffered)
            let after = readFile(segment).count
            try store.close()
            return after - before
        }
        let plain = try growth(waiting: false, dir.child("plain"))
        let marked = try growth(waiting: true, dir.child("marked"))
        #expect(marked > plain, "no sync mark after the shared sync (\(marked) vs \(plain) bytes)")
    }
}
