import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `logbook backup SRC DST` while this process writes the store: each copy verifies clean
/// (`logbook backup --verify`), opens as a store, and holds exactly the saves up to the token it
/// printed; a backup killed at any moment leaves the previous backup or the new one.
@Suite struct BackupCommandTests {
    static func options(readOnly: Bool = false) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 64 << 10
        options.autoCompactionDeadFraction = nil
        options.readOnly = readOnly
        return options
    }

    /// The token a `logbook backup` (or `--verify`) line printed.
    static func token(in output: String) -> HistoryToken? {
        guard let range = output.range(of: "token ") else { return nil }
        return HistoryToken(String(output[range.upperBound...].prefix { !$0.isWhitespace }))
    }

    /// The names of the employees in the store at `path`, opened read-only, and its token.
    static func names(at path: String) throws -> (Set<String>, HistoryToken) {
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: path), options: options(readOnly: true))
        defer { try? container.close() }
        let names = Set(try ModelContext(container).fetch(FetchDescriptor<Employee>()).map(\.name))
        return (names, try container.currentHistoryToken)
    }

    /// Saves `count` employees named `prefix0`… in saves of 500.
    static func fill(_ container: ModelContainer, _ count: Int, prefix: String) throws {
        let context = ModelContext(container)
        for i in 0..<count {
            context.insert(Employee(name: "\(prefix)\(i)", designation: "d\(i % 7)", salary: 1))
            if i % 500 == 499 || i == count - 1 { try context.save() }
        }
    }

    @Test func aBackupWhileAnotherProcessWritesHoldsExactlyTheSavesUpToItsToken() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (source, destination) = (dir.child("s"), dir.child("backup"))
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: source), options: Self.options())
        let writer = SavingThread(container)
        defer { writer.finish() }
        var tokens: [HistoryToken] = []
        for round in 0..<4 {
            writer.wait(forSaves: (round + 1) * 40)
            let made = try CLI.run(["backup", source, destination])
            #expect(made.status == 0, "round \(round): \(made.stderr)")
            #expect(made.stdout.contains(round == 0 ? "whole" : "incremental"), "\(made.stdout)")
            let token = try #require(Self.token(in: made.stdout), "\(made.stdout)")
            let verified = try CLI.run(["backup", "--verify", destination])
            #expect(verified.status == 0, "round \(round): \(verified.stdout) \(verified.stderr)")
            #expect(Self.token(in: verified.stdout) == token)
            let (names, copyToken) = try Self.names(at: destination)
            #expect(copyToken == token)
            #expect(names == writer.names(upTo: token.sequence), "round \(round)")
            #expect(!names.isEmpty)
            tokens.append(token)
        }
        #expect(tokens == tokens.sorted() && Set(tokens).count == tokens.count)
        #expect(writer.failure.withLock { $0 } == nil)
    }

    /// `timeout -s KILL` at a random moment of each of several whole backups (each after a
    /// compaction, so it copies the store again) while this process saves: afterwards the
    /// destination verifies clean, at the previous backup's token or a later one, and holds
    /// exactly the saves up to its token; a backup run to the end cleans up what the killed
    /// ones left.
    /// The objects in the store before the writer starts: 5,000 in the default tier, 20,000 in
    /// the long one.
    static let filled = TestTier.pick(quick: 5_000, long: 20_000)
    /// The writer's pause after each save: 0.5 ms in the default tier (on tmpfs a save costs
    /// next to nothing, and a writer without a pause spins a core and grows what each backup
    /// copies), none in the long one.
    static let writerPause = TestTier.pick(quick: UInt32(500), long: 0)

    @Test func aBackupKilledAtAnyMomentLeavesThePreviousOrTheNewBackup() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (source, destination) = (dir.child("s"), dir.child("backup"))
        var rng = SeededGenerator(seed: testSeed("backup kill"))
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: source), options: Self.options())
        try Self.fill(container, Self.filled, prefix: "a")
        let filled = Set((0..<Self.filled).map { "a\($0)" })
        let first = try CLI.run(["backup", source, destination])
        var previous = try #require(Self.token(in: first.stdout), "\(first.stderr)")
        // How long a whole backup takes here: the kills fall within it, and some after.
        let started = Date()
        #expect(try CLI.run(["backup", source, dir.child("probe")]).status == 0)
        let duration = Date().timeIntervalSince(started)
        let writer = SavingThread(container, pauseMicroseconds: Self.writerPause)
        var killed = 0
        var kept = 0
        var round = 0
        // Eight rounds; then, if no kill landed (the probe ran slower than the backups since),
        // up to eight more whose kills fall within the first half of a backup.
        while round < 8 || (killed == 0 && round < 16) {
            defer { round += 1 }
            writer.wait(forSaves: (round + 1) * 20)
            _ = try container.store.compact()
            let latest = duration * (round < 8 ? 2.5 : 0.5)
            let delay = Double.random(in: 0.0...latest, using: &rng)
            let run = try ChildProcess.shared.run(
                "/usr/bin/timeout",
                ["-s", "KILL", String(format: "%.3f", delay), try #require(CLI.executable)]
                    + ["backup", source, destination])
            if run.status == 137 || run.crashed { killed += 1 }
            let verified = try CLI.run(["backup", "--verify", destination])
            #expect(verified.status == 0, "round \(round): \(verified.stdout) \(verified.stderr)")
            let token = try #require(Self.token(in: verified.stdout))
            #expect(token >= previous, "round \(round): \(token)")
            if token == previous { kept += 1 }
            let (names, copyToken) = try Self.names(at: destination)
            #expect(copyToken == token)
            #expect(names == filled.union(writer.names(upTo: token.sequence)), "round \(round)")
            previous = token
        }
        writer.finish()
        #expect(writer.failure.withLock { $0 } == nil)
        let last = try CLI.run(["backup", source, destination])
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try CLI.run(["backup", "--verify", destination]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: destination + ".incoming"))
        #expect(try Self.names(at: destination).0.count == Self.filled + writer.count)
        try container.close()
        print(
            "backup kill: \(killed) of \(round) killed (\(kept) left the previous backup), "
                + "a whole backup takes \(duration) s, \(writer.count) saves meanwhile")
        #expect(killed > 0)
    }

    /// A second backup into a destination a running backup holds fails with one line and exit
    /// status 1, and leaves it as it was.
    @Test func aSecondBackupAtOnceIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (source, destination) = (dir.child("s"), dir.child("backup"))
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: source), options: Self.options())
        try Self.fill(container, 100, prefix: "a")
        let first = try CLI.run(["backup", source, destination])
        let token = try #require(Self.token(in: first.stdout))
        try Self.fill(container, 100, prefix: "b")
        let holder = open(destination + "/LOCK", O_RDONLY)
        try #require(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
        let second = try CLI.run(["backup", source, destination])
        close(holder)
        #expect(second.status == 1)
        #expect(second.stderr.contains("another backup into"), "\(second.stderr)")
        let verified = try CLI.run(["backup", "--verify", destination])
        #expect(verified.status == 0 && Self.token(in: verified.stdout) == token)
        try container.close()
    }

    @Test func usageAndBadDestinations() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("s")
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: source), options: Self.options())
        try Self.fill(container, 10, prefix: "a")
        try container.close()
        #expect(try CLI.run(["backup", source]).status == 2)
        #expect(try CLI.run(["backup", "--verify"]).status == 2)
        #expect(try CLI.run(["backup", dir.child("none"), dir.child("d")]).status == 2)
        let notBackup = try CLI.run(["backup", "--verify", source])
        #expect(notBackup.status == 1, "\(notBackup.stdout)")
        writeFile(dir.child("file"), b("x"))
        let under = try CLI.run(["backup", source, dir.child("file") + "/d"])
        #expect(under.status == 1 && !under.stderr.isEmpty)
        try FileManager.default.createDirectory(
            atPath: dir.child("other"), withIntermediateDirectories: false)
        writeFile(dir.child("other") + "/mine", b("x"))
        let other = try CLI.run(["backup", source, dir.child("other")])
        #expect(other.status == 1 && other.stderr.contains("is not a backup"))
        #expect(readFile(dir.child("other") + "/mine") == b("x"))
    }
}

