import Foundation
import LogStore

/// A ``FileSystem`` that passes every call to `inner` and logs it with its outcome, so a test
/// can tell what really succeeded (for instance, that a commit reported durable was followed by
/// an `fdatasync` that did not fail). Stack it over ``FaultInjectingFileSystem`` to see the
/// faults it injected. Thread-safe.
package final class CallLogFileSystem: FileSystem, Sendable {
    /// One call: the operation (named as ``FaultInjectingFileSystem`` names them), its path, and
    /// whether it returned normally (a short write counts as success; `written` says how much).
    package struct Call: Sendable, Equatable {
        package var operation: String
        package var path: String
        package var succeeded: Bool
        package var written = 0
    }

    private let inner: any FileSystem
    private let log = Locked<[Call]>([])

    package init(_ inner: any FileSystem) { self.inner = inner }

    /// The calls so far.
    package var calls: [Call] { log.withLock { $0 } }

    private func logged<T>(_ operation: String, _ path: String, _ body: () throws -> T) throws
        -> T
    {
        do {
            let result = try body()
            log.withLock { $0.append(Call(operation: operation, path: path, succeeded: true)) }
            return result
        } catch {
            log.withLock { $0.append(Call(operation: operation, path: path, succeeded: false)) }
            throw error
        }
    }

    package func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        try logged("open", path) { try inner.open(path, create: create, readOnly: readOnly) }
    }
    package func close(_ file: OpenFile) throws {
        try logged("close", file.path) { try inner.close(file) }
    }
    package func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws
        -> Int
    {
        do {
            let n = try inner.write(file, bytes, at: offset)
            log.withLock {
                $0.append(Call(operation: "write", path: file.path, succeeded: true, written: n))
            }
            return n
        } catch {
            log.withLock { $0.append(Call(operation: "write", path: file.path, succeeded: false)) }
            throw error
        }
    }
    package func read(
        _ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    ) throws -> Int {
        try logged("read", file.path) { try inner.read(file, into: buffer, at: offset) }
    }
    package func syncData(_ file: OpenFile) throws {
        try logged("fdatasync", file.path) { try inner.syncData(file) }
    }
    package func truncate(_ file: OpenFile, to length: Int64) throws {
        try logged("ftruncate", file.path) { try inner.truncate(file, to: length) }
    }
    package func restrictToOwner(_ file: OpenFile) throws {
        try logged("fchmod", file.path) { try inner.restrictToOwner(file) }
    }
    package func size(_ file: OpenFile) throws -> Int64 { try inner.size(file) }
    package func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        try logged("mmap", file.path) { try inner.map(file, length: length) }
    }
    package func unmap(_ pointer: UnsafeRawPointer, length: Int) {
        inner.unmap(pointer, length: length)
    }
    package func tryLock(_ file: OpenFile) throws -> Bool { try inner.tryLock(file) }
    package func rename(_ from: String, to: String) throws {
        try logged("rename", from) { try inner.rename(from, to: to) }
    }
    package func remove(_ path: String) throws {
        try logged("unlink", path) { try inner.remove(path) }
    }
    package func makeDirectory(_ path: String) throws {
        try logged("mkdir", path) { try inner.makeDirectory(path) }
    }
    package func syncDirectory(_ path: String) throws {
        try logged("fsync-directory", path) { try inner.syncDirectory(path) }
    }
    package func contents(ofDirectory path: String) throws -> [String] {
        try inner.contents(ofDirectory: path)
    }
    package func kind(of path: String) -> PathKind { inner.kind(of: path) }
    package func link(_ from: String, to: String) throws {
        try logged("link", to) { try inner.link(from, to: to) }
    }
    package func exchange(_ first: String, _ second: String) throws {
        try logged("exchange", first) { try inner.exchange(first, second) }
    }
    package func removeDirectory(_ path: String) throws {
        try logged("rmdir", path) { try inner.removeDirectory(path) }
    }
}
