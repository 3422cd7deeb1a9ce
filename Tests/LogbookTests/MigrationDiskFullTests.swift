import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A custom migration (the seed's) that runs out of space in its commit (a real `ENOSPC`, on a
/// small tmpfs): a typed error, the store still the old version, whole, and the temporary files
/// removed; with room again, the plan finishes the job. Needs root (to mount a tmpfs); without
/// it the suite is skipped, and says why.
@Suite(.enabled(if: SmallDisk.canMount, "mounting a tmpfs (for a real ENOSPC) needs root"))
struct MigrationDiskFullTests {
    @Test func aMigrationThatFillsTheDiskLeavesTheOldVersion() throws {
        let dir = TemporaryDirectory("migration-enospc")
        defer { dir.remove() }
        let original = dir.child("original.logbook")
        try MigrationKillTests.writeSeedStore(original)
        let size = try FileManager.default.contentsOfDirectory(atPath: original).reduce(0) {
            $0
                + ((try? FileManager.default.attributesOfItem(atPath: original + "/" + $1))?[.size]
                    as? Int ?? 0)
        }
        // Room for the store and a little more, not for the migration's commit of every object.
        let disk = try SmallDisk(at: dir.child("mnt"), size: "\((size + size / 4) >> 10)k")
        defer { disk.unmount() }
        let path = disk.child("store.logbook")
        try MigrationKillTests.copy(original, to: path)
        let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        let used = disk.usedBytes

        #expect {
            _ = try MigrationKillTests.openV2(path)
        } throws: { error in
            guard case LogbookError.store(.io(_, _, let code)) = error else { return false }
            return code == ENOSPC
        }
        #expect(try MigrationKillTests.check(path) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == files)
        #expect(disk.usedBytes <= used + (16 << 10))
        let report = try StoreCheck.run(storeAt: path)
        #expect(!report.isDamaged && report.log.problems.isEmpty, "\(report)")
    }
}
