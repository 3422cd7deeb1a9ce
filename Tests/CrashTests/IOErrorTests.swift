import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// I/O errors (issue 8, part 5): `EIO`, `ENOSPC`, short and empty writes at every call of a
/// scenario (every ``stride``th in the default tier), once and persistently. A commit never
/// reports success unless a successful `fdatasync` followed its writes; after a failed
/// `fdatasync` the store refuses writes until it is reopened; after reopening every
/// acknowledged commit is there and a second open is clean.
@Suite struct IOErrorTests {
    /// Every how many of the calls a fault kind applies to one is injected: every 12th in the
    /// default tier (from a seeded offset, so that runs cover different calls; `LOGBOOK_SEED`
    /// replays one), every call in the long tier. `LOGBOOK_FAULT_STRIDE` sets it.
    static let stride =
        ProcessInfo.processInfo.environment["LOGBOOK_FAULT_STRIDE"].flatMap { Int($0) }
        ?? TestTier.pick(quick: 12, long: 1)

    /// Single puts, batches of 10 and 1,000, deletes, segment rolls, a streaming commit, a
    /// buffered commit and a sync, compaction, reopening, and close.
    static func scenario(seed: UInt64) -> [FaultStep] {
        var rng = SeededGenerator(seed: seed)
        // Eight bytes from each number: a generic call per byte made the 1.3 MB of values
        // (the streaming commit's 1.2 MB) cost about 0.2 s of CPU in a debug build.
        func value(_ n: Int) -> [UInt8] { rng.bytes(n) }
        var steps: [FaultStep] = [.open]
        steps.append(.commit([.put(keyspace: "a", key: "k0", value: value(16))], .sync))
        steps.append(
            .commit((0..<10).map { .put(keyspace: "a", key: "t\($0)", value: value(20)) }, .sync))
        steps.append(
            .commit(
                (0..<1000).map { .put(keyspace: "b", key: "big\($0)", value: value(70)) }, .sync))
        steps.append(
            .commit(
                [.delete(keyspace: "a", key: "k0"), .delete(keyspace: "a", key: "none")], .sync))
        for i in 0..<4 {
            steps.append(.commit([.put(keyspace: "a", key: "r\(i % 2)", value: value(150))], .sync))
        }
        // A streaming commit of about 1.2 MB (two writes before it ends), then a commit that
        // deletes most of it, so that compaction copies little into the small segments.
        steps.append(
            .stream(
                (0..<3).map { part in
                    (0..<400).map {
                        .put(keyspace: "s", key: "s\(part * 400 + $0)", value: value(1000))
                    }
                }, .sync))
        steps.append(.commit((3..<1200).map { .delete(keyspace: "s", key: "s\($0)") }, .sync))
        steps.append(.commit([.put(keyspace: "a", key: "buffered", value: value(8))], .buffered))
        steps.append(.sync)
        steps.append(.commit([.put(keyspace: "a", key: "buffered2", value: value(8))], .buffered))
        steps.append(.commit([.put(keyspace: "a", key: "synced", value: value(8))], .sync))
        steps.append(.sync)
        steps.append(.compact)
        steps.append(.commit([.delete(keyspace: "a", key: "t1")], .sync))
        steps.append(.commit([.put(keyspace: "a", key: "after", value: value(30))], .sync))
        steps.append(.reopen)
        steps.append(.commit([.put(keyspace: "a", key: "reopened", value: value(30))], .sync))
        steps.append(.compact)
        steps.append(.commit([.put(keyspace: "b", key: "last", value: value(10))], .sync))
        steps.append(.close)
        return steps
    }

    /// The scenario every fault kind runs, made once: its 1.3 MB of seeded values took a sixth
    /// of the suite's time in debug builds when each of the six kinds made its own.
    static let steps = scenario(seed: 11)

    @Test(arguments: InjectedFault.allCases)
    func faultAtEveryCallLosesNothingAcknowledged(_ kind: InjectedFault) throws {
        let scratch = ScratchDirectory("faults")
        defer { scratch.remove() }
        let steps = Self.steps
        let segmentSize = 16 << 10
        // The clean run: which calls there are to fail.
        var clean = FaultRun(path: scratch.child("clean"), segmentSize: segmentSize)
        clean.run(steps)
        clean.finalCheck()
        #expect(clean.problems.isEmpty, "clean run: \(clean.problems)")
        let calls = clean.faults.calls
        let offset = Int(testSeed("I/O errors, \(kind)") % UInt64(Self.stride))
        var seen: [String: Int] = [:]
        var runs = 0
        var failures: [String] = []
        var resurfaced = 0
        var applicable = 0
        let started = Date()
        for (i, call) in calls.enumerated() {
            let skip = seen[call.operation, default: 0]
            seen[call.operation] = skip + 1
            guard kind.applies(to: call.operation) else { continue }
            // Every stride-th call the fault applies to, so each kind gets its share.
            applicable += 1
            guard (applicable - 1) % Self.stride == offset else { continue }
            let path = scratch.child("run\(i)")
            var run = FaultRun(path: path, segmentSize: segmentSize)
            run.faults.inject(kind.fault, on: call.operation, skip: skip, times: kind.times)
            run.run(steps)
            run.faults.heal()
            run.finalCheck()
            runs += 1
            resurfaced += run.resurfaced
            let at =
                "\(kind) at call \(i) (\(call.operation) \(URL(fileURLWithPath: call.path).lastPathComponent))"
            failures += run.problems.map { "\(at): \($0)" }
            try? FileManager.default.removeItem(atPath: path)
        }
        print(
            "I/O errors, \(kind): \(runs) runs over \(calls.count) calls, \(failures.count) problems, "
                + "\(resurfaced) failed commits found after reopening, "
                + String(format: "%.1f s", Date().timeIntervalSince(started)))
        for failure in failures.prefix(8) { Issue.record("\(failure)") }
        #expect(runs > 0)
    }
}

