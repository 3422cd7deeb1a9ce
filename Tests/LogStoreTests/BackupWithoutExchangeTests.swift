import Foundation
import LogStore
import TestSupport
import Testing

/// Backups on a file system without an atomic exchange of names (FORMAT.md, "Backups"): the swap
/// is two renames, with the previous backup at `DST.previous` between them. A backup killed
/// there leaves `DST` missing; every open, check and backup of `DST` finds the previous backup
/// all the same, so `DST` is still the previous backup or the new one.
@Suite struct BackupWithoutExchangeTests {
    private func options(_ fs: FaultInjectingFileSystem? = nil) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 8192
        options.autoCompactionDeadFraction = nil
        if let fs { options.fileSystem = fs }
        return options
    }

    /// A file system whose exchange of names fails with `ENOTSUP`, as on an older kernel.
    private func withoutExchange() -> FaultInjectingFileSystem {
        let fs = FaultInjectingFileSystem()
        fs.inject(.error(ENOTSUP), on: "exchange", times: Int.max)
        return fs
    }

    private func write(
        _ store: LogStore, _ operations: Int, rng: inout SeededGenerator,
        model: [String: [UInt8]] = [:]
    ) throws -> [String: [UInt8]] {
        var model = model
        try randomWrites(store, operations, keys: 200, maxValue: 60, rng: &rng, model: &model)
        return model
    }

    private func contents(of path: String, readOnly: Bool = true) throws -> [String: [UInt8]] {
        var options = LogStoreOptions()
        options.readOnly = readOnly
        let store = try LogStore(path: path, options: options)
        defer { try? store.close() }
        return try CommitHistory.contents(of: store)
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func aBackupWithoutExchangeReplacesThePreviousOne() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("backup without exchange"))
        let fs = withoutExchange()
        let store = try LogStore(path: dir.child("s"), options: options(fs))
        defer { try? store.close() }
        var model = try write(store, 300, rng: &rng)
        _ = try store.backup(to: dir.child("b"))
        model = try write(store, 100, rng: &rng, model: model)
        let before = fs.calls.count
        let report = try store.backup(to: dir.child("b"))
        #expect(report.incremental)
        // The swap was the two renames.
        let renames = fs.calls[before...].filter { $0.operation == "rename" }.map(\.path)
        #expect(renames.starts(with: [dir.child("b"), dir.child("b.incoming")]))
        #expect(try contents(of: dir.child("b")) == model)
        #expect(try LogStore.verifyBackup(at: dir.child("b")).problems == [])
        #expect(!exists(dir.child("b.previous")) && !exists(dir.child("b.incoming")))
    }

    /// The directories a backup killed between the two renames leaves: the previous backup
    /// (of `previous`) at `b.previous`, the new one whole at `b.incoming`, `b` missing.
    private func interruptedSwap(_ dir: TemporaryDirectory) throws -> (
        previous: [String: [UInt8]], sequence: UInt64, store: LogStore
    ) {
        var rng = SeededGenerator(seed: testSeed("interrupted swap"))
        let store = try LogStore(path: dir.child("s"), options: options())
        let previous = try write(store, 300, rng: &rng)
        let sequence = try store.backup(to: dir.child("b")).lastSequence
        _ = try write(store, 100, rng: &rng, model: previous)
        _ = try store.backup(to: dir.child("new"))
        try FileManager.default.moveItem(atPath: dir.child("b"), toPath: dir.child("b.previous"))
        try FileManager.default.moveItem(atPath: dir.child("new"), toPath: dir.child("b.incoming"))
        return (previous, sequence, store)
    }

    @Test func readingsOfAnInterruptedSwapFindThePreviousBackupAndMoveNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (previous, sequence, store) = try interruptedSwap(dir)
        defer { try? store.close() }
        #expect(try contents(of: dir.child("b")) == previous)
        let verification = try LogStore.verifyBackup(at: dir.child("b"))
        #expect(verification.problems == [])
        #expect(verification.lastSequence == sequence)
        let report = try LogInspector.verify(storeAt: dir.child("b"))
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.lastSequence == sequence)
        #expect(!exists(dir.child("b")) && exists(dir.child("b.previous")))
    }

    @Test func aRestoreOfAnInterruptedSwapPutsThePreviousBackupBack() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (previous, _, store) = try interruptedSwap(dir)
        defer { try? store.close() }
        let restored = try LogStore(path: dir.child("b/"), options: options())
        #expect(try CommitHistory.contents(of: restored) == previous)
        try restored.put([1], for: Array("after".utf8), in: "k")
        try restored.close()
        #expect(exists(dir.child("b")) && !exists(dir.child("b.previous")))
        #expect(try contents(of: dir.child("b"))["after"] == [1])
    }

    @Test func theNextBackupPutsThePreviousOneBackAndBuildsOnIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (_, _, store) = try interruptedSwap(dir)
        defer { try? store.close() }
        let report = try store.backup(to: dir.child("b"))
        #expect(report.incremental)
        #expect(try contents(of: dir.child("b")) == CommitHistory.contents(of: store))
        #expect(!exists(dir.child("b.previous")) && !exists(dir.child("b.incoming")))
    }

    @Test func aWriterIsRefusedWhileABackupHoldsTheOneAside() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (_, _, store) = try interruptedSwap(dir)
        defer { try? store.close() }
        // A backup between its two renames holds the lock of the backup aside.
        let fs = PosixFileSystem()
        let lock = try fs.open(dir.child("b.previous/LOCK"), create: false, readOnly: true)
        defer { try? fs.close(lock) }
        #expect(try fs.tryLock(lock))
        #expect(throws: LogStoreError.locked(path: dir.child("b"))) {
            try LogStore(path: dir.child("b"), options: options())
        }
        #expect(!exists(dir.child("b")) && exists(dir.child("b.previous")))
    }

    @Test func aBackupThatFailsBetweenTheRenamesPutsThePreviousOneBack() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("failed second rename"))
        let fs = withoutExchange()
        let store = try LogStore(path: dir.child("s"), options: options(fs))
        defer { try? store.close() }
        let model = try write(store, 300, rng: &rng)
        _ = try store.backup(to: dir.child("b"))
        _ = try write(store, 100, rng: &rng, model: model)
        fs.inject(.error(EIO), on: "rename", pathSuffix: ".incoming")
        #expect(throws: LogStoreError.self) { try store.backup(to: dir.child("b")) }
        #expect(exists(dir.child("b")) && !exists(dir.child("b.previous")))
        #expect(try contents(of: dir.child("b")) == model)
    }
}
