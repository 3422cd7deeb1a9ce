import CKeyDirectory

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open file: its descriptor and the path it was opened with (for error messages).
package struct OpenFile: Sendable, Hashable {
    package let descriptor: Int32
    package let path: String

    package init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }
}

/// What kind of thing a path names.
package enum PathKind: Sendable, Equatable {
    case missing, file, directory, symlink, other
}

/// Every system call the store makes on its files and directories, and the object layer's too
/// (``makeDirectories(_:)``): neither calls the OS for a file itself, so tests can wrap
/// ``PosixFileSystem`` to record the calls or to inject `EIO`, `ENOSPC`, short writes and failed
/// syncs. (Advice on memory that is no file's, such as `madvise(MADV_HUGEPAGE)` on the key
/// directory's own table, is made directly: it cannot fail in a way a store must survive.)
///
/// Contract: each method either does its whole job or throws ``LogStoreError/io(operation:path:errno:)``;
/// the one exception is ``write(_:_:at:)``, which may write fewer bytes than asked (as `pwrite` does)
/// and returns how many. Implementations are thread-safe.
package protocol FileSystem: Sendable {
    /// Opens or creates a file (owner-only permissions, `O_CLOEXEC | O_NOFOLLOW`).
    func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile
    /// Closes the file; a lock ``tryLock(_:)`` took through it is released at once, even while
    /// a child process spawned by another thread still holds a copy of the descriptor.
    func close(_ file: OpenFile) throws
    /// Writes at `offset`; may write less than `bytes.count`.
    func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int
    /// Reads at `offset`; returns fewer bytes than asked only at end of file.
    func read(_ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws
        -> Int
    /// `fdatasync`: the file's data (and its size) reach stable storage.
    func syncData(_ file: OpenFile) throws
    /// Asks the OS to start writing `length` bytes of the file from `offset` to the device now,
    /// without waiting (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`), so that a later
    /// ``syncData(_:)`` waits for less. Advice only: it makes nothing durable and cannot fail.
    /// The default does nothing.
    func startWriteback(_ file: OpenFile, from offset: Int64, length: Int)
    func truncate(_ file: OpenFile, to length: Int64) throws
    /// `fchmod` to owner-only (0600): for files recovery rewrites, whatever mode they had.
    func restrictToOwner(_ file: OpenFile) throws
    func size(_ file: OpenFile) throws -> Int64
    /// Maps `length` bytes of the file read-only and shared; `length` may exceed the file's size
    /// (only bytes inside the file may be touched).
    func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer
    func unmap(_ pointer: UnsafeRawPointer, length: Int)
    /// Maps `length` bytes of the file from `offset` (a multiple of 4096) privately and writable:
    /// pages come from the file when first touched, a write copies its page into this process's
    /// memory, and the file never changes. The bytes must lie inside the file.
    func mapCopyOnWrite(_ file: OpenFile, offset: Int64, length: Int) throws
        -> UnsafeMutableRawPointer
    /// Undoes ``mapCopyOnWrite(_:offset:length:)``.
    func unmapCopyOnWrite(_ pointer: UnsafeMutableRawPointer, length: Int)
    /// Drops from this process's memory the pages of a mapping made by
    /// ``mapCopyOnWrite(_:offset:length:)`` that was never written: they come back from the file
    /// when next touched. Advice only; must not be called once the mapping was written.
    func releaseUnwrittenCopyOnWritePages(_ pointer: UnsafeMutableRawPointer, length: Int)
    /// Tells the OS this process no longer needs the mapped pages in memory (they stay in the
    /// page cache and come back on the next touch). Advice only: it cannot fail.
    func releasePages(_ pointer: UnsafeRawPointer, length: Int)
    /// Takes an exclusive advisory lock without waiting; returns `false` if another holds it.
    func tryLock(_ file: OpenFile) throws -> Bool
    func rename(_ from: String, to: String) throws
    func remove(_ path: String) throws
    func makeDirectory(_ path: String) throws
    /// Syncs a directory so that entries created, renamed or removed in it are durable.
    func syncDirectory(_ path: String) throws
    func contents(ofDirectory path: String) throws -> [String]
    func kind(of path: String) -> PathKind
    /// Makes `to` a second name of the file `from` (a hard link).
    func link(_ from: String, to: String) throws
    /// Swaps two directories' names at once (`renameat2(RENAME_EXCHANGE)`, `renamex_np(RENAME_SWAP)`):
    /// no moment exists where either name is missing. Throws `ENOTSUP` where the system cannot.
    func exchange(_ first: String, _ second: String) throws
    /// Removes the empty directory `path`.
    func removeDirectory(_ path: String) throws
}

/// The real file system, through POSIX calls.
package struct PosixFileSystem: FileSystem {
    package init() {}

    package func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        var flags: Int32 = (readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NOFOLLOW
        if create { flags |= O_CREAT }
        let fd = retrying { systemOpen(path, flags, 0o600) }
        guard fd >= 0 else { throw LogStoreError.io(operation: "open", path: path, errno: errno) }
        return OpenFile(descriptor: fd, path: path)
    }

    package func close(_ file: OpenFile) throws {
        // An `flock` lock belongs to the open file, not to this descriptor: a child process
        // that another thread is spawning holds a copy of every descriptor until its `exec`
        // closes them (`O_CLOEXEC`), and while it does, closing only ours would leave the lock
        // held. Unlocking first ends it for every copy. (On a file never locked, a no-op.)
        _ = flock(file.descriptor, LOCK_UN)
        #if canImport(Glibc)
            let result = Glibc.close(file.descriptor)
        #else
            let result = Darwin.close(file.descriptor)
        #endif
        if result != 0 && errno != EINTR {
            throw LogStoreError.io(operation: "close", path: file.path, errno: errno)
        }
    }

    package func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws
        -> Int
    {
        let n = retrying { pwrite(file.descriptor, bytes.baseAddress, bytes.count, off_t(offset)) }
        guard n >= 0 else {
            throw LogStoreError.io(operation: "write", path: file.path, errno: errno)
        }
        return n
    }

    package func read(
        _ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    ) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = retrying {
                pread(
                    file.descriptor, buffer.baseAddress! + done, buffer.count - done,
                    off_t(offset) + off_t(done))
            }
            guard n >= 0 else {
                throw LogStoreError.io(operation: "read", path: file.path, errno: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    package func syncData(_ file: OpenFile) throws {
        #if canImport(Darwin)
            let result = retrying { fcntl(file.descriptor, F_FULLFSYNC) }
        #else
            let result = retrying { fdatasync(file.descriptor) }
        #endif
        guard result == 0 else {
            throw LogStoreError.io(operation: "fdatasync", path: file.path, errno: errno)
        }
    }

    package func startWriteback(_ file: OpenFile, from offset: Int64, length: Int) {
        _ = logbook_start_writeback(file.descriptor, offset, Int64(length))
    }

    package func truncate(_ file: OpenFile, to length: Int64) throws {
        guard retrying({ ftruncate(file.descriptor, off_t(length)) }) == 0 else {
            throw LogStoreError.io(operation: "ftruncate", path: file.path, errno: errno)
        }
    }

    package func restrictToOwner(_ file: OpenFile) throws {
        guard retrying({ fchmod(file.descriptor, 0o600) }) == 0 else {
            throw LogStoreError.io(operation: "fchmod", path: file.path, errno: errno)
        }
    }

    package func size(_ file: OpenFile) throws -> Int64 {
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else {
            throw LogStoreError.io(operation: "fstat", path: file.path, errno: errno)
        }
        return Int64(info.st_size)
    }

    package func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        let pointer = mmap(nil, max(length, 1), PROT_READ, MAP_SHARED, file.descriptor, 0)
        guard let pointer, pointer != MAP_FAILED else {
            throw LogStoreError.io(operation: "mmap", path: file.path, errno: errno)
        }
        return UnsafeRawPointer(pointer)
    }

    package func unmap(_ pointer: UnsafeRawPointer, length: Int) {
        munmap(UnsafeMutableRawPointer(mutating: pointer), max(length, 1))
    }

    package func releasePages(_ pointer: UnsafeRawPointer, length: Int) {
        _ = madvise(UnsafeMutableRawPointer(mutating: pointer), length, MADV_DONTNEED)
    }

    package func mapCopyOnWrite(_ file: OpenFile, offset: Int64, length: Int) throws
        -> UnsafeMutableRawPointer
    {
        let pointer = mmap(
            nil, max(length, 1), PROT_READ | PROT_WRITE, MAP_PRIVATE, file.descriptor,
            off_t(offset))
        guard let pointer, pointer != MAP_FAILED else {
            throw LogStoreError.io(operation: "mmap", path: file.path, errno: errno)
        }
        return pointer
    }

    package func unmapCopyOnWrite(_ pointer: UnsafeMutableRawPointer, length: Int) {
        munmap(pointer, max(length, 1))
    }

    package func releaseUnwrittenCopyOnWritePages(_ pointer: UnsafeMutableRawPointer, length: Int) {
        _ = madvise(pointer, length, MADV_DONTNEED)
    }

    package func tryLock(_ file: OpenFile) throws -> Bool {
        if retrying({ flock(file.descriptor, LOCK_EX | LOCK_NB) }) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw LogStoreError.io(operation: "flock", path: file.path, errno: errno)
    }

    package func rename(_ from: String, to: String) throws {
        #if canImport(Glibc)
            let result = Glibc.rename(from, to)
        #else
            let result = Darwin.rename(from, to)
        #endif
        guard result == 0 else {
            throw LogStoreError.io(operation: "rename", path: from, errno: errno)
        }
    }

    package func remove(_ path: String) throws {
        guard unlink(path) == 0 else {
            throw LogStoreError.io(operation: "unlink", path: path, errno: errno)
        }
    }

    package func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o700) == 0 else {
            throw LogStoreError.io(operation: "mkdir", path: path, errno: errno)
        }
    }

    package func syncDirectory(_ path: String) throws {
        let fd = retrying { systemOpen(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY, 0) }
        guard fd >= 0 else { throw LogStoreError.io(operation: "open", path: path, errno: errno) }
        defer { _ = systemClose(fd) }
        guard retrying({ fsync(fd) }) == 0 else {
            throw LogStoreError.io(operation: "fsync", path: path, errno: errno)
        }
    }

    package func contents(ofDirectory path: String) throws -> [String] {
        guard let dir = opendir(path) else {
            throw LogStoreError.io(operation: "opendir", path: path, errno: errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    package func link(_ from: String, to: String) throws {
        #if canImport(Glibc)
            let result = Glibc.link(from, to)
        #else
            let result = Darwin.link(from, to)
        #endif
        guard result == 0 else { throw LogStoreError.io(operation: "link", path: to, errno: errno) }
    }

    package func exchange(_ first: String, _ second: String) throws {
        guard let swap = directorySwap else {
            throw LogStoreError.io(operation: "exchange", path: first, errno: ENOTSUP)
        }
        guard swap(first, second) == 0 else {
            throw LogStoreError.io(operation: "exchange", path: first, errno: errno)
        }
    }

    package func removeDirectory(_ path: String) throws {
        guard rmdir(path) == 0 else {
            throw LogStoreError.io(operation: "rmdir", path: path, errno: errno)
        }
    }

    package func kind(of path: String) -> PathKind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }
}

/// Repeats a system call interrupted by a signal.
@inline(__always)
private func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
        return Glibc.open(path, flags, mode)
    #else
        return Darwin.open(path, flags, mode)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
        return Glibc.close(fd)
    #else
        return Darwin.close(fd)
    #endif
}

/// The system's atomic swap of two names, looked up at run time (the C library headers Swift
/// imports do not declare it): `renameat2(…, RENAME_EXCHANGE)` on Linux (glibc 2.28 on),
/// `renamex_np(…, RENAME_SWAP)` on macOS. `nil` where neither exists.
private let directorySwap: (@Sendable (String, String) -> Int32)? = {
    #if canImport(Glibc)
        typealias RenameAt2 =
            @convention(c) (
                Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
            ) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else {
            return nil
        }
        let call = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 1 << 1
        return { call(AT_FDCWD, $0, AT_FDCWD, $1, renameExchange) }
    #else
        typealias RenameXNP =
            @convention(c) (
                UnsafePointer<CChar>, UnsafePointer<CChar>, UInt32
            ) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "renamex_np") else {
            return nil
        }
        let call = unsafeBitCast(symbol, to: RenameXNP.self)
        let renameSwap: UInt32 = 0x2
        return { call($0, $1, renameSwap) }
    #endif
}()

