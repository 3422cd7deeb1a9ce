import Foundation

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    /// Its path.
    public let path: String

    /// Creates a new, empty directory.
    public init(_ label: String = "logbook") {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/\(label)-\(UUID().uuidString)"
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
