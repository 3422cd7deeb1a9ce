import Foundation
import LogStore
import TestSupport
import Testing

/// `LogStore.backup(to:)`: the copy holds exactly the state at its point, opens as a store, and a
/// second backup into the same directory copies only what changed.
@Suite struct BackupTests {
    private func options(_ fs: FaultInjectingFileSystem? = nil) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 8192
        options.autoCompactionDeadFraction = nil
        if let fs { options.fileSystem = fs }
        return options
    }

    /// Puts and deletes `operations` times, one commit each; returns the contents after.
    private func write(
        _ store: LogStore, _ operations: Int, rng: inout SeededGenerator,
        model: [String: [UInt8]] = [:]
    ) throws -> [String: [UInt8]] {
        var model = model
        try randomWrites(store, operations, keys: 200, maxValue: 60, rng: &rng, model: &model)
        return model
    }

    private func contents(ofBackup path: String) throws -> ([String: [UInt8]], UInt64) {
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: path, options: options)
        defer { try? store.close() }
        #expect(store.recovery.isClean)
        return (try CommitHistory.contents(of: store), store.lastSequence)
    }

    private func expectClean(_ backup: String) throws {
        let verification = try LogStore.verifyBackup(at: backup)
        #expect(verification.problems == [])
        let report = try LogInspector.verify(storeAt: backup)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.lastSequence == verification.lastSequence)
    }

    @Test func aBackupHoldsExactlyTheStateAtItsPoint() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("backup point"))
        let store = try LogStore(path: dir.child("s"), options: options())
        let model = try write(store, 600, rng: &rng)
        let report = try store.backup(to: dir.child("b"))
        _ = try write(store, 100, rng: &rng, model: model)
        #expect(report.lastSequence == 600)
        #expect(!report.incremental)
        let (backedUp, sequence) = try contents(ofBackup: dir.child("b"))
        #expect(backedUp == model)
        #expect(sequence == 600)
        try expectClean(dir.child("b"))
        #expect(FileManager.default.fileExists(atPath: dir.child("b.incoming")) == false)
        try store.close()
    }

    @Test func aSecondBackupCopiesOnlyTheCommitsWrittenSince() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("incremental backup"))
        let store = try LogStore(path: dir.child("s"), options: options())
        var model = try write(store, 3000, rng: &rng)
        let first = try store.backup(to: dir.child("b"))
        model = try write(store, 30, rng: &rng, model: model)
        let second = try store.backup(to: dir.child("b"))
        #expect(second.incremental)
        #expect(second.lastSequence == 3030)
        #expect(second.bytesCopied * 20 < first.bytesCopied, "\(second) after \(first)")
        #expect(second.bytesReused >= first.bytesCopied - 4096)
        #expect(try contents(ofBackup: dir.child("b")) == (model, 3030))
        try expectClean(dir.child("b"))
        // Nothing new: nothing copied but the manifest.
        let third = try store.backup(to: dir.child("b"))
        #expect(third.incremental && third.lastSequence == 3030)
        #expect(third.bytesCopied == 0)
        try expectClean(dir.child("b"))
        try store.close()
    }

    @Test func aBackupRestoredByOpeningItTakesWrites() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("restore"))
        let store = try LogStore(path: dir.child("s"), options: options())
        var model = try write(store, 500, rng: &rng)
        _ = try store.backup(to: dir.child("b"))
        model = try write(store, 50, rng: &rng, model: model)
        _ = try store.backup(to: dir.child("b"))
        try store.close()
        let restored = try LogStore(path: dir.child("b"), options: options())
        #expect(restored.recovery.isClean)
        #expect(try CommitHistory.contents(of: restored) == model)
        model = try write(restored, 50, rng: &rng, model: model)
        _ = try restored.compact()
        #expect(try CommitHistory.contents(of: restored) == model)
        try restored.close()
        let reopened = try LogStore(path: dir.child("b"), options: options())
        #expect(try CommitHistory.contents(of: reopened) == model)
        try reopened.close()
    }

    @Test func aBackupAfterACompactionCopiesTheStoreWholeAgain() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("backup after compaction"))
        let store = try LogStore(path: dir.child("s"), options: options())
        var model = try write(store, 2000, rng: &rng)
        _ = try store.backup(to: dir.child("b"))
        // One commit, so that the segment the backup ended in is sealed and compacted away.
        model = try write(store, 1, rng: &rng, model: model)
        _ = try store.compact()
        model = try write(store, 19, rng: &rng, model: model)
        let report = try store.backup(to: dir.child("b"))
        #expect(!report.incremental)
        #expect(try contents(ofBackup: dir.child("b")) == (model, 2020))
        try expectClean(dir.child("b"))
        // The next one goes on from it, and one after many writes reuses the sealed segments.
        model = try write(store, 1000, rng: &rng, model: model)
        #expect(try store.backup(to: dir.child("b")).incremental)
        for _ in 0..<40 {
            model = try write(store, 3, rng: &rng, model: model)
            _ = try store.backup(to: dir.child("b"))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.child("b"))
        #expect(names.filter { $0.hasSuffix(".seg") }.count < 60)
        #expect(try contents(ofBackup: dir.child("b")) == (model, store.lastSequence))
        try expectClean(dir.child("b"))
        try store.close()
    }

    @Test func aBackupOfAStoreOpenedReadOnlyHoldsWhatItsOpenSaw() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("read-only backup"))
        let writer = try LogStore(path: dir.child("s"), options: options())
        let model = try write(writer, 700, rng: &rng)
        var readOptions = options()
        readOptions.readOnly = true
        let reader = try LogStore(path: dir.child("s"), options: readOptions)
        _ = try write(writer, 300, rng: &rng, model: model)
        _ = try writer.compact()
        let report = try reader.backup(to: dir.child("b"))
        #expect(report.lastSequence == 700)
        #expect(try contents(ofBackup: dir.child("b")) == (model, 700))
        try expectClean(dir.child("b"))
        try reader.close()
        try writer.close()
    }

    @Test func aDestinationThatIsNotABackupIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options())
        try store.put([1], for: [1], in: "k")
        #expect(throws: LogStoreError.self) { try store.backup(to: dir.child("s")) }
        #expect(throws: LogStoreError.self) { try store.backup(to: dir.child("s") + "/") }
        let other = try LogStore(path: dir.child("other"), options: options())
        try other.put([2], for: [2], in: "k")
        try other.close()
        #expect {
            try store.backup(to: dir.child("other"))
        } throws: { error in
            guard case LogStoreError.invalidArgument(let reason) = error else { return false }
            return reason.contains("not a backup")
        }
        // The store there is untouched.
        let reopened = try LogStore(path: dir.child("other"), options: options())
        #expect(try reopened.get([2], in: "k") == [2])
        try reopened.close()
        try store.close()
    }

    @Test func aBackupOpenForWritingIsNotReplaced() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: options())
        try store.put([1], for: [1], in: "k")
        _ = try store.backup(to: dir.child("b"))
        let restored = try LogStore(path: dir.child("b"), options: options())
        try store.put([2], for: [2], in: "k")
        #expect(throws: LogStoreError.locked(path: dir.child("b"))) {
            try store.backup(to: dir.child("b"))
        }
        #expect(throws: LogStoreError.locked(path: dir.child("b"))) {
            try LogStore.verifyBackup(at: dir.child("b"))
        }
        try restored.close()
        try store.close()
    }

    @Test func verifyingABackupFindsAChangedByte() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("backup bit flip"))
        let store = try LogStore(path: dir.child("s"), options: options())
        _ = try write(store, 1000, rng: &rng)
        _ = try store.backup(to: dir.child("b"))
        try store.close()
        let segments = segmentFiles(dir.child("b"))
        var bytes = readFile(segments[1])
        bytes[bytes.count / 2] ^= 0x10
        writeFile(segments[1], bytes)
        let verification = try LogStore.verifyBackup(at: dir.child("b"))
        #expect(verification.problems.count == 1)
        #expect(verification.problems.first?.contains("checksum") == true)
        writeFile(dir.child("b/stray.seg"), [1, 2, 3])
        #expect(try LogStore.verifyBackup(at: dir.child("b")).problems.count == 2)
    }

    /// The order a crash at any moment relies on, in a first backup and an incremental one:
    /// every file the backup wrote and the names of `DST.incoming` are synced before the swap
    /// (the syncs may run at once, but all return before it), and the parent after the swap,
    /// before anything of the previous backup is removed.
    @Test func theSwapComesAfterTheSyncsOfTheNewBackupAndBeforeAnyRemoval() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("backup sync order"))
        let fs = CallLogFileSystem(PosixFileSystem())
        var options = options()
        options.fileSystem = fs
        let store = try LogStore(path: dir.child("s"), options: options)
        defer { try? store.close() }
        let staging = dir.child("b") + ".incoming"
        for round in 0..<3 {
            _ = try write(store, 60, rng: &rng)
            let before = fs.calls.count
            let report = try store.backup(to: dir.child("b"))
            #expect(report.incremental == (round > 0))
            let calls = Array(fs.calls[before...])
            let swap = try #require(
                calls.firstIndex {
                    ($0.operation == "exchange" || $0.operation == "rename") && $0.path == staging
                })
            let written = Set(
                calls[..<swap].filter { $0.operation == "write" && $0.path.hasPrefix(staging) }
                    .map(\.path))
            #expect(written.contains(staging + "/backup.manifest"))
            let synced = Set(calls[..<swap].filter { $0.operation == "fdatasync" }.map(\.path))
            #expect(written.subtracting(synced).isEmpty, "round \(round): unsynced \(written)")
            #expect(
                calls[..<swap].contains { $0.operation == "fsync-directory" && $0.path == staging })
            let parentSync = calls[swap...].firstIndex {
                $0.operation == "fsync-directory" && $0.path == dir.path
            }
            let firstRemoval = calls[swap...].firstIndex { $0.operation == "unlink" }
            #expect(parentSync != nil, "round \(round)")
            if let parentSync, let firstRemoval {
                #expect(parentSync < firstRemoval, "round \(round)")
            }
            #expect((firstRemoval != nil) == (round > 0), "round \(round)")
            if round > 0 {
                try expectFreedLater(staging + "/backup.manifest", after: swap + before, in: fs)
            }
            try expectClean(dir.child("b"))
        }
    }

    /// The previous backup's manifest (the one file it does not share with the new one) is
    /// opened before its name is removed, and closed only after its directory is gone, on
    /// another thread: freeing its blocks (a device discard on some disks) is not on the
    /// backup's path. It is closed within seconds (no descriptor is kept).
    private func expectFreedLater(_ path: String, after start: Int, in fs: CallLogFileSystem)
        throws
    {
        let calls = Array(fs.calls[start...])
        let open = calls.firstIndex { $0.operation == "open" && $0.path == path }
        let unlink = try #require(calls.firstIndex { $0.operation == "unlink" && $0.path == path })
        let rmdir = try #require(calls.firstIndex { $0.operation == "rmdir" })
        #expect(open.map { $0 < unlink } == true, "\(path) was not held open across its removal")
        let deadline = Date().addingTimeInterval(5)
        var close: Int?
        while close == nil && Date() < deadline {
            close = fs.calls[start...].firstIndex { $0.operation == "close" && $0.path == path }
            if close == nil { usleep(1000) }
        }
        let closed = try #require(close, "\(path) was never closed") - start
        #expect(closed > rmdir, "\(path) was closed before its directory was removed")
    }

    /// A backup that fails at any system call leaves the previous backup as it was, and nothing
    /// of its own: whole (after a compaction) and incremental.
    @Test(arguments: [true, false])
    func aBackupThatFailsAtAnyCallLeavesThePreviousOne(compacting: Bool) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var rng = SeededGenerator(seed: testSeed("failing backup"))
        let fs = FaultInjectingFileSystem()
        let store = try LogStore(path: dir.child("s"), options: options(fs))
        var model = try write(store, 800, rng: &rng)
        _ = try store.backup(to: dir.child("b"))
        var expected = (model, store.lastSequence)
        var failures = 0
        let operations = [
            "open", "write", "fdatasync", "link", "exchange", "rename", "fsync-directory", "mkdir",
        ]
        for operation in operations {
            model = try write(store, 100, rng: &rng, model: model)
            if compacting {
                model = try write(store, 1, rng: &rng, model: model)
                _ = try store.compact()
            }
            model = try write(store, 10, rng: &rng, model: model)
            var stale = true
            for skip in 0..<80 {
                fs.inject(.error(ENOSPC), on: operation, pathSuffix: "", skip: skip)
                defer { fs.heal() }
                let current = (model, store.lastSequence)
                do {
                    let report = try store.backup(to: dir.child("b"))
                    if stale { #expect(report.incremental == !compacting, "\(operation) \(skip)") }
                } catch {
                    failures += 1
                    fs.heal()
                    // The previous backup, or (a failure after the swap) the new one.
                    let found = try contents(ofBackup: dir.child("b"))
                    let isPrevious = found.0 == expected.0 && found.1 == expected.1
                    let isNew = found.0 == current.0 && found.1 == current.1
                    #expect(isPrevious || isNew, "\(operation) \(skip) \(error): \(found.1)")
                    if isNew && !isPrevious {
                        expected = current
                        stale = false
                        try expectClean(dir.child("b"))
                    } else {
                        #expect(!FileManager.default.fileExists(atPath: dir.child("b.incoming")))
                    }
                    continue
                }
                // It went through: the fault would have come after its last call of that kind.
                fs.heal()
                expected = current
                let found = try contents(ofBackup: dir.child("b"))
                #expect(
                    found.0 == expected.0 && found.1 == expected.1,
                    "\(operation) \(skip): \(found.1) \(expected.1)")
                try expectClean(dir.child("b"))
                break
            }
        }
        #expect(failures > 10)
        try store.close()
    }
}
