#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file system held in this process's memory, for stores that live only as long as the
/// process (in-memory containers: tests and previews). The store runs on it exactly as on
/// disk — same formats, same recovery, same compaction — only nothing reaches a disk and
/// syncs cost nothing.
///
/// Each file is an anonymous mapping reserved large enough to grow in place, so a pointer
/// returned by ``map(_:length:)`` stays valid while the file grows, as a file mapping does.
/// Paths are plain keys (`/a/b`); a directory must be made before files go in it.
/// Thread-safe: one lock guards the tree; a file's bytes are written by the store's single
/// writer while readers only read below the published size.
package final class MemoryFileSystem: FileSystem, @unchecked Sendable {  // state behind `lock`
    /// Address space reserved per file: the store seals segments long before this.
    static let reservation = 1 << 34

    private final class Node: @unchecked Sendable {  // size and locked change under `lock`
        let isDirectory: Bool
        let base: UnsafeMutableRawPointer?
        var size = 0
        var locked = false

        init(directory: Bool) {
            isDirectory = directory
            if directory {
                base = nil
            } else {
                let pointer = mmap(
                    nil, MemoryFileSystem.reservation, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                base = pointer == MAP_FAILED ? nil : pointer
            }
        }

        deinit {
            if let base { munmap(base, MemoryFileSystem.reservation) }
        }
    }

    private let lock = Locked<[String: Node]>(["/": Node(directory: true)])
    /// Open files by descriptor (descriptors are never reused).
    private let open = Locked<(next: Int32, files: [Int32: Node])>((3, [:]))

    package init() {}

    private func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private func node(_ file: OpenFile) throws -> Node {
        guard let node = open.withLock({ $0.files[file.descriptor] }) else {
            throw LogStoreError.io(operation: "use", path: file.path, errno: EBADF)
        }
        return node
    }

    package func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        let node = try lock.withLock { tree throws(LogStoreError) -> Node in
            if let node = tree[path] {
                guard !node.isDirectory else {
                    throw .io(operation: "open", path: path, errno: EISDIR)
                }
                return node
            }
            guard create else { throw .io(operation: "open", path: path, errno: ENOENT) }
            guard tree[parent(path)]?.isDirectory == true else {
                throw .io(operation: "open", path: path, errno: ENOENT)
            }
            let made = Node(directory: false)
            guard made.base != nil else { throw .io(operation: "open", path: path, errno: ENOMEM) }
            tree[path] = made
            return made
        }
        let descriptor = open.withLock { state in
            let d = state.next
            state.next += 1
            state.files[d] = node
            return d
        }
        return OpenFile(descriptor: descriptor, path: path)
    }

    package func close(_ file: OpenFile) throws {
        guard let node = open.withLock({ $0.files.removeValue(forKey: file.descriptor) }) else {
            throw LogStoreError.io(operation: "close", path: file.path, errno: EBADF)
        }
        // An advisory lock goes with the last descriptor, as flock's does with its file.
        if open.withLock({ !$0.files.values.contains { $0 === node } }) {
            lock.withLock { _ in node.locked = false }
        }
    }

    package func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws
        -> Int
    {
        let node = try node(file)
        let end = Int(offset) + bytes.count
        guard offset >= 0, end <= Self.reservation, let base = node.base else {
            throw LogStoreError.io(operation: "write", path: file.path, errno: EFBIG)
        }
        if let source = bytes.baseAddress {
            (base + Int(offset)).copyMemory(from: source, byteCount: bytes.count)
        }
        lock.withLock { _ in node.size = max(node.size, end) }
        return bytes.count
    }

    package func read(
        _ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    ) throws -> Int {
        let node = try node(file)
        let size = lock.withLock { _ in node.size }
        let count = max(0, min(buffer.count, size - Int(offset)))
        if count > 0, let base = node.base, let target = buffer.baseAddress {
            target.copyMemory(from: base + Int(offset), byteCount: count)
        }
        return count
    }

    package func syncData(_ file: OpenFile) throws { _ = try node(file) }

    package func truncate(_ file: OpenFile, to length: Int64) throws {
        let node = try node(file)
        guard length >= 0, Int(length) <= Self.reservation, let base = node.base else {
            throw LogStoreError.io(operation: "truncate", path: file.path, errno: EINVAL)
        }
        lock.withLock { _ in
            if Int(length) < node.size {
                // Bytes past the end read as zeros again if the file grows back.
                (base + Int(length)).initializeMemory(
                    as: UInt8.self, repeating: 0, count: node.size - Int(length))
            }
            node.size = Int(length)
        }
    }

    /// Files in memory have no mode: only checks the file is open.
    package func restrictToOwner(_ file: OpenFile) throws { _ = try node(file) }

    package func size(_ file: OpenFile) throws -> Int64 {
        let node = try node(file)
        return Int64(lock.withLock { _ in node.size })
    }

    package func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        guard let base = try node(file).base, length <= Self.reservation else {
            throw LogStoreError.io(operation: "mmap", path: file.path, errno: ENOMEM)
        }
        return UnsafeRawPointer(base)
    }

    package func unmap(_ pointer: UnsafeRawPointer, length: Int) {}

    package func releasePages(_ pointer: UnsafeRawPointer, length: Int) {}

    package func tryLock(_ file: OpenFile) throws -> Bool {
        let node = try node(file)
        return lock.withLock { _ in
            if node.locked { return false }
            node.locked = true
            return true
        }
    }

    package func rename(_ from: String, to: String) throws {
        try lock.withLock { tree throws(LogStoreError) in
            guard let node = tree.removeValue(forKey: from) else {
                throw .io(operation: "rename", path: from, errno: ENOENT)
            }
            if let replaced = tree[to], replaced.isDirectory != node.isDirectory {
                tree[from] = node
                throw .io(
                    operation: "rename", path: from, errno: replaced.isDirectory ? EISDIR : ENOTDIR)
            }
            tree[to] = node
            // A directory takes what is in it along.
            if node.isDirectory { Self.move(children: from, to: to, in: &tree) }
        }
    }

    package func link(_ from: String, to: String) throws {
        try lock.withLock { tree throws(LogStoreError) in
            guard let node = tree[from], !node.isDirectory else {
                throw .io(operation: "link", path: from, errno: tree[from] == nil ? ENOENT : EPERM)
            }
            guard tree[to] == nil else { throw .io(operation: "link", path: to, errno: EEXIST) }
            guard tree[parent(to)]?.isDirectory == true else {
                throw .io(operation: "link", path: to, errno: ENOENT)
            }
            tree[to] = node
        }
    }

    package func exchange(_ first: String, _ second: String) throws {
        try lock.withLock { tree throws(LogStoreError) in
            guard let a = tree[first], let b = tree[second] else {
                throw .io(operation: "exchange", path: first, errno: ENOENT)
            }
            let parked = "\u{0}exchange"
            Self.move(children: first, to: parked, in: &tree)
            Self.move(children: second, to: first, in: &tree)
            Self.move(children: parked, to: second, in: &tree)
            tree[first] = b
            tree[second] = a
        }
    }

    package func removeDirectory(_ path: String) throws {
        guard kind(of: path) == .directory else {
            throw LogStoreError.io(operation: "rmdir", path: path, errno: ENOTDIR)
        }
        try remove(path)
    }

    /// Re-keys everything under the directory `from` to be under `to`.
    private static func move(children from: String, to: String, in tree: inout [String: Node]) {
        let prefix = from + "/"
        for key in Array(tree.keys) where key.hasPrefix(prefix) {
            tree[to + "/" + key.dropFirst(prefix.count)] = tree.removeValue(forKey: key)
        }
    }

    package func remove(_ path: String) throws {
        try lock.withLock { tree throws(LogStoreError) in
            guard let node = tree[path] else {
                throw .io(operation: "remove", path: path, errno: ENOENT)
            }
            if node.isDirectory && tree.keys.contains(where: { parent($0) == path && $0 != path }) {
                throw .io(operation: "remove", path: path, errno: ENOTEMPTY)
            }
            tree[path] = nil
        }
    }

    package func makeDirectory(_ path: String) throws {
        try lock.withLock { tree throws(LogStoreError) in
            guard tree[path] == nil else {
                throw .io(operation: "mkdir", path: path, errno: EEXIST)
            }
            guard tree[parent(path)]?.isDirectory == true else {
                throw .io(operation: "mkdir", path: path, errno: ENOENT)
            }
            tree[path] = Node(directory: true)
        }
    }

    package func syncDirectory(_ path: String) throws {
        guard kind(of: path) == .directory else {
            throw LogStoreError.io(operation: "fsync", path: path, errno: ENOENT)
        }
    }

    package func contents(ofDirectory path: String) throws -> [String] {
        try lock.withLock { tree throws(LogStoreError) -> [String] in
            guard tree[path]?.isDirectory == true else {
                throw .io(operation: "opendir", path: path, errno: ENOENT)
            }
            return tree.keys.filter { $0 != path && parent($0) == path }.map {
                String($0.dropFirst(path == "/" ? 1 : path.count + 1))
            }.sorted()
        }
    }

    package func kind(of path: String) -> PathKind {
        lock.withLock { tree in
            guard let node = tree[path] else { return .missing }
            return node.isDirectory ? .directory : .file
        }
    }

    /// Makes `path` and every missing directory above it.
    package func makeDirectories(_ path: String) throws {
        var built = ""
        for component in path.split(separator: "/") {
            built += "/" + component
            if kind(of: built) == .missing { try makeDirectory(built) }
        }
    }
}
