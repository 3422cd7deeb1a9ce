import Foundation
import LogStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening stores the way every command does, with the errors the tool reports.
enum StoreAccess {
    /// Checks that `path` is a directory that looks like a store (it holds a segment or the
    /// `LOCK` file), so that `logbook verify /tmp` does not report an empty, healthy store.
    /// - Throws: ``CommandError/cannotRun(_:)`` if nothing is there, it is not a directory, or
    ///   it holds no store files.
    static func requireStoreDirectory(_ path: String) throws {
        switch fileKind(path) {
        case .directory:
            guard (try? StoreFiles(storeAt: path))?.isStore == true else {
                throw CommandError.cannotRun(
                    "no store at \(path): the directory holds no segment files and no LOCK file")
            }
        case .missing: throw CommandError.cannotRun("no store at \(path): no such directory")
        case .other:
            throw CommandError.cannotRun("\(path) is not a store: a store is a directory")
        }
    }

    /// Opens the store at `path` read-only (no lock, so another process may be writing it).
    /// Failures to open that the command can work around (damage) come back as `.failure`.
    /// A file that vanishes while the store is read (a compaction of the writer replacing
    /// segments and hints) makes it try again, up to 20 times.
    /// - Throws: ``CommandError/cannotRun(_:)`` if the path is not a store directory or its
    ///   files have a format version newer than this tool reads.
    static func openForReading(_ path: String, salvage: Bool = false) throws -> Result<
        LogStore, LogStoreError
    > {
        try requireStoreDirectory(path)
        var options = LogStoreOptions()
        options.readOnly = true
        options.salvage = salvage
        options.createIfMissing = false
        options.autoCompactionDeadFraction = nil
        StoreTuning.apply(to: &options)
        do {
            var attempts = 0
            while true {
                do {
                    return .success(try LogStore(path: path, options: options))
                } catch LogStoreError.io(_, _, ENOENT) where attempts < 20 {
                    attempts += 1
                    usleep(10_000)
                }
            }
        } catch let error as LogStoreError {
            if case .unsupportedVersion = error { throw CommandError.cannotRun("\(error)") }
            return .failure(error)
        } catch {
            return .failure(.invalidArgument("\(error)"))
        }
    }

    /// Opens the store at `path` for writing (taking the writer lock).
    /// - Throws: ``CommandError/failed(_:)`` with one line if another process has it open.
    static func openForWriting(_ path: String) throws -> LogStore {
        try requireStoreDirectory(path)
        var options = LogStoreOptions()
        options.createIfMissing = false
        options.autoCompactionDeadFraction = nil
        StoreTuning.apply(to: &options)
        do {
            return try LogStore(path: path, options: options)
        } catch LogStoreError.locked {
            throw CommandError.failed(
                "the store at \(path) is open for writing by another process; close it there first")
        }
    }

    /// What a path names.
    enum FileKind {
        /// Nothing.
        case missing
        /// A directory (a symbolic link to one included).
        case directory
        /// Something else.
        case other
    }

    /// What is at `path` (following symbolic links).
    static func fileKind(_ path: String) -> FileKind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        return info.st_mode & S_IFMT == S_IFDIR ? .directory : .other
    }
}
