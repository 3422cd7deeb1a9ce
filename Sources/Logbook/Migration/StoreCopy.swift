import LogStore

/// A custom migration's workspace: a copy of the store in this process's memory, where the
/// stages run as ordinary containers, and the one commit that makes the store what the copy
/// became. Until that commit the store holds not a byte of the migration; after it, all of it.
struct StoreCopy {
    let path: String
    let options: LogStoreOptions

    /// Copies the files of the store at `path`, read through `source` (the open store's file
    /// system), into memory.
    /// - Throws: ``LogbookError/store(_:)`` if a file cannot be read.
    init(of path: String, from source: any FileSystem, options: LogStoreOptions) throws {
        let memory = MemoryFileSystem()
        try wrapStoreErrors {
            try memory.makeDirectories(path)
            for name in try source.contents(ofDirectory: path)
            where source.kind(of: path + "/" + name) == .file {
                let from = try source.open(path + "/" + name, create: false, readOnly: true)
                defer { try? source.close(from) }
                let size = Int(try source.size(from))
                var bytes = [UInt8](repeating: 0, count: size)
                if size > 0 {
                    _ = try bytes.withUnsafeMutableBytes { try source.read(from, into: $0, at: 0) }
                }
                let to = try memory.open(path + "/" + name, create: true, readOnly: false)
                defer { try? memory.close(to) }
                try bytes.withUnsafeBytes { buffer in
                    var done = 0
                    while done < buffer.count {
                        // Memory writes are never short; the loop keeps to the seam's contract.
                        done += try memory.write(
                            to, UnsafeRawBufferPointer(rebasing: buffer[done...]),
                            at: Int64(done))
                    }
                }
            }
        }
        var options = options
        options.fileSystem = memory
        options.durability = .buffered
        options.readOnly = false
        options.autoCompactionDeadFraction = nil
        self.path = path
        self.options = options
    }

    /// Makes `store` hold what the copy holds, in one commit: every key of every keyspace the
    /// copy changed, added or removed (save records aside: the copy's saves are not the store's,
    /// so the store's recorded history restarts after this commit).
    /// - Returns: the commit's sequence number.
    /// - Throws: ``LogbookError/store(_:)``.
    func apply(to store: LogStore) throws -> UInt64 {
        try wrapStoreErrors {
            let copy = try LogStore(path: path, options: options)
            defer { try? copy.close() }
            var batch = WriteBatch()
            let keyspaces = Set(try copy.keyspaces()).union(try store.keyspaces())
            for keyspace in keyspaces.sorted() where keyspace != Keyspaces.history {
                try copy.forEach(in: keyspace) { key, value in
                    let bytes = [UInt8](key)
                    if try store.get(bytes, in: keyspace).map({ !$0.elementsEqual(value) }) ?? true
                    {
                        batch.put([UInt8](value), for: bytes, in: keyspace)
                    }
                }
                try store.forEach(in: keyspace) { key, _ in
                    let bytes = [UInt8](key)
                    if try !copy.contains(bytes, in: keyspace) { batch.delete(bytes, in: keyspace) }
                }
            }
            batch.put(
                Keyspaces.objectKey(store.lastSequence + 1), for: Keyspaces.historySinceKey,
                in: Keyspaces.meta)
            return try store.commit(batch)
        }
    }
}
