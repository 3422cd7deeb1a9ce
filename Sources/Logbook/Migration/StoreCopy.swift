import Foundation
import LogStore

/// A custom migration's workspace: a copy of the store's files in a directory beside it
/// (`<store>.migrating`), or in memory for a dry run, where the stages run as ordinary
/// containers, and the one commit that makes the store what the copy became. Until that commit
/// the store holds not a byte of the migration; after it, all of it.
///
/// Memory: a copy on disk and opened as any store (its key directory, as an open's); the
/// commit is streamed (``LogStore/beginCommit(durability:)``) a bounded batch at a time. What
/// the stages' own code fetches and changes is theirs to bound. Disk: the copy needs as much
/// space as the store, until the migration ends; a copy a crash left behind is removed by the
/// next migration before it copies.
struct StoreCopy {
    let path: String
    let options: LogStoreOptions
    private let fileSystem: any FileSystem

    /// Operations the commit that applies the copy gathers before writing them to the log.
    static let batchOperations = 8_192
    /// Bytes copied at a time.
    static let copyChunk = 1 << 20

    /// Copies the files of the store at `path`, read through `source` (the open store's file
    /// system), into `<path>.migrating` on `source`, replacing what a crash may have left there,
    /// or, `inMemory`, into this process's memory (a dry run, which writes nothing anywhere).
    /// - Throws: ``LogbookError/store(_:)`` if a file cannot be read or written.
    init(
        of path: String, from source: any FileSystem, options: LogStoreOptions,
        inMemory: Bool = false
    ) throws {
        let copyPath = path + ".migrating"
        let fileSystem: any FileSystem = inMemory ? MemoryFileSystem() : source
        self.fileSystem = fileSystem
        try wrapStoreErrors {
            try Self.remove(copyPath, fileSystem)
            try fileSystem.makeDirectories(copyPath)
            // A copy that fails (a full disk) leaves nothing behind.
            do { try Self.copyFiles(of: path, from: source, to: copyPath, on: fileSystem) } catch {
                try? Self.remove(copyPath, fileSystem)
                throw error
            }
        }
        var options = options
        options.fileSystem = fileSystem
        options.durability = .buffered
        options.readOnly = false
        options.autoCompactionDeadFraction = nil
        self.path = copyPath
        self.options = options
    }

