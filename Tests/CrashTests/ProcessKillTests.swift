import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real process kills (issue 8, part 2): a child process writes mixed saves, deletes and
/// compactions and reports each acknowledged sequence number; the parent kills it with SIGKILL
/// at a random moment, reopens the store and checks it against its model. The store carries
/// over from kill to kill, so later children also recover what earlier ones left.
@Suite struct ProcessKillTests {
    static let kills =
        ProcessInfo.processInfo.environment["LOGBOOK_KILLS"].flatMap { Int($0) }
        ?? Tier.pick(quick: 100, long: 10_000)

    @Test func killedWriterLosesNothingAcknowledged() async throws {
        setenv("SWIFT_BACKTRACE", "enable=no", 1)  // inherited by the children meant to die
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
        let started = Date()
        for round in 0..<Self.kills {
            try? FileManager.default.removeItem(atPath: acks)
            try? FileManager.default.removeItem(atPath: pidFile)
            // Mostly during writing; sometimes during opening (recovery) itself.
            let delay =
                Int.random(in: 0..<10, using: &rng) == 0
                ? Int.random(in: 0..<3_000, using: &rng)
                : Int.random(in: 1_000..<60_000, using: &rng)
            let killer = BackgroundThread {
                Self.kill(whenReady: pidFile, afterMicroseconds: delay)
            }
            await #expect(processExitsWith: .signal(SIGKILL)) {
                [
                    path = path as String, acks = acks as String, pidFile = pidFile as String,
                    seed = seed as UInt64
                ] in
                KillWorkload.runChild(path: path, acks: acks, pidFile: pidFile, seed: seed)
            }
            guard killer.value() else {
                Issue.record("kill \(round): the child never started")
                return
            }
            let acknowledged = KillWorkload.lastAcknowledged(acks)
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
                KillWorkload.apply(
                    KillWorkload.changes(seed: seed, sequence: modelSequence), to: &contents)
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
            "process kills: \(Self.kills) kills, \(modelSequence) commits, \(compactionsSeen) "
                + "compactions, \(inFlightSeen) times the commit in flight was found durable, "
                + String(format: "%.1f s", Date().timeIntervalSince(started)))
        #expect(modelSequence > UInt64(Self.kills))
    }

    /// Waits for the child's pid file, then sleeps and kills it; `false` if it never appeared.
    static func kill(whenReady pidFile: String, afterMicroseconds delay: Int) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let pid = Int32(String(decoding: readFile(pidFile), as: UTF8.self)) {
                usleep(UInt32(delay))
                Glibc.kill(pid, SIGKILL)
                return true
            }
            usleep(500)
        }
        return false
    }
}
