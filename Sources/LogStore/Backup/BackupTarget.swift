#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The directories of a backup (FORMAT.md, "Backups"): the backup itself, `DST`, an ordinary
/// store directory with a manifest; the next one, built whole in `DST.incoming` beside it and
/// then swapped with it in one atomic exchange of names. So after a crash at any moment `DST` is
/// the previous backup or the new one, never a mix; what is left at `DST.incoming` (the new one
/// unfinished, or the old one not yet removed) is removed by the next backup.
///
/// While it lives it holds the lock of `DST/LOCK`, the writer lock of a store: a second backup
/// into `DST`, or a process that opened the backup for writing (a restore), is refused. Every
/// generation's `LOCK` is the same file (a hard link), so the lock holds across the exchange.
/// Not thread-safe.
struct BackupTarget {
    /// `DST`.
    let path: String
    /// `DST.incoming`: the next backup while it is built, the previous one after the exchange.
    let staging: String
    /// `DST.previous`: where the previous backup waits, on a system without an atomic exchange,
    /// between the two renames that replace it.
    let aside: String
    let fs: any FileSystem
    /// The previous backup's manifest, when `DST` is a backup whose manifest reads.
    private(set) var previous: BackupManifest?
    /// Whether `DST` exists (else the new backup is renamed into place, not exchanged).
    private(set) var exists = false
    /// Whether the new backup is in place (from then on nothing of the previous one is removed
    /// before the swap is durable).
    private(set) var installed = false
    private var locks: [OpenFile] = []

    static let stagingSuffix = ".incoming"
    /// At most this many files of a removed backup are held open to be freed later (the rest
    /// are freed as their names go): a bound on the descriptors a backup adds.
    static let filesFreedLater = 128
    static let asideSuffix = ".previous"

    /// Takes `path` for a backup: checks it is a backup (or empty, or missing), locks it, reads
    /// its manifest, and makes an empty `DST.incoming`.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` if `path` holds something that is not a
    ///   backup; ``LogStoreError/locked(path:)`` if a backup into it is running or it is open
    ///   for writing; ``LogStoreError/io(operation:path:errno:)``.
    init(path: String, fileSystem fs: any FileSystem) throws {
        let trimmed = Self.trimmed(path)
        self.path = trimmed
        staging = trimmed + Self.stagingSuffix
        aside = trimmed + Self.asideSuffix
        self.fs = fs
        do {
            try settle()
        } catch {
            release()
            throw error
        }
    }

    private mutating func settle() throws {
        // An interrupted swap without exchange: the previous backup waits aside.
        try Self.putBackBackupLeftAside(at: path, fileSystem: fs)
        switch fs.kind(of: path) {
        case .missing:
            try fs.makeDirectories(LogStore.parentDirectory(of: path))
        case .directory:
            exists = true
            let names = try fs.contents(ofDirectory: path)
            if names.contains(BackupManifest.name) {
                do {
                    previous = try BackupManifest.read(inDirectory: path, fileSystem: fs)
                } catch LogStoreError.corruption, LogStoreError.unsupportedVersion {
                    // A backup all the same: replaced whole.
                }
            } else if names.contains(where: { $0 != StoreFiles.lockName }) {
                throw LogStoreError.invalidArgument(
                    "\(path) holds files and is not a backup (it has no \(BackupManifest.name)); "
                        + "back up into a new or empty directory, or into an earlier backup")
            }
            locks.append(try lock(path + "/" + StoreFiles.lockName))
        case .symlink:
            throw LogStoreError.invalidArgument(
                "\(path) is a symbolic link; name the backup's directory by its real path")
        case .file, .other:
            throw LogStoreError.invalidArgument("\(path) is not a directory")
        }
        if fs.kind(of: staging) == .directory && !exists {
            // Left by an interrupted first backup, unless another is building it now.
            let held = try lock(staging + "/" + StoreFiles.lockName)
            try? fs.close(held)
        }
        if fs.kind(of: staging) != .missing { try Self.removeDirectory(staging, fileSystem: fs) }
        try fs.makeDirectory(staging)
        let stagingLock = staging + "/" + StoreFiles.lockName
        if exists, (try? fs.link(path + "/" + StoreFiles.lockName, to: stagingLock)) != nil {
            return  // the same lock file, already held
        }
        locks.append(try lock(stagingLock))
    }

