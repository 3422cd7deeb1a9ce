#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open file closed when the last of its holders lets it go: a ``PinnedListing`` and the
/// ``Segment`` made from it share one descriptor, whichever outlives the other.
final class SharedFile: Sendable {
    let file: OpenFile
    private let fileSystem: any FileSystem

    init(_ file: OpenFile, fileSystem: any FileSystem) {
        self.file = file
        self.fileSystem = fileSystem
    }

    deinit { try? fileSystem.close(file) }
}

/// A listing of a store's directory taken by a process that does not hold the writer lock, with
/// every segment and hint file it names already open (FORMAT.md, "Readers in other processes").
///
/// A replay can take far longer than a fast writer's compaction: listing, replaying, then
/// listing again to see that nothing moved let a reader lose the race every time. Here only the
/// `open`s lie between the two listings; once ``init(storeAt:fileSystem:)`` returns, the files
/// are a state of the store that a compaction can no longer take away (a removed file stays
/// readable through its descriptor), so the replay that reads them may take as long as it needs.
struct PinnedListing {
    /// The first listing: what the replay reads, in replay order.
    let files: StoreFiles
    /// The listed segments' files, by order.
    let segments: [UInt64: SharedFile]
    /// The listed hints' files, by the order of their segment. A hint missing here is read as
    /// absent (its segment is scanned).
    let hints: [UInt64: SharedFile]

    /// Lists the directory at `path`, opens what it lists, and lists again. `nil` when the second
    /// listing shows that the first was no state of the store (``ListingStability``) or a listed
    /// segment was removed before it could be opened: a compaction moved the files meanwhile.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the directory cannot be listed or
    ///   a file cannot be opened for any other reason than its removal.
    init?(storeAt path: String, fileSystem fs: any FileSystem) throws {
        let files = try StoreFiles(storeAt: path, fileSystem: fs)
        var segments: [UInt64: SharedFile] = [:]
        var hints: [UInt64: SharedFile] = [:]
        for segment in files.segments {
            guard let file = try Self.open(files.path(of: segment.name), fs) else { return nil }
            segments[segment.order] = file
        }
        for name in files.hints {
            guard let order = StoreFiles.segmentOrder(hintName: name), segments[order] != nil
            else { continue }
            hints[order] = try Self.open(files.path(of: name), fs)
        }
        let after = try StoreFiles(storeAt: path, fileSystem: fs)
        guard
            ListingStability.holds(
                listed: files.segments.map(\.order), after: after.segments.map(\.order))
        else { return nil }
        self.files = files
        self.segments = segments
        self.hints = hints
    }

    /// The file at `path` opened read-only, or `nil` if it is gone.
    private static func open(_ path: String, _ fs: any FileSystem) throws -> SharedFile? {
        do {
            return SharedFile(try fs.open(path, create: false, readOnly: true), fileSystem: fs)
        } catch LogStoreError.io(_, _, ENOENT) {
            return nil
        }
    }
}