    /// Copies the files of the directory `path` on `source` into `copyPath` on `fileSystem`.
    private static func copyFiles(
        of path: String, from source: any FileSystem, to copyPath: String,
        on fileSystem: any FileSystem
    ) throws {
        var chunk = [UInt8](repeating: 0, count: Self.copyChunk)
        for name in try source.contents(ofDirectory: path)
        where source.kind(of: path + "/" + name) == .file {
            let from = try source.open(path + "/" + name, create: false, readOnly: true)
            defer { try? source.close(from) }
            let to = try fileSystem.open(copyPath + "/" + name, create: true, readOnly: false)
            defer { try? fileSystem.close(to) }
            try fileSystem.restrictToOwner(to)
            let size = try source.size(from)
            var done: Int64 = 0
            while done < size {
                let count = Int(min(Int64(Self.copyChunk), size - done))
                let read = try chunk.withUnsafeMutableBytes {
                    try source.read(
                        from, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<count]),
                        at: done)
                }
                guard read == count else {
                    throw LogStoreError.io(
                        operation: "read", path: path + "/" + name, errno: EIO)
                }
                var written = 0
                while written < count {
                    // Short writes are allowed by the seam's contract: go on after them.
                    written += try chunk.withUnsafeBytes {
                        try fileSystem.write(
                            to, UnsafeRawBufferPointer(rebasing: $0[written..<count]),
                            at: done + Int64(written))
                    }
                }
                done += Int64(count)
            }
        }
    }

    /// The copy's location, for the stages' containers.
    var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Makes `store` hold what the copy holds, in one streamed commit: every key of every
    /// keyspace the copy changed, added or removed (save records aside: the copy's saves are
    /// not the store's, so the store's recorded history restarts after this commit).
    ///
    /// With `copied` (the store's ``LogStore/endOfLog()`` and ``LogStore/lastSequence`` when it
    /// was copied, and the store unchanged since), the changed keys are those whose live record
    /// in the copy lies after `end`: the records before it are the store's own, and are not
    /// read, nor are the store's keys looked up. A key can leave the copy only by a delete, so
    /// the store is walked for removed keys only in the keyspaces where one of the copy's
    /// commits after `sequence` deleted a key (read back from the copy's log, front to back).
    /// - Returns: the commit's sequence number.
    /// - Throws: ``LogbookError/store(_:)``.
    func apply(to store: LogStore, copiedAt copied: (end: LogPosition, sequence: UInt64)? = nil)
        throws -> UInt64
    {
        try wrapStoreErrors {
            let copy = try LogStore(path: path, options: options)
            defer { try? copy.close() }
            let commit = try store.beginCommit()
            var batch = WriteBatch()
            func flush(_ batch: inout WriteBatch) throws {
                guard !batch.isEmpty else { return }
                try commit.append(batch)
                batch = WriteBatch()
            }
            // Without `end`: every key of the copy compared with the store's.
            func copyChanges(in keyspace: String) throws {
                try copy.forEach(in: keyspace) { key, value in
                    let bytes = [UInt8](key)
                    if try store.get(bytes, in: keyspace).map({ !$0.elementsEqual(value) }) ?? true
                    {
                        batch.put([UInt8](value), for: bytes, in: keyspace)
                        if batch.count >= Self.batchOperations { try flush(&batch) }
                    }
                }
            }
            let copied = try copied.map {
                ($0.end, try Self.deletingKeyspaces(of: copy, after: $0.sequence))
            }
            let copyKeyspaces = Set(try copy.keyspaces())
            let keyspaces = copyKeyspaces.union(try store.keyspaces())
            for keyspace in keyspaces.sorted() where keyspace != Keyspaces.history {
                if let (end, deleting) = copied {
                    try copy.forEach(in: keyspace, after: end) { key, value in
                        batch.put(value, for: key, in: keyspace)
                        if batch.count >= Self.batchOperations { try flush(&batch) }
                    }
                    // A key leaves the copy only by a delete (or with its keyspace).
                    guard deleting?.contains(keyspace) ?? true || !copyKeyspaces.contains(keyspace)
                    else { continue }
                } else {
                    try copyChanges(in: keyspace)
                }
                try store.forEach(in: keyspace) { key, _ in
                    let bytes = [UInt8](key)
                    if try !copy.contains(bytes, in: keyspace) {
                        batch.delete(bytes, in: keyspace)
                        if batch.count >= Self.batchOperations { try flush(&batch) }
                    }
                }
            }
            batch.put(
                Keyspaces.numberValue(commit.sequence), for: Keyspaces.historySinceKey,
                in: Keyspaces.meta)
            try flush(&batch)
            return try commit.finish()
        }
    }

    /// The keyspaces in which a commit of `copy` after `sequence` deleted a key; `nil` (any may
    /// have lost keys) when its log no longer holds every commit since.
    private static func deletingKeyspaces(of copy: LogStore, after sequence: UInt64) throws
        -> Set<String>?
    {
        var deleting: Set<String> = []
        do {
            let reader = try copy.commits(after: sequence)
            while let commit = try reader.next() {
                commit.forEachRecord { record in
                    if record.value == nil { deleting.insert(record.keyspace) }
                }
            }
        } catch LogStoreError.historyUnavailable {
            return nil
        }
        return deleting
    }

    /// Removes the copy's files and directory.
    func remove() { try? Self.remove(path, fileSystem) }

    private static func remove(_ path: String, _ fileSystem: any FileSystem) throws {
        guard fileSystem.kind(of: path) == .directory else { return }
        for name in try fileSystem.contents(ofDirectory: path) {
            try fileSystem.remove(path + "/" + name)
        }
        try fileSystem.removeDirectory(path)
    }
}
