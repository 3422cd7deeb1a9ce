import Foundation

/// A fresh temporary directory, removed by ``remove()``. Every workload runs in its own, so no
/// run sees another's files or page-cache state from the same path.
struct ScratchDirectory {
    let path: String

    /// Creates `logbook-bench-<name>-XXXXXX` under `$TMPDIR` (or /tmp).
    init(_ name: String) throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/logbook-bench-\(name)-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw BenchError.setup("mkdtemp in \(base) failed (errno \(errno))")
        }
        path = String(cString: created)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs `body` in a fresh directory and removes it afterwards, whatever happens.
    static func with<T>(_ name: String, _ body: (String) throws -> T) throws -> T {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        return try body(scratch.path)
    }

    /// Bytes of every regular file under `path` (their lengths, not blocks).
    static func bytes(under path: String) -> Int64 {
        let (data, caches) = split(under: path)
        return data + caches
    }

    /// A Logbook store's disposable caches (FORMAT.md): the key directory file and the index
    /// sidecar hold nothing the log does not, so deleting them loses no data.
    static let cacheNames: Set<String> = ["keys.dir", "logbook-indexes.sidecar"]

    /// Bytes of the regular files under `path`: the data files, and the caches
    /// (``cacheNames``, in any store directory below `path`) apart.
    static func split(under path: String) -> (data: Int64, caches: Int64) {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return (0, 0) }
        var data: Int64 = 0
        var caches: Int64 = 0
        while let name = walker.nextObject() as? String {
            var info = stat()
            if lstat(path + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                if cacheNames.contains(String(name.split(separator: "/").last ?? "")) {
                    caches += Int64(info.st_size)
                } else {
                    data += Int64(info.st_size)
                }
            }
        }
        return (data, caches)
    }
}
