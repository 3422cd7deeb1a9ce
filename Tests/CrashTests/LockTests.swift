import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Processes racing for one store (issue 8, part 9): exactly one writer, the others get
/// ``LogStoreError/locked(path:)``; the lock goes with its holder when it is killed.
@Suite struct LockTests {
    static let winner: Int32 = 10
    static let loser: Int32 = 11

    /// The child of the race: tries to open the store for writing. The one that gets it keeps
    /// it until every other child has reported (or 30 s pass), then exits 10; the others drop a
    /// file in `reports` and exit 11; any other error exits 12.
    static func race(path: String, reports: String, children: Int) -> Never {
        do {
            let store = try LogStore(path: path)
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let reported = (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []
                if reported.count >= children - 1 { break }
                usleep(2_000)
            }
            try store.put(Array("\(getpid())".utf8), for: Array("winner".utf8), in: "race")
            try store.close()
            exit(winner)
        } catch LogStoreError.locked(let lockedPath) where lockedPath == path {
            _ = FileManager.default.createFile(atPath: reports + "/\(getpid())", contents: nil)
            exit(loser)
        } catch {
            print("race child: \(error)")
            exit(12)
        }
    }

    @Test func exactlyOneOfManyRacingProcessesGetsTheWriterLock() async throws {
        let scratch = ScratchDirectory("race")
        defer { scratch.remove() }
        let path = scratch.child("store")
        let reports = scratch.child("reports")
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: false)
        let children = 8
        let statuses = await withTaskGroup(of: ExitStatus?.self) { group in
            for _ in 0..<children {
                group.addTask {
                    let result = await #expect(processExitsWith: .failure) {
                        [
                            path = path as String, reports = reports as String,
                            children = children as Int
                        ] in
                        LockTests.race(path: path, reports: reports, children: children)
                    }
                    return result?.exitStatus
                }
            }
            var statuses: [ExitStatus?] = []
            for await status in group { statuses.append(status) }
            return statuses
        }
        let winners = statuses.filter { $0 == .exitCode(Self.winner) }.count
        let losers = statuses.filter { $0 == .exitCode(Self.loser) }.count
        #expect(winners == 1, "\(statuses)")
        #expect(losers == children - 1, "\(statuses)")
        // The store holds the winner's write and nothing else, and is free again.
        let store = try openStore(path)
        #expect(try store.count(in: "race") == 1)
        try store.close()
    }

    /// The child that holds the lock until killed: opens the store, writes its pid, sleeps.
    static func holdLock(path: String, pidFile: String) -> Never {
        do {
            let store = try LogStore(path: path)
            try store.put([1], for: Array("held".utf8), in: "lock")
            writeFile(pidFile + ".tmp", Array("\(getpid())".utf8))
            rename(pidFile + ".tmp", pidFile)
            sleep(60)
            withExtendedLifetime(store) {}
            exit(3)
        } catch {
            exit(4)
        }
    }

    @Test func lockIsReleasedWhenItsHolderIsKilled() async throws {
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        let scratch = ScratchDirectory("lock")
        defer { scratch.remove() }
        let path = scratch.child("store")
        let pidFile = scratch.child("pid")
        let whileHeld = BackgroundThread { () -> String in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if let pid = Int32(String(decoding: readFile(pidFile), as: UTF8.self)) {
                    var outcome = "opened while held"
                    do {
                        _ = try LogStore(path: path)
                    } catch LogStoreError.locked {
                        outcome = "locked"
                    } catch {
                        outcome = "\(error)"
                    }
                    // Read-only opens need no lock.
                    var readOnly = LogStoreOptions()
                    readOnly.readOnly = true
                    if (try? LogStore(path: path, options: readOnly).get(
                        [UInt8]("held".utf8), in: "lock")) != [1]
                    {
                        outcome += ", read-only open failed"
                    }
                    kill(pid, SIGKILL)
                    return outcome
                }
                usleep(1_000)
            }
            return "the child never took the lock"
        }
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [path = path as String, pidFile = pidFile as String] in
            LockTests.holdLock(path: path, pidFile: pidFile)
        }
        #expect(whileHeld.value() == "locked")
        let store = try openStore(path)
        #expect(try store.get(Array("held".utf8), in: "lock") == [1])
        try store.close()
    }
}
