import Foundation
import LogStore

/// One step of a recorded workload: a system call that changes what a power loss could leave
/// on disk, or a note from the workload about what it was promised.
///
/// Files are named by an identity that follows them through renames (like an inode), so a
/// write through a descriptor lands in the right file whatever its name is now.
package enum TraceEvent: Sendable, Equatable {
    case makeDirectory(path: String)
    /// `open` with `create` of a path that did not exist.
    case create(path: String, file: Int)
    case write(file: Int, offset: Int, bytes: [UInt8])
    case truncate(file: Int, length: Int)
    /// `fdatasync`: the file's data and size are durable.
    case syncData(file: Int)
    case rename(from: String, to: String)
    case remove(path: String)
    /// `fsync` of a directory: the entries created, renamed or removed in it are durable.
    case syncDirectory(path: String)
    /// The workload is about to run commit `sequence`: from here on it may be visible.
    case attempt(sequence: UInt64)
    /// A call returned that promised every commit up to `sequence` durable (a `.sync` commit,
    /// `sync()`, `compact()` or `close()`).
    case acknowledged(sequence: UInt64)

    /// Whether this is a system call (a place a power loss can fall after), not a note.
    package var isOperation: Bool {
        switch self {
        case .attempt, .acknowledged: return false
        default: return true
        }
    }
}

/// A ``FileSystem`` that does every call on the real file system under `root` and records, in
/// order, each call that changes durable state (``TraceEvent``), with the bytes written.
///
/// What was under `root` when it was made is in ``initialFiles`` and ``initialDirectories`` and
/// counts as durable. ``SimulatedDisk`` replays the trace to build what a power loss at any
/// point could leave. Thread-safe; meant for one workload thread (events of concurrent calls
/// are recorded in the order they finish).
package final class RecordingFileSystem: FileSystem, Sendable {
    /// The directory the workload runs in; paths in events start with it.
    package let root: String
    /// Files under `root` at the start (path → bytes), with identities `0..<count` in path order.
    package let initialFiles: [(path: String, bytes: [UInt8])]
    /// Directories under `root` at the start (not `root` itself).
    package let initialDirectories: [String]

    private struct State {
        var events: [TraceEvent] = []
        var names: [String: Int] = [:]
        var descriptors: [Int32: Int] = [:]
        var nextFile = 0
    }

    private let real = PosixFileSystem()
    private let state: Locked<State>

    /// Starts recording in `root` (which must exist), taking what is there as durable.
    package init(root: String) {
        self.root = root
        var files: [(String, [UInt8])] = []
        var directories: [String] = []
        let manager = FileManager.default
        for relative in ((try? manager.subpathsOfDirectory(atPath: root)) ?? []).sorted() {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                directories.append(path)
            } else {
                files.append((path, readFile(path)))
            }
        }
        initialFiles = files
        initialDirectories = directories
        var start = State()
        for (i, file) in files.enumerated() { start.names[file.0] = i }
        start.nextFile = files.count
        state = Locked(start)
    }

    /// The events so far.
    package var events: [TraceEvent] { state.withLock { $0.events } }

    /// Notes that the workload is about to run commit `sequence`.
    package func attempt(_ sequence: UInt64) {
        state.withLock { $0.events.append(.attempt(sequence: sequence)) }
    }

    /// Notes that a call returned promising every commit up to `sequence` durable.
    package func acknowledge(_ sequence: UInt64) {
        state.withLock { $0.events.append(.acknowledged(sequence: sequence)) }
    }

    private func file(_ file: OpenFile) -> Int {
        state.withLock { state in
            guard let id = state.descriptors[file.descriptor] else {
                preconditionFailure(
                    "descriptor \(file.descriptor) was not opened through the recorder")
            }
            return id
        }
    }

    private func record(_ event: TraceEvent) {
        state.withLock { $0.events.append(event) }
    }

    package func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        let existed = real.kind(of: path) != .missing
        let file = try real.open(path, create: create, readOnly: readOnly)
        state.withLock { state in
            let id: Int
            if existed, let known = state.names[path] {
                id = known
            } else {
                id = state.nextFile
                state.nextFile += 1
                state.names[path] = id
                if !existed { state.events.append(.create(path: path, file: id)) }
            }
            state.descriptors[file.descriptor] = id
        }
        return file
    }

    package func close(_ file: OpenFile) throws {
        state.withLock { _ = $0.descriptors.removeValue(forKey: file.descriptor) }
        try real.close(file)
    }

    package func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws
        -> Int
    {
        let n = try real.write(file, bytes, at: offset)
        if n > 0 {
            let id = self.file(file)
            record(.write(file: id, offset: Int(offset), bytes: [UInt8](bytes.prefix(n))))
        }
        return n
    }

    package func read(
        _ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    ) throws -> Int {
        try real.read(file, into: buffer, at: offset)
    }

    package func syncData(_ file: OpenFile) throws {
        try real.syncData(file)
        record(.syncData(file: self.file(file)))
    }

    package func truncate(_ file: OpenFile, to length: Int64) throws {
        try real.truncate(file, to: length)
        record(.truncate(file: self.file(file), length: Int(length)))
    }

    /// Permissions are not part of what a power loss can change: not recorded.
    package func restrictToOwner(_ file: OpenFile) throws { try real.restrictToOwner(file) }

    package func size(_ file: OpenFile) throws -> Int64 { try real.size(file) }

    package func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        try real.map(file, length: length)
    }

    package func unmap(_ pointer: UnsafeRawPointer, length: Int) {
        real.unmap(pointer, length: length)
    }

    package func tryLock(_ file: OpenFile) throws -> Bool { try real.tryLock(file) }

    package func rename(_ from: String, to: String) throws {
        try real.rename(from, to: to)
        state.withLock { state in
            if let id = state.names.removeValue(forKey: from) { state.names[to] = id }
            state.events.append(.rename(from: from, to: to))
        }
    }

    package func remove(_ path: String) throws {
        try real.remove(path)
        state.withLock { state in
            state.names[path] = nil
            state.events.append(.remove(path: path))
        }
    }

    package func makeDirectory(_ path: String) throws {
        try real.makeDirectory(path)
        record(.makeDirectory(path: path))
    }

    package func syncDirectory(_ path: String) throws {
        try real.syncDirectory(path)
        record(.syncDirectory(path: path))
    }

    package func contents(ofDirectory path: String) throws -> [String] {
        try real.contents(ofDirectory: path)
    }

    package func kind(of path: String) -> PathKind { real.kind(of: path) }
}
