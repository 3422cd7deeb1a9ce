import LogStore

/// The files of a store directory, listed once through the engine's file-system seam (the
/// calls the store itself makes): every command that looks at a store's files asks here.
///
/// A listing is a snapshot; a directory that cannot be read lists as empty.
struct StoreFiles {
    /// A file's name and size in bytes (0 if it could not be opened).
    struct File: Equatable {
        var name: String
        var size: Int64
    }

    /// The store directory.
    let path: String
    /// The names in the directory, sorted.
    let names: [String]
    private let fileSystem: any FileSystem

    /// The files in `path` now.
    init(_ path: String, fileSystem: any FileSystem = PosixFileSystem()) {
        self.path = path
        self.fileSystem = fileSystem
        names = (try? fileSystem.contents(ofDirectory: path)) ?? []
    }

    /// Segment files (`*.seg`), in name order, which is log order.
    var segments: [String] { names.filter { $0.hasSuffix(".seg") } }
    /// Hint files (`*.hint`).
    var hints: [String] { names.filter { $0.hasSuffix(".hint") } }
    /// Files a compaction is writing, or left behind (`*.tmp`).
    var temporaries: [String] { names.filter { $0.hasSuffix(".tmp") } }
    /// Whether the directory holds a store's files: a segment or the lock file.
    var holdsStore: Bool { names.contains("LOCK") || !segments.isEmpty }

    /// `names` with their sizes.
    func sized(_ names: [String]) -> [File] {
        names.map { File(name: $0, size: size(of: $0)) }
    }

    private func size(of name: String) -> Int64 {
        guard let file = try? fileSystem.open(path + "/" + name, create: false, readOnly: true)
        else { return 0 }
        defer { try? fileSystem.close(file) }
        return (try? fileSystem.size(file)) ?? 0
    }
}
