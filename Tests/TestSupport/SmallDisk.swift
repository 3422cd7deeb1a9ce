import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small tmpfs mounted for one test, where writes past its size fail with a real `ENOSPC`.
/// Mounting needs root: suites that use it are enabled only when ``canMount`` holds.
package struct SmallDisk {
    /// The mount point.
    package let path: String

    /// Whether this process may mount one (it runs as root).
    package static var canMount: Bool { getuid() == 0 }

    /// Mounts a tmpfs of `size` (as `mount -o size=` takes it: `1m`, `1536k`) at the new
    /// directory `path`.
    /// - Throws: `CocoaError(.fileWriteNoPermission)` if `mount` fails.
    package init(at path: String, size: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        guard Self.run(["mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]) == 0 else {
            throw CocoaError(.fileWriteNoPermission)
        }
        self.path = path
    }

    /// Unmounts it.
    package func unmount() { _ = Self.run(["umount", path]) }

    /// `path` + "/" + `name`.
    package func child(_ name: String) -> String { path + "/" + name }

    /// Bytes in use on it.
    package var usedBytes: UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return UInt64(info.f_blocks - info.f_bfree) * UInt64(info.f_frsize)
    }

    /// Runs `arguments` through `/usr/bin/env`, silenced; its exit status (-1 if it did not start).
    private static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
