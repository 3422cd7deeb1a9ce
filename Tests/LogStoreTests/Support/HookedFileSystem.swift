import LogStore

/// A ``FileSystem`` that passes every call to the real one, running `beforeMappingSegment` before
/// each `mmap` of a segment and letting `afterRead` change the bytes each `pread` returns (the
/// file, its offset, the bytes read): a test's way to have a writer act in the middle of a
/// reader's replay, or a reader see bytes as they were mid-write, at a point it chooses rather
/// than by timing; `afterWriteback` and `afterSync` watch what is written back and synced.
/// Thread-safe if the hooks are.
final class HookedFileSystem: FileSystem, Sendable {
    private let real = PosixFileSystem()
    private let beforeMappingSegment: @Sendable () throws -> Void
    private let afterRead: @Sendable (OpenFile, Int64, UnsafeMutableRawBufferPointer) -> Void
    private let afterWriteback: @Sendable (OpenFile, Int64, Int) -> Void
    private let afterSync: @Sendable (OpenFile) -> Void

    /// `afterWriteback` sees each ``startWriteback(_:from:length:)`` (file, offset, length) and
    /// `afterSync` each ``syncData(_:)``, after the real file system ran them.
    init(
        beforeMappingSegment: @escaping @Sendable () throws -> Void = {},
        afterRead: @escaping @Sendable (OpenFile, Int64, UnsafeMutableRawBufferPointer) -> Void = {
            _, _, _ in
        },
        afterWriteback: @escaping @Sendable (OpenFile, Int64, Int) -> Void = { _, _, _ in },
        afterSync: @escaping @Sendable (OpenFile) -> Void = { _ in }
    ) {
        self.beforeMappingSegment = beforeMappingSegment
        self.afterRead = afterRead
        self.afterWriteback = afterWriteback
        self.afterSync = afterSync
    }

    func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        if file.path.hasSuffix(".seg") { try beforeMappingSegment() }
        return try real.map(file, length: length)
    }

    func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        try real.open(path, create: create, readOnly: readOnly)
    }
    func close(_ file: OpenFile) throws { try real.close(file) }
    func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try real.write(file, bytes, at: offset)
    }
    func read(_ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws -> Int
    {
        let read = try real.read(file, into: buffer, at: offset)
        afterRead(file, offset, UnsafeMutableRawBufferPointer(rebasing: buffer[..<read]))
        return read
    }
    func syncData(_ file: OpenFile) throws {
        try real.syncData(file)
        afterSync(file)
    }
    func startWriteback(_ file: OpenFile, from offset: Int64, length: Int) {
        real.startWriteback(file, from: offset, length: length)
        afterWriteback(file, offset, length)
    }
    func truncate(_ file: OpenFile, to length: Int64) throws { try real.truncate(file, to: length) }
    func restrictToOwner(_ file: OpenFile) throws { try real.restrictToOwner(file) }
    func size(_ file: OpenFile) throws -> Int64 { try real.size(file) }
    func unmap(_ pointer: UnsafeRawPointer, length: Int) { real.unmap(pointer, length: length) }
    func releasePages(_ pointer: UnsafeRawPointer, length: Int) {
        real.releasePages(pointer, length: length)
    }
    func tryLock(_ file: OpenFile) throws -> Bool { try real.tryLock(file) }
    func rename(_ from: String, to: String) throws { try real.rename(from, to: to) }
    func remove(_ path: String) throws { try real.remove(path) }
    func makeDirectory(_ path: String) throws { try real.makeDirectory(path) }
    func syncDirectory(_ path: String) throws { try real.syncDirectory(path) }
    func contents(ofDirectory path: String) throws -> [String] {
        try real.contents(ofDirectory: path)
    }
    func kind(of path: String) -> PathKind { real.kind(of: path) }
}
