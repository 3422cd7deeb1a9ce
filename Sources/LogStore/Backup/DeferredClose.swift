import Foundation

/// Closes files on a thread of its own, so that whatever their close costs (freeing the blocks
/// of a file whose last name is gone: on a file system mounted with `discard`, a device discard
/// that takes milliseconds) is not paid by the caller.
///
/// Thread safety: the files must be used by no one else once handed over. A process that exits
/// first closes them as it exits.
enum DeferredClose {
    /// Closes every one of `files` later, on another thread; returns at once.
    static func close(_ files: [OpenFile], fileSystem fs: any FileSystem) {
        guard !files.isEmpty else { return }
        let thread = Thread {
            for file in files { try? fs.close(file) }
        }
        thread.start()
    }
}