/// A backup that runs out of space (a real `ENOSPC`, on a small tmpfs) fails with one line and
/// exit status 1, removes what it wrote, and leaves the previous backup whole. Needs root (to
/// mount a tmpfs); without it the suite is skipped, and says why.
@Suite(.enabled(if: SmallDisk.canMount, "mounting a tmpfs (for a real ENOSPC) needs root"))
struct BackupDiskFullTests {
    /// Whole (after a compaction of the source) and incremental.
    @Test(arguments: [false, true])
    func aBackupThatFillsTheDiskLeavesThePreviousOne(compacted: Bool) throws {
        let dir = TemporaryDirectory("backup-enospc")
        defer { dir.remove() }
        // The first backup takes 150 KiB of the 512; the store then grows to 750 KiB, which
        // neither a whole nor an incremental backup fits into what is left. (Small: its saves
        // are the test's main cost.)
        let disk = try SmallDisk(at: dir.child("mnt"), size: "512k")
        defer { disk.unmount() }
        let (source, destination) = (dir.child("s"), disk.child("backup"))
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: source),
            options: BackupCommandTests.options())
        defer { try? container.close() }
        var round = 0
        while try container.store.stats().fileBytes < 150 << 10 {
            try BackupCommandTests.fill(container, 500, prefix: "a\(round)-")
            round += 1
        }
        let first = try CLI.run(["backup", source, destination])
        let token = try #require(BackupCommandTests.token(in: first.stdout), "\(first.stderr)")
        let usedAfterFirst = disk.usedBytes
        while try container.store.stats().fileBytes < 750 << 10 {
            try BackupCommandTests.fill(container, 500, prefix: "b\(round)-")
            round += 1
        }
        if compacted { _ = try container.store.compact() }
        let full = try CLI.run(["backup", source, destination])
        #expect(full.status == 1, "\(full.stdout)")
        #expect(full.stderr.contains("errno \(ENOSPC)"), "\(full.stderr)")
        #expect(full.stderr.split(separator: "\n").count == 1)
        let verified = try CLI.run(["backup", "--verify", destination])
        #expect(verified.status == 0, "\(verified.stdout)")
        #expect(BackupCommandTests.token(in: verified.stdout) == token)
        #expect(try BackupCommandTests.names(at: destination).1 == token)
        #expect(!FileManager.default.fileExists(atPath: destination + ".incoming"))
        #expect(disk.usedBytes <= usedAfterFirst + (16 << 10))
    }
}
