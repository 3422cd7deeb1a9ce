import Foundation

/// A fresh directory under ``base``, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    /// Its path.
    public let path: String

    /// Where tests' directories go: `$TMPDIR` if it is set, else `/dev/shm` where it is writable,
    /// else the system's temporary directory. A tmpfs makes the engine's `fdatasync` and
    /// directory syncs cost nothing: no test checks durability through the real disk (power
    /// losses are simulated through the IO seam), and on a shared disk the syncs made the
    /// default tier several times slower (CompactionTests' interrupted compactions: 12 s on
    /// ext4, 1.4 s on tmpfs).
    public static let base: String = {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["TMPDIR"], !chosen.isEmpty { return chosen }
        let shm = "/dev/shm"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: shm, isDirectory: &isDirectory),
            isDirectory.boolValue, FileManager.default.isWritableFile(atPath: shm)
        {
            return shm
        }
        return FileManager.default.temporaryDirectory.path
    }()

    /// Creates a new, empty directory.
    public init(_ label: String = "logbook") {
        path = "\(Self.base)/\(label)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func child(_ name: String) -> String { "\(path)/\(name)" }

    /// Copies every file of the directory at `source` into this one, as the files are now (a
    /// copy of an open store: the files a crash would leave).
    public func copyFiles(of source: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: child(name))
        }
    }

    /// Removes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
