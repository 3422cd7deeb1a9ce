import Foundation
import LogStore
import Synchronization
import TestSupport
import Testing

/// The reading commands on a store that another writer has open: they take no lock, change
/// nothing, and check only what the writer had committed when they opened it.
@Suite struct ConcurrentAccessTests {
    /// The pause, in microseconds, of the writer beside `verify` and `dump` after each commit:
    /// in the default tier about a synced commit's time on a disk (the scratch stores are on
    /// tmpfs, where a sync costs nothing, and a writer without a pause grows the log they read
    /// as fast as a core can); none in the long tier.
    static let writerPause = TestTier.pick(quick: UInt32(500), long: 0)

    @Test func readingCommandsWorkWhileAnotherProcessWrites() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path)
        let writer = try Stores.openStore(path)
        defer { try? writer.close() }
        try writer.put(b("Cy"), for: b("e3"), in: "people")
        let before = segmentFiles(path).map(readFile)
        for command in ["dump", "verify", "stats"] {
            let result = try CLI.run([command, path])
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        #expect(try CLI.run(["dump", path]).stdout.contains("\"Cy\""))
        #expect(segmentFiles(path).map(readFile) == before)
    }

    @Test func verifyAndDumpWhileAnotherWriterCommits() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path)
        let writer = try Stores.openStore(path)
        let stop = Atomic<Bool>(false)
        let commits = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var i = 0
            while !stop.load(ordering: .relaxed) {
                if (try? writer.put(b("value \(i)"), for: b("key \(i % 50)"), in: "busy")) != nil {
                    commits.add(1, ordering: .relaxed)
                }
                i += 1
                if Self.writerPause > 0 { usleep(Self.writerPause) }
            }
            done.signal()
        }
        defer {
            stop.store(true, ordering: .relaxed)
            done.wait()
            try? writer.close()
        }
        for round in 0..<5 {
            let verify = try CLI.run(["verify", path])
            #expect(verify.status == 0, "round \(round): \(verify.stdout)")
            let dump = try CLI.run(["dump", path, "--live", "--format", "jsonl"])
            #expect(dump.status == 0, "round \(round): \(dump.stderr)")
        }
        print(
            "verify and dump beside a writer: \(commits.load(ordering: .relaxed)) commits meanwhile"
        )
    }

    @Test func verifyWhileTheWriterCompacts() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.manySegments(at: path)
        var options = LogStoreOptions()
        options.segmentSize = 200
        let writer = try Stores.openStore(path, options: options)
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var i = 0
            while !stop.load(ordering: .relaxed) {
                _ = try? writer.put(b("value \(i)"), for: b("key \(i % 50)"), in: "busy")
                if i % 20 == 0 { _ = try? writer.compact() }
                i += 1
            }
            done.signal()
        }
        defer {
            stop.store(true, ordering: .relaxed)
            done.wait()
            try? writer.close()
        }
        for round in 0..<8 {
            // A file vanishing under verify makes it check again, so it never reports damage.
            let verify = try CLI.run(["verify", path])
            #expect(verify.status == 0, "round \(round): \(verify.stdout)")
            // A dump cannot take back what it printed: it says the store changed under it.
            let dump = try CLI.run(["dump", path, "--format", "jsonl"])
            #expect(
                dump.status == 0 || dump.stderr.contains("was compacted while it was read"),
                "round \(round): \(dump.stderr)")
        }
    }
}
