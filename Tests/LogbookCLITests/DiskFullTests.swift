import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A compaction and an import that run out of space (a real `ENOSPC`, on a small tmpfs): a
/// typed error (in the tool, one line and exit status 1), the store whole (it verifies, holds
/// what it held, and takes saves again) and the temporary files removed. Needs root (to mount
/// a tmpfs); without it the suite is skipped, and says why.
@Suite(.enabled(if: SmallDisk.canMount, "mounting a tmpfs (for a real ENOSPC) needs root"))
struct DiskFullTests {
    /// The store's file names, and the employees' names (opened read-only).
    private static func contents(_ path: String) throws -> ([String], Set<String>) {
        let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        return (files, try BackupCommandTests.names(at: path).0)
    }

    @Test func aCompactionThatFillsTheDiskLeavesTheStoreWhole() throws {
        let dir = TemporaryDirectory("compact-enospc")
        defer { dir.remove() }
        // Half of it the store's (a few dozen saves of the object layer, the test's main cost),
        // too little left for compaction's copy of the live records.
        let disk = try SmallDisk(at: dir.child("mnt"), size: "768k")
        defer { disk.unmount() }
        let path = disk.child("store")
        var container: ModelContainer? = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: path),
            options: BackupCommandTests.options())
        var round = 0
        while try container!.store.stats().fileBytes < 450 << 10 {
            try BackupCommandTests.fill(container!, 500, prefix: "a\(round)-")
            round += 1
        }
        // A little dead weight, so there is something to compact; most of it stays live.
        try ModelContext(container!).delete(
            model: Employee.self, where: #Predicate { $0.name.starts(with: "a0-") })
        let before = try container!.store.stats().fileBytes
        let used = disk.usedBytes

        // In this process: a typed error, and the container goes on.
        #expect {
            try container!.store.compact()
        } throws: { error in
            guard case LogStoreError.io(_, _, let code) = error else { return false }
            return code == ENOSPC
        }
        // The segment it sealed to compact may have been followed by a new, empty one.
        let bytesAfter = try container!.store.stats().fileBytes
        #expect(
            bytesAfter >= before && bytesAfter <= before + 4_096,
            "\(before) bytes, then \(bytesAfter)")
        #expect(disk.usedBytes <= used + (16 << 10))
        #expect(try ModelContext(container!).fetchCount(FetchDescriptor<Employee>()) > 0)
        try container!.close()
        container = nil
        let (files, names) = try Self.contents(path)
        #expect(!files.contains { $0.hasSuffix(".tmp") }, "\(files)")

        // Through the tool: one line, exit status 1.
        let compacted = try CLI.run(["compact", path])
        #expect(compacted.status == 1, "\(compacted.stdout)")
        #expect(compacted.stderr.contains("errno \(ENOSPC)"), "\(compacted.stderr)")
        #expect(compacted.stderr.split(separator: "\n").count == 1, "\(compacted.stderr)")
        let verified = try CLI.run(["verify", path])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        let after = try Self.contents(path)
        #expect(after.0 == files)
        #expect(after.1 == names)
        #expect(disk.usedBytes <= used + (16 << 10))
        // And it takes saves again.
        let reopened = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: path),
            options: BackupCommandTests.options())
        try BackupCommandTests.fill(reopened, 3, prefix: "after-")
        try reopened.close()
        #expect(try Self.contents(path).1 == names.union(["after-0", "after-1", "after-2"]))
    }

    @Test func anImportThatFillsTheDiskLeavesTheStoreWhole() throws {
        let dir = TemporaryDirectory("import-enospc")
        defer { dir.remove() }
        let disk = try SmallDisk(at: dir.child("mnt"), size: "1m")
        defer { disk.unmount() }
        let path = disk.child("store")
        try ObjectStores.employees(at: path)
        let (files, names) = try Self.contents(path)
        let used = disk.usedBytes
        let input = dir.child("employees.jsonl")
        writeFile(
            input,
            b(
                (0..<100_000).map {
                    #"{"_entity":"Employee","name":"E\#($0)","designation":"D","salary":\#($0)}"#
                        + "\n"
                }.joined()))

        let imported = try CLI.run(["import", path, input])
        #expect(imported.status == 1, "\(imported.stdout)")
        #expect(imported.stderr.contains("errno \(ENOSPC)"), "\(imported.stderr)")
        #expect(imported.stderr.split(separator: "\n").count == 1, "\(imported.stderr)")
        let verified = try CLI.run(["verify", path])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        let after = try Self.contents(path)
        #expect(after.0 == files)
        #expect(after.1 == names)
        #expect(disk.usedBytes <= used + (16 << 10))
        // And it takes saves again.
        let small = try CLI.run(
            ["import", path, "-"], input: #"{"_entity":"Employee","name":"Dee"}"# + "\n")
        #expect(small.status == 0, "\(small.stderr)")
        #expect(try Self.contents(path).1 == names.union(["Dee"]))
    }
}
