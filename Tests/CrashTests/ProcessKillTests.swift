import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real process kills (issue 8, part 2): a child process (`logbook-crash-child`, built with the
/// tests) writes mixed saves, deletes, streaming commits (``KillWorkload/streams(seed:sequence:count:)``)
/// and compactions and reports each acknowledged sequence
/// number; the parent kills it with SIGKILL at a random moment, reopens the store and checks it
/// against its model. The store carries over from kill to kill, so later children also recover
/// what earlier ones left.
@Suite struct ProcessKillTests {
    static let kills =
        ProcessInfo.processInfo.environment["LOGBOOK_KILLS"].flatMap { Int($0) }
        ?? TestTier.pick(quick: 100, long: 10_000)
    /// The longest a child commits, in microseconds, before it is killed (from its first
    /// acknowledgement; more after rounds without one): 20 ms in the default tier, 40 in the
    /// long one. The child's commits and the parent's model and reopen of what they wrote are
    /// most of the suite's CPU.
    static let maxDelay = TestTier.pick(quick: 20_000, long: 40_000)

    @Test func killedWriterLosesNothingAcknowledged() throws {
        let child = try #require(
            builtExecutable("logbook-crash-child"),
            "logbook-crash-child is not built; run `swift build`")
        let seed = testSeed("process kills")
        var rng = SeededGenerator(seed: seed)
        let scratch = ScratchDirectory("kill")
        defer { scratch.remove() }
        let path = scratch.child("store")
        let acks = scratch.child("acks")
        let pidFile = scratch.child("pid")
        var contents: Contents = [:]
        var modelSequence: UInt64 = 0
        var inFlightSeen = 0
        var compactionsSeen = 0
        var streamsSeen = 0
        /// Rounds in a row in which no commit was acknowledged.
        var stalled = 0
        let started = Date()
        for round in 0..<Self.kills {
            try? FileManager.default.removeItem(atPath: acks)
            try? FileManager.default.removeItem(atPath: pidFile)
            // Mostly while committing; sometimes while opening (recovery) itself. A child that
            // was killed before it finished a commit gets more time next round (up to 32 times),
            // so a large commit is finished eventually, even on a busy machine.
            let duringOpen = Int.random(in: 0..<10, using: &rng) == 0
            let delay =
                duringOpen
                ? Int.random(in: 0..<3_000, using: &rng)
                : Int.random(in: 0..<(Self.maxDelay << min(stalled, 5)), using: &rng)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: child)
            process.arguments = [path, acks, pidFile, String(seed), duringOpen ? "open" : "commit"]
            // The backtracer can take minutes over a process that is meant to die.
            process.environment = ["SWIFT_BACKTRACE": "enable=no"]
            try process.run()
            // While committing, the delay runs from the child's first acknowledgement, so that
            // a loaded machine (a slow child) still gets commits between kills.
            let ready = Self.kill(
                process.processIdentifier, whenReady: pidFile,
                acknowledged: duringOpen ? nil : acks,
                after: delay)
            process.waitUntilExit()
            guard ready, process.terminationReason == .uncaughtSignal,
                process.terminationStatus == SIGKILL
            else {
                Issue.record(
                    "kill \(round): the child \(ready ? "ended" : "never started") with status \(process.terminationStatus)"
                )
                return
            }
            let acknowledged = KillWorkload.lastAcknowledged(acks)
            stalled = acknowledged > modelSequence || duringOpen ? 0 : stalled + 1
            let store = try openStore(path, options: KillWorkload.options)
            let last = store.lastSequence
            guard last >= max(acknowledged, modelSequence) else {
                let message: String =
                    "kill \(round), seed \(seed): acknowledged commits lost: last sequence \(last), "
                    + "acknowledged \(acknowledged), before this child \(modelSequence)"
                Issue.record("\(message)")
                return
            }
            // One commit at most was in flight.
            #expect(
                acknowledged == 0 || last <= acknowledged + 1,
                "kill \(round): sequence \(last) was never attempted (acknowledged \(acknowledged))"
            )
            if last == acknowledged + 1 && acknowledged > 0 { inFlightSeen += 1 }
            while modelSequence < last {
                modelSequence += 1
                let changes = KillWorkload.changes(seed: seed, sequence: modelSequence)
                Change.apply(changes, to: &contents)
                if KillWorkload.streams(seed: seed, sequence: modelSequence, count: changes.count) {
                    streamsSeen += 1
                }
                if KillWorkload.compactsAfter(seed: seed, sequence: modelSequence) {
                    compactionsSeen += 1
                }
            }
            let found = try CrashTests.contents(of: store)
            guard found == contents else {
                let message: String =
                    "kill \(round), seed \(seed): contents after commit \(last) wrong: "
                    + describeDifference(found, contents)
                Issue.record("\(message)")
                return
            }
            try store.close()
        }
        print(
            "process kills: \(Self.kills) kills, \(modelSequence) commits (\(streamsSeen) streamed), "
                + "\(compactionsSeen) compactions, \(inFlightSeen) times the commit in flight was found durable, "
                + String(format: "%.1f s", Date().timeIntervalSince(started)))
        #expect(modelSequence > UInt64(Self.kills))
        #expect(streamsSeen > 0)
    }

    /// Waits for the child to write its pid file (and, given `acks`, to acknowledge a commit),
    /// then waits `delay` microseconds and kills it; `false` (after killing it) if it never got
    /// that far.
    static func kill(
        _ pid: Int32, whenReady pidFile: String, acknowledged acks: String?, after delay: Int
    )
        -> Bool
    {
        let deadline = Date().addingTimeInterval(60)
        var ready = false
        while !ready && Date() < deadline {
            ready =
                FileManager.default.fileExists(atPath: pidFile)
                && acks.map { KillWorkload.lastAcknowledged($0) > 0 } ?? true
            if !ready { usleep(200) }
        }
        if ready { usleep(UInt32(delay)) }
        Foundation.kill(pid, SIGKILL)
        return ready
    }
}
