// Part of the `frames` and `hints` fuzz bodies (Tests/Fuzz/README.md): compiled into the LogStore
// module by Tests/Fuzz/build.sh (-D FUZZING), and into LogStoreTests for the corpus replay.
import Foundation

#if !FUZZING
    @testable import LogStore
#endif

/// A read-only file system over byte arrays in memory, so a fuzz body can make a ``Segment`` from
/// its input without touching the disk. `map` returns a heap copy of exactly the file's bytes
/// (not a page-rounded mapping), so AddressSanitizer reports a read one byte past the end.
///
/// Writes, creation, renames and removals throw `EROFS`; a missing file throws `ENOENT`.
/// Thread-safe (immutable).
struct ByteFileSystem: FileSystem {
    let files: [String: [UInt8]]

    private func contents(_ path: String) throws -> [UInt8] {
        guard let bytes = files[path] else {
            throw LogStoreError.io(operation: "open", path: path, errno: ENOENT)
        }
        return bytes
    }

    private func refused(_ operation: String, _ path: String) -> LogStoreError {
        .io(operation: operation, path: path, errno: EROFS)
    }

    func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        guard !create else { throw refused("open", path) }
        _ = try contents(path)
        return OpenFile(descriptor: -1, path: path)
    }

    func close(_ file: OpenFile) throws {}

    func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        throw refused("write", file.path)
    }

    func read(_ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws -> Int
    {
        let bytes = try contents(file.path)
        guard offset < Int64(bytes.count) else { return 0 }
        let count = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(
                from: UnsafeRawBufferPointer(rebasing: source[Int(offset)..<Int(offset) + count]))
        }
        return count
    }

    func syncData(_ file: OpenFile) throws {}

    func truncate(_ file: OpenFile, to length: Int64) throws {
        throw refused("truncate", file.path)
    }

    func restrictToOwner(_ file: OpenFile) throws {
        throw refused("fchmod", file.path)
    }

    func size(_ file: OpenFile) throws -> Int64 { Int64(try contents(file.path).count) }

    func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        let bytes = try contents(file.path)
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        if !bytes.isEmpty {
            bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        }
        return UnsafeRawPointer(copy)
    }

    func unmap(_ pointer: UnsafeRawPointer, length: Int) {
        UnsafeMutableRawPointer(mutating: pointer).deallocate()
    }

    func releasePages(_ pointer: UnsafeRawPointer, length: Int) {}

    func tryLock(_ file: OpenFile) throws -> Bool { true }

    func rename(_ from: String, to: String) throws { throw refused("rename", from) }

    func remove(_ path: String) throws { throw refused("unlink", path) }

    func makeDirectory(_ path: String) throws { throw refused("mkdir", path) }

    func syncDirectory(_ path: String) throws {}

    func contents(ofDirectory path: String) throws -> [String] {
        files.keys.filter { $0.hasPrefix(path + "/") }.map { String($0.dropFirst(path.count + 1)) }
    }

    func kind(of path: String) -> PathKind {
        if files[path] != nil { return .file }
        return files.keys.contains { $0.hasPrefix(path + "/") } ? .directory : .missing
    }
}
