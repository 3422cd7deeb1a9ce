import Foundation
import LogStore

/// A ``FileSystem`` that passes calls to the real one, records them, and fails the ones a test
/// asks for: `EIO`, `ENOSPC`, short writes, failed syncs.
package final class FaultInjectingFileSystem: FileSystem, Sendable {
    /// A recorded call: its kind and the path it touched.
    package struct Call: Sendable, Equatable {
        public var operation: String
        public var path: String
    }

    /// What to do to matching calls.
    package enum Fault: Sendable {
        /// Fail with this errno.
        case error(Int32)
        /// Write only this many bytes (writes only).
        case shortWrite(Int)
        /// Succeed, but only after this many microseconds (a slow disk).
        case delay(UInt32)
    }

    private struct Rule {
        var operation: String
        var pathSuffix: String
        var skip: Int
        var times: Int  // Int.max = persistent
        var fault: Fault
    }

    private let real = PosixFileSystem()
    private let state = Locked<(calls: [Call], rules: [Rule])>(([], []))

    package init() {}

    /// Calls made so far.
    package var calls: [Call] { state.withLock { $0.calls } }

    /// Fails the calls named `operation` ("write", "fdatasync", "open", "rename", …) on paths
    /// ending in `pathSuffix`, after letting `skip` of them through, `times` times.
    package func inject(
        _ fault: Fault, on operation: String, pathSuffix: String = "", skip: Int = 0, times: Int = 1
    ) {
        state.withLock {
            $0.rules.append(
                Rule(
                    operation: operation, pathSuffix: pathSuffix, skip: skip, times: times,
                    fault: fault))
        }
    }

    /// Removes every rule.
    package func heal() { state.withLock { $0.rules.removeAll() } }

    private func check(_ operation: String, _ path: String) -> Fault? {
        state.withLock { state in
            state.calls.append(Call(operation: operation, path: path))
            for i in state.rules.indices
            where state.rules[i].operation == operation && path.hasSuffix(state.rules[i].pathSuffix)
            {
                if state.rules[i].skip > 0 {
                    state.rules[i].skip -= 1
                    continue
                }
                guard state.rules[i].times > 0 else { continue }
                if state.rules[i].times != Int.max { state.rules[i].times -= 1 }
                return state.rules[i].fault
            }
            return nil
        }
    }

    private func fail(_ operation: String, _ path: String) throws {
        switch check(operation, path) {
        case .error(let code):
            throw LogStoreError.io(operation: operation, path: path, errno: code)
        case .delay(let microseconds):
            usleep(microseconds)
        case .shortWrite, nil:
            break
        }
    }

    package func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        try fail("open", path)
        return try real.open(path, create: create, readOnly: readOnly)
    }
    package func close(_ file: OpenFile) throws {
        try real.close(file)
    }
    package func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws
        -> Int
    {
        switch check("write", file.path) {
        case .error(let code):
            throw LogStoreError.io(operation: "write", path: file.path, errno: code)
        case .shortWrite(let n):
            return try real.write(
                file, UnsafeRawBufferPointer(rebasing: bytes.prefix(min(n, bytes.count))),
                at: offset)
        case .delay(let microseconds):
            usleep(microseconds)
            return try real.write(file, bytes, at: offset)
        case nil: return try real.write(file, bytes, at: offset)
        }
    }
    package func read(
        _ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    ) throws -> Int {
        try fail("read", file.path)
        return try real.read(file, into: buffer, at: offset)
    }
    package func syncData(_ file: OpenFile) throws {
        try fail("fdatasync", file.path)
        try real.syncData(file)
    }
    package func truncate(_ file: OpenFile, to length: Int64) throws {
        try fail("ftruncate", file.path)
        try real.truncate(file, to: length)
    }
    package func restrictToOwner(_ file: OpenFile) throws {
        try fail("fchmod", file.path)
        try real.restrictToOwner(file)
    }
    package func size(_ file: OpenFile) throws -> Int64 { try real.size(file) }
    package func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        try fail("mmap", file.path)
        return try real.map(file, length: length)
    }
    package func unmap(_ pointer: UnsafeRawPointer, length: Int) {
        real.unmap(pointer, length: length)
    }
    package func releasePages(_ pointer: UnsafeRawPointer, length: Int) {
        real.releasePages(pointer, length: length)
    }
    package func tryLock(_ file: OpenFile) throws -> Bool { try real.tryLock(file) }
    package func rename(_ from: String, to: String) throws {
        try fail("rename", from)
        try real.rename(from, to: to)
    }
    package func remove(_ path: String) throws {
        try fail("unlink", path)
        try real.remove(path)
    }
    package func makeDirectory(_ path: String) throws {
        try fail("mkdir", path)
        try real.makeDirectory(path)
    }
    package func syncDirectory(_ path: String) throws {
        try fail("fsync-directory", path)
        try real.syncDirectory(path)
    }
    package func contents(ofDirectory path: String) throws -> [String] {
        try real.contents(ofDirectory: path)
    }
    package func kind(of path: String) -> PathKind { real.kind(of: path) }
    package func link(_ from: String, to: String) throws {
        try fail("link", to)
        try real.link(from, to: to)
    }
    package func exchange(_ first: String, _ second: String) throws {
        try fail("exchange", first)
        try real.exchange(first, second)
    }
    package func removeDirectory(_ path: String) throws {
        try fail("rmdir", path)
        try real.removeDirectory(path)
    }
}
