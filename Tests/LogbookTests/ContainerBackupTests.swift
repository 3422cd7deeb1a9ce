import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ModelContainer.backup(to:)`: the copy holds exactly the saves up to its token, verifies clean
/// against it, opens as a store; a second one copies only what changed; a destination it must
/// not replace is refused and left as it was.
@Suite struct ContainerBackupTests {
    private func options(readOnly: Bool = false) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 16 << 10
        options.autoCompactionDeadFraction = nil
        options.readOnly = readOnly
        return options
    }

    /// The names of the employees in the store at `url`, opened read-only, and its token.
    private func names(at url: URL) throws -> (Set<String>, HistoryToken) {
        let container = try ModelContainer(
            for: [Employee.self], at: url, options: options(readOnly: true))
        defer { try? container.close() }
        let context = ModelContext(container)
        let names = Set(try context.fetch(FetchDescriptor<Employee>()).map(\.name))
        return (names, try container.currentHistoryToken)
    }

    @Test func aBackupWhileSavesGoOnHoldsExactlyTheSavesUpToItsToken() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: dir.child("s")), options: options())
        let writer = SavingThread(container)
        let destination = URL(fileURLWithPath: dir.child("backup"))
        var made: [ContainerBackup] = []
        for _ in 0..<4 {
            writer.wait(forSaves: (made.count + 1) * 50)
            made.append(try container.backup(to: destination))
            let check = try ModelContainer.verifyBackup(at: destination)
            #expect(check.isIntact, "\(check.files.problems) \(check.store.log.problems)")
            #expect(check.token == made.last?.token)
            let token = try #require(made.last?.token)
            let (names, copyToken) = try names(at: destination)
            #expect(copyToken == token)
            #expect(names == writer.names(upTo: token.sequence))
        }
        writer.finish()
        #expect(writer.failure.withLock { $0 } == nil)
        #expect(made.dropFirst().allSatisfy { $0.report.incremental })
        #expect(made.map { $0.token!.sequence } == made.map { $0.token!.sequence }.sorted())
        #expect(try container.currentHistoryToken.sequence > made.last!.token!.sequence)
        try container.close()
    }

    /// Incremental: after one save, the second backup writes a few hundred bytes, and the sealed
    /// segments of the first are the same files (linked, not copied).
    /// A backup killed between the two renames of a swap without an atomic exchange leaves the
    /// previous backup at `DST.previous`: it verifies, opens read-only and restores from `DST`.
    @Test func theBackupLeftAsideByAnInterruptedSwapVerifiesOpensAndRestores() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: dir.child("s")), options: options())
        let context = ModelContext(container)
        for i in 0..<50 { context.insert(Employee(name: "e\(i)", designation: "d", salary: 1)) }
        try context.save()
        let destination = URL(fileURLWithPath: dir.child("backup"))
        let made = try container.backup(to: destination)
        try container.close()
        try FileManager.default.moveItem(
            atPath: dir.child("backup"), toPath: dir.child("backup.previous"))

        let check = try ModelContainer.verifyBackup(at: destination)
        #expect(check.isIntact, "\(check.files.problems) \(check.store.log.problems)")
        #expect(check.token == made.token)
        #expect(try names(at: destination).0.count == 50)
        let restored = try ModelContainer(for: [Employee.self], at: destination, options: options())
        #expect(try ModelContext(restored).fetchCount(FetchDescriptor<Employee>()) == 50)
        try restored.close()
        #expect(!FileManager.default.fileExists(atPath: dir.child("backup.previous")))
    }

    @Test func aSecondBackupCopiesOnlyWhatChanged() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: dir.child("s")), options: options())
        let context = ModelContext(container)
        for i in 0..<4_000 {
            context.insert(Employee(name: "e\(i)", designation: "d\(i % 7)", salary: Int64(i)))
            if i % 100 == 99 { try context.save() }
        }
        let destination = URL(fileURLWithPath: dir.child("backup"))
        let first = try container.backup(to: destination)
        #expect(!first.report.incremental)
        let sealed = segmentFiles(destination.path).dropLast()
        #expect(sealed.count >= 3)
        let inodes = try sealed.map { try inode($0) }
        context.insert(Employee(name: "late", salary: 1))
        try context.save()
        let second = try container.backup(to: destination)
        #expect(second.report.incremental)
        #expect(second.report.bytesCopied * 20 < first.report.bytesCopied)
        #expect(second.report.bytesReused >= first.report.bytesCopied / 2)
        #expect(try sealed.map { try inode($0) } == inodes)
        #expect(try names(at: destination).0.contains("late"))
        #expect(try ModelContainer.verifyBackup(at: destination).isIntact)
        try container.close()
    }

    private func inode(_ path: String) throws -> UInt64 {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return UInt64(info.st_ino)
    }

    @Test func verifyingFindsADamagedOrMissingFileOfTheBackup() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: dir.child("s")), options: options())
        let context = ModelContext(container)
        for i in 0..<500 { context.insert(Employee(name: "e\(i)", salary: Int64(i))) }
        try context.save()
        let destination = URL(fileURLWithPath: dir.child("backup"))
        _ = try container.backup(to: destination)
        try container.close()
        let segment = try #require(segmentFiles(destination.path).first)
        var bytes = readFile(segment)
        bytes[bytes.count / 2] ^= 0x10
        writeFile(segment, bytes)
        let damaged = try ModelContainer.verifyBackup(at: destination)
        #expect(!damaged.isIntact)
        #expect(damaged.files.problems.contains { $0.contains("checksum") })
        try FileManager.default.removeItem(atPath: segment)
        let missing = try ModelContainer.verifyBackup(at: destination)
        #expect(missing.files.problems.contains { $0.contains("missing") })
        #expect {
            try ModelContainer.verifyBackup(at: URL(fileURLWithPath: dir.child("nothing")))
        } throws: { error in
            guard case LogbookError.store(.io(_, _, ENOENT)) = error else { return false }
            return true
        }
    }

    /// A destination that holds something else, or that another backup (or a restore) holds,
    /// is refused with a typed error and left as it was.
    @Test func aDestinationItMustNotReplaceIsRefusedAndLeftWhole() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let container = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: dir.child("s")), options: options())
        let context = ModelContext(container)
        context.insert(Employee(name: "Ann"))
        try context.save()
        let other = dir.child("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        writeFile(other + "/notes.txt", b("mine"))
        #expect {
            try container.backup(to: URL(fileURLWithPath: other))
        } throws: { error in
            guard case LogbookError.store(.invalidArgument) = error else { return false }
            return true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: other) == ["notes.txt"])
        #expect(readFile(other + "/notes.txt") == b("mine"))

        let destination = URL(fileURLWithPath: dir.child("backup"))
        let good = try container.backup(to: destination)
        context.insert(Employee(name: "Bo"))
        try context.save()
        // The lock a running backup holds.
        let holder = open(destination.path + "/LOCK", O_RDONLY)
        try #require(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
        #expect {
            try container.backup(to: destination)
        } throws: { error in
            guard case LogbookError.store(.locked) = error else { return false }
            return true
        }
        close(holder)
        let check = try ModelContainer.verifyBackup(at: destination)
        #expect(check.isIntact && check.token == good.token)
        #expect(try names(at: destination).0 == ["Ann"])
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".incoming"))
        try container.close()
    }
}