    /// Opens (creating) the lock file at `path` and takes its lock.
    private func lock(_ path: String) throws -> OpenFile {
        let file = try fs.open(path, create: true, readOnly: false)
        do {
            guard try fs.tryLock(file) else { throw LogStoreError.locked(path: self.path) }
        } catch {
            try? fs.close(file)
            throw error
        }
        return file
    }

    /// Makes the files at `written` (in `DST.incoming`) and the directory durable, then puts
    /// the backup built there in place of `DST`, atomically and durably, and removes the
    /// previous one.
    ///
    /// Two waits for the disk, each needed. First the data of every written file and the names
    /// of `DST.incoming` (linked or written): all must be durable before they become `DST`'s,
    /// in no order among themselves, so their syncs run at once (``ConcurrentSyncs``), and
    /// none of them returns before the swap is made. Then the parent after the swap (the swap
    /// is durable when this returns, and before the previous backup's files are removed, which
    /// must never reach the disk ahead of the swap, or a crash could leave `DST` the previous
    /// backup with files missing). The removal itself is not synced: if a crash loses it,
    /// `DST.incoming` comes back with what was left of the previous backup, which the next
    /// backup removes (``settle()``), and `DST` is already the new one.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``; `DST` is then the previous backup
    ///   or the new one.
    mutating func install(syncing written: [String]) throws {
        let fs = self.fs
        let staging = self.staging
        let syncFile = { @Sendable (path: String) throws -> Void in
            let file = try fs.open(path, create: false, readOnly: true)
            defer { try? fs.close(file) }
            try fs.syncData(file)
        }
        try ConcurrentSyncs.run(
            written.map { path in { @Sendable in try syncFile(path) } }
                + [{ @Sendable in try fs.syncDirectory(staging) }])
        let parent = LogStore.parentDirectory(of: path)
        if !exists {
            try fs.rename(staging, to: path)
            installed = true
            try fs.syncDirectory(parent)
            return
        }
        do {
            try fs.exchange(staging, path)
            installed = true
        } catch LogStoreError.io(_, _, let code) where code == ENOTSUP || code == EINVAL {
            // No atomic exchange here (an older kernel, a file system without it): two
            // renames, the previous backup aside between them (``settle()`` puts it back).
            try fs.rename(path, to: aside)
            do {
                try fs.rename(staging, to: path)
            } catch {
                // The previous backup back in place at once (else the next open or backup
                // puts it back).
                try? fs.rename(aside, to: path)
                throw error
            }
            installed = true
            try fs.syncDirectory(parent)
            try fs.rename(aside, to: staging)
        }
        try fs.syncDirectory(parent)
        // The previous backup, now at `DST.incoming` (its files the new one shares are linked).
        try? Self.removeDirectory(staging, fileSystem: fs, freeingLater: true)
    }

    /// Removes what a failed backup left in `DST.incoming` (best effort); once the new backup
    /// is in place, that is the previous one, kept until the next backup (the swap may not be
    /// durable yet).
    func abandon() {
        guard !installed else { return }
        try? Self.removeDirectory(staging, fileSystem: fs)
    }

    /// Releases the locks.
    mutating func release() {
        for file in locks { try? fs.close(file) }
        locks.removeAll()
    }