/// The C library's text for an `errno` value.
func errnoDescription(_ code: Int32) -> String {
    String(cString: strerror(code))
}

extension FileSystem {
    /// Advice only: a file system that does not pass it on loses nothing.
    package func releasePages(_ pointer: UnsafeRawPointer, length: Int) {}

    /// Without a private mapping: the bytes are read (through ``read(_:into:at:)``) into memory
    /// of this process's own.
    package func mapCopyOnWrite(_ file: OpenFile, offset: Int64, length: Int) throws
        -> UnsafeMutableRawPointer
    {
        var raw: UnsafeMutableRawPointer?
        guard posix_memalign(&raw, 4096, max(length, 1)) == 0, let raw else {
            throw LogStoreError.io(operation: "mmap", path: file.path, errno: ENOMEM)
        }
        var done = 0
        while done < length {
            let n = try read(
                file, into: UnsafeMutableRawBufferPointer(start: raw + done, count: length - done),
                at: offset + Int64(done))
            guard n > 0 else {
                free(raw)
                throw LogStoreError.io(operation: "mmap", path: file.path, errno: EINVAL)
            }
            done += n
        }
        return raw
    }

    package func unmapCopyOnWrite(_ pointer: UnsafeMutableRawPointer, length: Int) {
        free(pointer)
    }

