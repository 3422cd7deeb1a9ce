import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct ConcurrencyTests {
    @Test func threadsCommittingAndReadingSeeNoTornOrLostValues() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path)
        let writers = 4
        let perWriter = 200
        DispatchQueue.concurrentPerform(iterations: writers * 2) { worker in
            if worker < writers {
                for i in 0..<perWriter {
                    // Each value is its key repeated: a reader can tell a torn value.
                    let key = Array("w\(worker)-\(i)".utf8)
                    var batch = WriteBatch()
                    batch.put(key + key, for: key, in: "k")
                    batch.put(b("\(i)"), for: b("w\(worker)-last"), in: "progress")
                    _ = try? store.commit(batch, durability: i % 3 == 0 ? .sync : .buffered)
                }
            } else {
                let writer = worker - writers
                for _ in 0..<400 {
                    guard let last = try? store.get(b("w\(writer)-last"), in: "progress"),
                        let n = Int(String(decoding: last, as: UTF8.self))
                    else { continue }
                    // Everything up to the last visible commit of that writer is visible too.
                    let key = Array("w\(writer)-\(n)".utf8)
                    #expect(try! store.get(key, in: "k") == key + key)
                }
            }
        }
        #expect(try store.count(in: "k") == writers * perWriter)
        try store.close()
        let reopened = try LogStore(path: path)
        #expect(try reopened.count(in: "k") == writers * perWriter)
        #expect(reopened.lastSequence == UInt64(writers * perWriter))
    }

    /// Group commit: `.sync` commits made while an `fdatasync` runs wait for the next one and
    /// share it. With each `fdatasync` slowed to 2 ms, 8 threads committing 50 times each need far
    /// fewer syncs than commits; one per commit (no sharing) fails the test.
    @Test func concurrentSyncCommitsShareFdatasyncs() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fs = FaultInjectingFileSystem()
        var options = LogStoreOptions()
        options.fileSystem = fs
        let store = try LogStore(path: dir.child("s"), options: options)
        fs.inject(.delay(2_000), on: "fdatasync", pathSuffix: ".seg", times: .max)
        let before = fs.calls.filter { $0.operation == "fdatasync" }.count
        let threads = 8
        let perThread = 50
        // Threads of their own: concurrentPerform would run only as many as there are cores.
        let done = DispatchGroup()
        for worker in 0..<threads {
            done.enter()
            Thread {
                for i in 0..<perThread {
                    _ = try? store.put(
                        b("v"), for: b("\(worker)-\(i)"), in: "k", durability: .sync)
                }
                done.leave()
            }.start()
        }
        done.wait()
        let syncs = fs.calls.filter { $0.operation == "fdatasync" }.count - before
        let commits = threads * perThread
        #expect(try store.count(in: "k") == commits)
        #expect(syncs >= 1)
        // Each sync serves 3 commits on average at least (8 threads queue during 2 ms; with no
        // sharing there is one per commit).
        #expect(syncs * 3 <= commits, "\(syncs) fdatasyncs for \(commits) commits")
    }

    @Test func secondProcessGetsTheLockError() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path)
        try store.put(b("v"), for: b("k"), in: "a")
        await #expect(processExitsWith: .exitCode(42)) { [path = path as String] in
            do {
                _ = try LogStore(path: path)
                exit(1)
            } catch LogStoreError.locked(let lockedPath) where lockedPath == path {
                exit(42)
            } catch {
                exit(2)
            }
        }
        try store.close()
    }
}