    /// Removes the files of the directory `path`, then the directory.
    ///
    /// With `freeingLater`, each file is opened before its name is removed and closed on a
    /// thread of its own once all are gone: a file whose last name this removes (a superseded
    /// backup's manifest, its segments the new one does not share) keeps its blocks until that
    /// close, so freeing them, a device discard on a file system mounted with `discard`
    /// (milliseconds when the disk is busy), happens after the backup has returned. The names
    /// are gone when this returns either way; only the blocks' release waits, and a crash
    /// before it loses nothing a backup needs (the blocks of an unnamed file are reclaimed by
    /// the journal's orphan list at mount, or by a file system check).
    static func removeDirectory(
        _ path: String, fileSystem fs: any FileSystem, freeingLater: Bool = false
    ) throws {
        var held: [OpenFile] = []
        defer { DeferredClose.close(held, fileSystem: fs) }
        for name in try fs.contents(ofDirectory: path) {
            let file = path + "/" + name
            if freeingLater, held.count < Self.filesFreedLater,
                let open = try? fs.open(file, create: false, readOnly: true)
            {
                held.append(open)
            }
            try fs.remove(file)
        }
        try fs.removeDirectory(path)
    }
}

extension BackupManifest {
    /// Reads the manifest of the backup in `directory`.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` (`ENOENT` without one);
    ///   ``LogStoreError/corruption(path:offset:reason:)``;
    ///   ``LogStoreError/unsupportedVersion(path:found:supported:)``.
    static func read(inDirectory directory: String, fileSystem fs: any FileSystem) throws
        -> BackupManifest
    {
        let path = directory + "/" + name
        let file = try fs.open(path, create: false, readOnly: true)
        defer { try? fs.close(file) }
        let size = try fs.size(file)
        // A file entry takes at least 15 bytes, a manifest a few per segment: 64 MiB is far
        // past any real one.
        guard size <= 64 << 20 else {
            throw LogStoreError.corruption(
                path: path, offset: 0, reason: "a manifest of \(size) bytes is past any real one")
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = try bytes.withUnsafeMutableBytes { try fs.read(file, into: $0, at: 0) }
        guard read == bytes.count else {
            throw LogStoreError.io(operation: "read", path: path, errno: EIO)
        }
        return try bytes.withUnsafeBytes { try decode($0, path: path) }
    }
}

extension BackupTarget {
    /// Where the backup at `path` is after a backup into it was killed between the two renames
    /// of a swap without an atomic exchange (FORMAT.md, "Backups"): `DST.previous`, when `path`
    /// is missing and that directory holds a backup manifest; `nil` otherwise.
    static func backupLeftAside(of path: String, fileSystem fs: any FileSystem) -> String? {
        let path = trimmed(path)
        let aside = path + asideSuffix
        guard fs.kind(of: path) == .missing, fs.kind(of: aside) == .directory,
            fs.kind(of: aside + "/" + BackupManifest.name) == .file
        else { return nil }
        return aside
    }

    /// Puts the backup ``backupLeftAside(of:fileSystem:)`` finds back at `path`, durably.
    /// - Throws: ``LogStoreError/locked(path:)`` while a backup into `path` runs (it holds the
    ///   lock of the backup aside, between its renames); ``LogStoreError/io(operation:path:errno:)``.
    static func putBackBackupLeftAside(at path: String, fileSystem fs: any FileSystem) throws {
        let path = trimmed(path)
        guard let aside = backupLeftAside(of: path, fileSystem: fs) else { return }
        var lock: OpenFile?
        if fs.kind(of: aside + "/" + StoreFiles.lockName) == .file {
            let file = try fs.open(aside + "/" + StoreFiles.lockName, create: false, readOnly: true)
            lock = file
            guard try fs.tryLock(file) else {
                try? fs.close(file)
                throw LogStoreError.locked(path: path)
            }
        }
        defer { if let lock { try? fs.close(lock) } }
        do {
            try fs.rename(aside, to: path)
        } catch  where fs.kind(of: path) == .directory && fs.kind(of: aside) == .missing {
            // Another process put it back since the check above.
        }
        try fs.syncDirectory(LogStore.parentDirectory(of: path))
    }

    /// `path` without trailing slashes.
    static func trimmed(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
