import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the soak runs: in the long tier, or when its length is given.
private let soakRequested =
    TestTier.isLong || ProcessInfo.processInfo.environment["LOGBOOK_SOAK_SECONDS"] != nil

/// The soak (issue 40): one writer process making mixed saves (inserts, updates, deletes,
/// moves between companies, batch updates and deletes) with automatic compaction, two reader
/// processes following it (one with `followChanges`, one refreshing itself), a verified backup
/// at a steady interval, and a `SIGKILL` of the writer at random moments, after which it is
/// started again. Every report is checked against the model of acknowledged saves as it
/// arrives (``SoakModel``); at the end nothing acknowledged is lost, nothing unsaved appears,
/// every backup verifies and holds the state of its commit, and the writer's resident memory
/// stays flat after its first part.
///
/// It runs when asked for: two minutes with `LOGBOOK_SOAK_SECONDS=120` (CI's own step, `.ci/run`,
/// so the default `swift test` stays short), 30 minutes in the long tier
/// (`LOGBOOK_LONG_TESTS=1`); `LOGBOOK_SOAK_SECONDS` sets the length. The seed (`LOGBOOK_SEED`) decides the saves and the
/// moments of kills and backups.
@Suite(.enabled(if: soakRequested)) struct SoakTests {
    static let seconds =
        ProcessInfo.processInfo.environment["LOGBOOK_SOAK_SECONDS"].flatMap { Double($0) }
        ?? TestTier.pick(quick: 120, long: 1_800)
    /// The long version backs up every minute and kills every few minutes; the short one does
    /// both more often, so it has several of each.
    static var isShort: Bool { seconds < 600 }
    static var backupEvery: Double { isShort ? 25 : 60 }
    static var killAfter: ClosedRange<Double> { isShort ? 10...35 : 60...240 }
    /// Resident memory is judged after this long in a writer's life.
    static var warmUp: Double { isShort ? 8 : 60 }

    @Test func writerKilledAtRandomWithReadersAndBackupsLosesNothing() throws {
        let child = try #require(
            builtExecutable("logbook-soak-child"),
            "logbook-soak-child is not built; run `swift build`")
        let seed = testSeed("soak")
        var rng = SeededGenerator(seed: seed)
        let scratch = ScratchDirectory("soak")
        defer { scratch.remove() }
        let store = scratch.child("store.logbook")
        let backup = scratch.child("backup.logbook")
        let log = scratch.child("children.log")
        let model = SoakModel()
        let started = Date()
        func elapsed() -> Double { Date().timeIntervalSince(started) }

        /// Starts a writer and waits for its `start`.
        func startWriter() throws -> SoakProcess {
            let starts = model.counts.starts
            let writer = try SoakProcess(
                child, ["writer", store, String(rng.next())], log: log, handler: model.writer)
            let deadline = Date().addingTimeInterval(120)
            while model.counts.starts == starts && model.failures.isEmpty && Date() < deadline {
                usleep(10_000)
            }
            return writer
        }
        func runBackup() throws {
            let made = try SoakProcess(child, ["backup", store, backup], log: log) {
                model.observer("backup", $0)
            }
            if !made.waitForExit() { Issue.record("a backup did not finish in 2 minutes") }
        }

        var writer = try startWriter()
        let readers = try ["follow", "refresh"].map { mode in
            try SoakProcess(child, ["reader", store, mode], log: log) {
                model.observer("reader-\(mode)", $0)
            }
        }
        /// Per writer: seconds into its life and resident kilobytes.
        var memory: [[(Double, Int)]] = [[]]
        var born = Date()
        var kills = 0
        var nextKill = elapsed() + Double.random(in: Self.killAfter, using: &rng)
        var nextBackup = elapsed() + Double.random(in: 5...Self.backupEvery, using: &rng)
        while elapsed() < Self.seconds && model.failures.isEmpty {
            usleep(500_000)
            if let kb = writer.residentKB {
                memory[memory.count - 1].append((-born.timeIntervalSinceNow, kb))
            }
            if elapsed() >= nextKill {
                if !writer.kill() { Issue.record("writer \(kills) did not die of SIGKILL") }
                kills += 1
                writer = try startWriter()
                born = Date()
                memory.append([])
                nextKill = elapsed() + Double.random(in: Self.killAfter, using: &rng)
            }
            if elapsed() >= nextBackup {
                try runBackup()
                nextBackup += Self.backupEvery
            }
        }
        // The end: the last writer is killed too, a last process reads what it left, a last
        // backup is made of the quiet store, and the readers see the end before they go.
        writer.kill()
        let check = try SoakProcess(child, ["check", store], log: log, handler: model.writer)
        check.waitForExit()
        try runBackup()
        usleep(1_000_000)
        for reader in readers { reader.kill() }

        let counts = model.counts
        let flat = Self.memoryReport(memory)
        print(
            "soak: seed \(seed), \(String(format: "%.0f", elapsed())) s, "
                + "\(counts.acknowledged) saves acknowledged, \(kills) kills "
                + "(in flight: \(counts.inFlightKept) kept, \(counts.inFlightDropped) never written), "
                + "\(counts.lost) lost, \(counts.extra) extra, views \(counts.views.sorted { $0.key < $1.key }), "
                + "\(counts.backups) backups (\(counts.incrementalBackups) incremental, "
                + "\(counts.backupsVerified) verified), end state \(counts.lastState.summary); "
                + "writer RSS \(flat.description)")
        for failure in model.failures.prefix(20) { Issue.record("seed \(seed): \(failure)") }
        for view in model.unresolved.prefix(20) {
            Issue.record("seed \(seed): \(view), a commit no save made")
        }
        if !model.failures.isEmpty || !model.unresolved.isEmpty {
            print(String(decoding: readFile(log), as: UTF8.self).suffix(4_000))
        }
        #expect(counts.lost == 0 && counts.extra == 0)
        #expect(counts.acknowledged > 100)
        #expect(counts.starts == kills + 2)
        #expect(counts.views.count == 2 && counts.views.values.allSatisfy { $0 > 10 })
        #expect(counts.backups >= 2 && counts.backupsVerified == counts.backups)
        #expect(flat.isFlat, "writer RSS grew: \(flat.description)")
    }

    /// Whether each writer's resident memory stayed flat after its warm-up: its peak later in
    /// life at most a quarter (plus 4 MB) above its level at the end of the warm-up.
    static func memoryReport(_ memory: [[(Double, Int)]]) -> (isFlat: Bool, description: String) {
        var isFlat = true
        var lines: [String] = []
        for samples in memory {
            let later = samples.filter { $0.0 >= warmUp }
            guard let first = later.first, let last = later.last, last.0 >= 2 * warmUp else {
                continue
            }
            let peak = later.map(\.1).max()!
            if Double(peak) > Double(first.1) * 1.25 + 4_096 { isFlat = false }
            lines.append(
                "\(String(format: "%.0f", last.0)) s: \(first.1 / 1024) MB at "
                    + "\(String(format: "%.0f", first.0)) s, \(last.1 / 1024) MB at the end, "
                    + "peak \(peak / 1024) MB")
        }
        return (
            isFlat, lines.isEmpty ? "(no writer lived long enough)" : lines.joined(separator: "; ")
        )
    }
}