    /// The memory is this process's own copy: nothing to drop.
    package func releaseUnwrittenCopyOnWritePages(_ pointer: UnsafeMutableRawPointer, length: Int) {
    }
}

extension FileSystem {
    /// Writes all of `bytes` at `offset`, continuing after short writes.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``; a write that makes no progress
    ///   reports `EIO`.
    func writeAll(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let n = try write(
                file, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + Int64(done))
            guard n > 0 else {
                throw LogStoreError.io(operation: "write", path: file.path, errno: EIO)
            }
            done += n
        }
    }
}

extension FileSystem {
    /// Puts `bytes` at `path` crash-safely: written to `path.tmp` (a piece at a time, so a
    /// mapping is not pulled into memory whole), synced, renamed over `path`, and `directory`
    /// synced. After a crash `path` holds its old bytes or all the new ones.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``; the temporary file is removed.
    func writeAtomically(_ bytes: UnsafeRawBufferPointer, to path: String, directory: String)
        throws
    {
        try writeAtomically([bytes], to: path, directory: directory)
    }

    /// ``writeAtomically(_:to:directory:)`` of the concatenation of `parts`, making the same
    /// writes as for one buffer of their bytes, through a buffer of one piece: the parts are not
    /// copied whole.
    func writeAtomically(_ parts: [UnsafeRawBufferPointer], to path: String, directory: String)
        throws
    {
        let temporary = path + ".tmp"
        let file = try open(temporary, create: true, readOnly: false)
        do {
            try truncate(file, to: 0)
            let total = parts.reduce(0) { $0 + $1.count }
            var piece: [UInt8] = []
            piece.reserveCapacity(min(SegmentOutput.flushThreshold, total))
            var written = 0
            for bytes in parts {
                var done = 0
                while done < bytes.count {
                    let take = min(SegmentOutput.flushThreshold - piece.count, bytes.count - done)
                    piece.append(
                        contentsOf: UnsafeRawBufferPointer(rebasing: bytes[done..<done + take]))
                    done += take
                    if piece.count == SegmentOutput.flushThreshold {
                        try piece.withUnsafeBytes { try writeAll(file, $0, at: Int64(written)) }
                        written += piece.count
                        piece.removeAll(keepingCapacity: true)
                    }
                }
            }
            if !piece.isEmpty {
                try piece.withUnsafeBytes { try writeAll(file, $0, at: Int64(written)) }
            }
            try syncData(file)
            try close(file)
        } catch {
            try? close(file)
            try? remove(temporary)
            throw error
        }
        try rename(temporary, to: path)
        try syncDirectory(directory)
    }
}

extension FileSystem {
    /// Makes the directory `path` and any of its parents that are missing (owner-only), as
    /// `mkdir -p` does; a directory already there is left as it is.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` for the first directory that could
    ///   not be made.
    package func makeDirectories(_ path: String) throws {
        guard !path.isEmpty, kind(of: path) != .directory else { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectories(String(path[..<slash]))
        }
        try makeDirectory(path)
    }
}

extension FileSystem {
    /// Starts nothing: a file system that does not say otherwise writes back when it syncs.
    package func startWriteback(_ file: OpenFile, from offset: Int64, length: Int) {}

    /// Without hard links: `ENOTSUP` (a backup then copies instead).
    package func link(_ from: String, to: String) throws {
        throw LogStoreError.io(operation: "link", path: to, errno: ENOTSUP)
    }

    /// Without an atomic swap: `ENOTSUP`.
    package func exchange(_ first: String, _ second: String) throws {
        throw LogStoreError.io(operation: "exchange", path: first, errno: ENOTSUP)
    }

    /// Through ``remove(_:)``, for file systems whose removal takes empty directories too.
    package func removeDirectory(_ path: String) throws { try remove(path) }
}
