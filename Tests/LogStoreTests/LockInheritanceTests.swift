import Foundation
import TestSupport
import Testing

@testable import LogStore

#if canImport(Glibc)
    import Glibc
#endif

/// A lock is released when its holder lets it go, even while a child process spawned by another
/// thread still holds a copy of its descriptor (between its fork and its exec, where
/// `O_CLOEXEC` has not closed it yet). An `flock` lock belongs to the open file, which such a
/// copy shares: closing only this process's descriptor left the lock held until the child
/// exec'd, and under load a backup, a verify or an open found a lock nobody held any more.
/// The child here keeps its copy for seconds (a `dup2` without `O_CLOEXEC`), standing in for
/// a spawn preempted between fork and exec.
@Suite struct LockInheritanceTests {
    /// Spawns `sleep 30` holding a copy of `descriptor` as its descriptor 3.
    private func childHolding(_ descriptor: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sleep", &actions, nil, argv, environ)
        try #require(result == 0, "posix_spawn: \(result)")
        return pid
    }

    private func end(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// The descriptor this process has open on `path`, found through `/proc/self/fd`.
    private func descriptor(of path: String) throws -> Int32 {
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            let target = try? FileManager.default.destinationOfSymbolicLink(
                atPath: "/proc/self/fd/" + name)
            if target == path, let fd = Int32(name) { return fd }
        }
        throw LogStoreError.io(operation: "find", path: path, errno: ENOENT)
    }

    @Test func closingALockedFileReleasesTheLockAChildStillHoldsACopyOf() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let fs = PosixFileSystem()
        let path = dir.path + "/LOCK"
        let held = try fs.open(path, create: true, readOnly: false)
        #expect(try fs.tryLock(held))
        let child = try childHolding(held.descriptor)
        defer { end(child) }
        try fs.close(held)
        let next = try fs.open(path, create: false, readOnly: false)
        defer { try? fs.close(next) }
        #expect(try fs.tryLock(next), "the lock outlived its close in the child's copy")
    }

    @Test func aClosedStoreCanBeOpenedForWritingWhileAChildHoldsACopyOfItsLock() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.path)
        try store.put(Array("v".utf8), for: Array("k".utf8), in: "k")
        let child = try childHolding(try descriptor(of: dir.path + "/" + StoreFiles.lockName))
        defer { end(child) }
        try store.close()
        let again = try LogStore(path: dir.path)
        #expect(try again.get(Array("k".utf8), in: "k") == Array("v".utf8))
        try again.close()
    }
}