/// A real `ENOSPC`: a store on a 1 MiB tmpfs filled until a commit fails. Needs root (to mount
/// a tmpfs); without it the suite is skipped, and says why.
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs (for a real ENOSPC) needs root"))
struct DiskFullTests {
    /// Runs a command; its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        } catch {
            return -1
        }
    }

    /// Calls `body` with a store path on a fresh tmpfs of `size` (`mount -o size=`), unmounted
    /// afterwards.
    private func onSmallFileSystem(size: String, _ body: (String) throws -> Void) throws {
        let scratch = TemporaryDirectory("enospc")
        defer { scratch.remove() }
        let mountPoint = scratch.child("mnt")
        try FileManager.default.createDirectory(
            atPath: mountPoint, withIntermediateDirectories: false)
        try #require(
            Self.run(["mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mountPoint]) == 0,
            "mount -t tmpfs failed although running as root")
        defer { _ = Self.run(["umount", mountPoint]) }
        try body(mountPoint + "/store")
    }

    private var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 256 << 10
        options.autoCompactionDeadFraction = nil
        return options
    }

    @Test func fillingARealSmallFileSystemLosesNothingAcknowledged() throws {
        try onSmallFileSystem(size: "1m") { path in
            var rng = SeededGenerator(seed: testSeed("real ENOSPC"))
            var model: Contents = [:]
            var failures = 0
            var commits = 0
            var lastError: Error?
            do {
                let store = try openStore(path, options: options)
                // Fill it: commits of 1 to 40 KB until several fail; a failed commit is not visible.
                var i = 0
                while failures < 5 && i < 10_000 {
                    i += 1
                    let value = (0..<Int.random(in: 1_000...40_000, using: &rng)).map { _ in
                        UInt8(truncatingIfNeeded: i)
                    }
                    let key = "k\(i % 40)"
                    do {
                        try store.put(value, for: Array(key.utf8), in: "a")
                        model["a/" + key] = value
                        commits += 1
                    } catch {
                        failures += 1
                        lastError = error
                        #expect(try contents(of: store) == model, "a failed commit is visible")
                    }
                }
                // Smaller commits may still fit; deletes need space too.
                try? store.close()
            }
            #expect(commits > 5)
            #expect(failures > 0, "the file system never filled")
            if case LogStoreError.io(_, _, let code)? = lastError {
                #expect(code == ENOSPC || code == EIO, "failed with errno \(code)")
            }
            let reopened = try openStore(path, options: options)
            #expect(try contents(of: reopened) == model)
            try reopened.close()
            print("real ENOSPC: \(commits) commits, \(failures) refused for lack of space")
        }
    }

    /// A streaming commit larger than the file system: an append fails with `ENOSPC` part way,
    /// nothing of the commit is visible, its bytes are cut away (so the space comes back), and
    /// the store goes on.
    @Test func streamingCommitThatRunsOutOfSpaceLeavesNothing() throws {
        try onSmallFileSystem(size: "2m") { path in
            var rng = SeededGenerator(seed: testSeed("real ENOSPC, streaming"))
            let store = try openStore(path, options: options)
            try store.put([1, 2, 3], for: Array("kept".utf8), in: "a")
            let commit = try store.beginCommit()
            var failure: Error?
            for piece in 0..<40 {
                var batch = WriteBatch()
                for i in 0..<100 {
                    batch.put(
                        (0..<1000).map { _ in UInt8.random(in: 0...255, using: &rng) },
                        for: Array("s\(piece)-\(i)".utf8), in: "s")
                }
                do {
                    try commit.append(batch)
                } catch {
                    failure = error
                    break
                }
            }
            guard case LogStoreError.io(_, _, let code)? = failure else {
                Issue.record(
                    "4 MB streamed into a 2 MiB file system without an error: \(String(describing: failure))"
                )
                return
            }
            #expect(code == ENOSPC)
            #expect(throws: LogStoreError.self) { try commit.finish() }
            #expect(try contents(of: store) == ["a/kept": [1, 2, 3]])
            // The cut gave the space back: an ordinary commit fits.
            #expect(try store.put([4], for: Array("after".utf8), in: "a") == 2)
            try store.close()
            let reopened = try openStore(path, options: options)
            #expect(try contents(of: reopened) == ["a/kept": [1, 2, 3], "a/after": [4]])
            #expect(reopened.recovery.isClean)
            try reopened.close()
        }
    }
}
