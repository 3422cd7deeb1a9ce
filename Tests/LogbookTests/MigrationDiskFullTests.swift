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
    /// Room for a quarter more than the store fills the disk in the copy the stages run on
    /// (`<store>.migrating`); more room fills it in the stage's writes to the copy, or in the
    /// commit to the store.
    @Test(arguments: [5, 9, 13])
    func aMigrationThatFillsTheDiskLeavesTheOldVersion(quarters: Int) throws {
        let dir = TemporaryDirectory("migration-enospc")
        defer { dir.remove() }
        let original = dir.child("original.logbook")
        try MigrationKillTests.writeSeedStore(original)
        let size = try FileManager.default.contentsOfDirectory(atPath: original).reduce(0) {
            $0
                + ((try? FileManager.default.attributesOfItem(atPath: original + "/" + $1))?[.size]
                    as? Int ?? 0)
        }
        let disk = try SmallDisk(at: dir.child("mnt"), size: "\((size * quarters / 4) >> 10)k")
        defer { disk.unmount() }
        let path = disk.child("store.logbook")
        try MigrationKillTests.copy(original, to: path)
        let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        let used = disk.usedBytes

        #expect {
            _ = try MigrationKillTests.openV2(path)
        } throws: { error in
            switch error {
            case LogbookError.store(.io(_, _, let code)): return code == ENOSPC
            // The stage's own writes into the copy ran out of space.
            case LogbookError.migrationStageFailed(_, let reason):
                return reason.contains("errno 28")
            default: return false
            }
        }
        #expect(try MigrationKillTests.check(path) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == files)
        #expect(disk.usedBytes <= used + (16 << 10))
        let report = try StoreCheck.run(storeAt: path)
        #expect(!report.isDamaged && report.log.problems.isEmpty, "\(report)")
    }
}
