import Foundation

/// Online backups (FORMAT.md, "Backups").
extension LogStore {
    /// Copies the store, as of its last visible commit, into the directory `destination`, while
    /// the store goes on being written (by this process or, for a store opened read-only, by
    /// another one), and returns what it copied.
    ///
    /// The backup holds exactly the commits up to ``BackupReport/lastSequence``: it is an
    /// ordinary store directory (restoring is opening it), plus a manifest of its files and
    /// their checksums (``verifyBackup(at:)`` checks them). A later backup into the same
    /// directory goes on from it: it links the files already there and copies only the commits
    /// written since, unless a compaction removed them from the store (then it copies the store
    /// whole, linking the sealed segments it already has).
    ///
    /// The new backup is built beside `destination` (in `destination.incoming`) and swapped in
    /// with one atomic exchange of names, so if the process is killed or the disk fills at any
    /// moment, `destination` is the previous backup or the new one, whole; a failed backup
    /// removes what it wrote. Compaction and segment removal in the store do not disturb it: it
    /// copies the segments as the store's readers see them, held open.
    ///
    /// - Parameters:
    ///   - destination: a new or empty directory, or an earlier backup of this store.
    ///   - identity: what names the source (the object layer passes its store identifier); a
    ///     backup made with another identity is replaced, never gone on from.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` if `destination` is the store itself, or
    ///   holds files that are not a backup; ``LogStoreError/locked(path:)`` if a backup into it
    ///   is running, or it is open for writing; ``LogStoreError/closed``;
    ///   ``LogStoreError/io(operation:path:errno:)`` (`ENOSPC` when the disk is full).
    /// - Complexity: O(bytes written since the previous backup) when it goes on from it, else
    ///   O(bytes of the store); memory O(1) (the copied pages leave memory behind the copy).
    public func backup(to destination: String, identity: [UInt8] = []) throws -> BackupReport {
        let started = Date()
        guard identity.count <= BackupManifest.maxIdentityLength else {
            throw LogStoreError.invalidArgument(
                "a backup identity is at most \(BackupManifest.maxIdentityLength) bytes")
        }
        guard Self.standardized(destination) != Self.standardized(path) else {
            throw LogStoreError.invalidArgument("a store cannot be backed up into itself")
        }
        let snapshot = try backupSnapshot()
        var target = try BackupTarget(path: destination, fileSystem: options.fileSystem)
        defer { target.release() }
        var builder = BackupBuilder(snapshot: snapshot, target: target, identity: identity)
        do {
            let (manifest, incremental) = try builder.build()
            try target.install(syncing: builder.writtenPaths)
            return BackupReport(
                lastSequence: manifest.lastSequence, incremental: incremental,
                bytesCopied: builder.bytesCopied, bytesReused: builder.bytesLinked,
                files: manifest.files.count, duration: Date().timeIntervalSince(started))
        } catch {
            target.abandon()
            throw error
        }
    }

    /// Checks the backup in `directory` against its own manifest: every file it lists is there,
    /// of its size, and reads back with its checksum; no other store file is there. It does not
    /// check the log itself (``LogInspector/verify(storeAt:)`` does, and the object layer's
    /// check of a backup runs both).
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` (`ENOENT` if `directory` holds no
    ///   manifest); ``LogStoreError/corruption(path:offset:reason:)`` for a damaged manifest;
    ///   ``LogStoreError/unsupportedVersion(path:found:supported:)``;
    ///   ``LogStoreError/locked(path:)`` while a backup into it runs (or it is open for writing).
    /// - Complexity: reads every byte of the backup once.
    public static func verifyBackup(at directory: String) throws -> BackupVerification {
        try verifyBackup(at: directory, fileSystem: PosixFileSystem())
    }

    /// The directory that holds the backup at `path`: `path`, or `path.previous` while a backup
    /// into it, killed between the two renames of a swap without an atomic exchange, left it
    /// there (FORMAT.md, "Backups"). For readers; a writable open puts it back.
    package static func backupDirectory(at path: String, fileSystem fs: any FileSystem) -> String {
        BackupTarget.backupLeftAside(of: path, fileSystem: fs) ?? path
    }

    package static func verifyBackup(at directory: String, fileSystem fs: any FileSystem) throws
        -> BackupVerification
    {
        let directory = backupDirectory(at: directory, fileSystem: fs)
        // A backup into it swaps the directory: wait for none.
        var lock: OpenFile?
        if fs.kind(of: directory + "/" + StoreFiles.lockName) == .file {
            let file = try fs.open(
                directory + "/" + StoreFiles.lockName, create: false, readOnly: true)
            lock = file
            guard try fs.tryLock(file) else {
                try? fs.close(file)
                throw LogStoreError.locked(path: directory)
            }
        }
        defer { if let lock { try? fs.close(lock) } }
        let manifest = try BackupManifest.read(inDirectory: directory, fileSystem: fs)
        var result = BackupVerification(
            lastSequence: manifest.lastSequence, identity: manifest.identity,
            created: Date(timeIntervalSinceReferenceDate: manifest.created),
            files: manifest.files.count, bytes: 0, problems: [])
        for file in manifest.files {
            let path = directory + "/" + file.name
            switch try BackupFileCheck.check(path, size: file.size, crc: file.crc, fileSystem: fs) {
            case .intact: result.bytes += Int64(file.size)
            case .problem(let problem): result.problems.append(problem)
            }
        }
        let listed = Set(manifest.files.map(\.name) + [StoreFiles.lockName, BackupManifest.name])
        for name in try fs.contents(ofDirectory: directory) where !listed.contains(name) {
            result.problems.append(
                "\(directory)/\(name) is not a file of the backup (its manifest does not list it)")
        }
        return result
    }

    /// `path` without trailing slashes and `.` components, for comparing two names of a directory.
    static func standardized(_ path: String) -> String {
        let absolute =
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "/" + absolute.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }
}

/// Reads one file of a backup back and compares it with its manifest entry.
enum BackupFileCheck {
    enum Outcome: Equatable {
        case intact
        case problem(String)
    }

    static func check(_ path: String, size: UInt64, crc: UInt32, fileSystem fs: any FileSystem)
        throws -> Outcome
    {
        guard let file = try? fs.open(path, create: false, readOnly: true) else {
            return .problem("\(path) is missing")
        }
        defer { try? fs.close(file) }
        let found = try fs.size(file)
        guard UInt64(found) == size else {
            return .problem("\(path) is \(found) bytes; the backup wrote \(size)")
        }
        var buffer = [UInt8](repeating: 0, count: BackupBuilder.chunk)
        var computed: UInt32 = 0
        var offset: Int64 = 0
        while offset < found {
            let read = try buffer.withUnsafeMutableBytes { try fs.read(file, into: $0, at: offset) }
            guard read > 0 else { return .problem("\(path) ends before its size") }
            computed = buffer.withUnsafeBytes {
                Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[..<read]), extending: computed)
            }
            offset += Int64(read)
        }
        guard computed == crc else {
            return .problem(
                "\(path) does not match its checksum: its bytes changed since the backup")
        }
        return .intact
    }
}
