#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `open` assembles before the store is usable.
struct OpenedStore {
    var state: StoreState
    var lockFile: OpenFile?
    var writer: LogWriter?
    var report: RecoveryReport
}

/// Whether the segments a listing named are a state of the store, given a listing taken after
/// their files were opened (FORMAT.md, "Readers in other processes"). A directory listing is not
/// atomic: one taken while a writer's compaction renames its outputs in and removes its inputs
/// may miss both an output and an input, a set no moment had. The set is a moment's when the
/// later listing holds every segment it holds, and besides them only ordinary segments after its
/// newest (commits written since): a missed output would still be there, or its own outputs in
/// its place, and they are never ordinary.
enum ListingStability {
    static func holds(listed: [UInt64], after: [UInt64]) -> Bool {
        let before = Set(listed)
        let newest = listed.max() ?? 0
        return before.isSubset(of: after)
            && after.allSatisfy { before.contains($0) || ($0 & 0xFFFF == 0 && $0 > newest) }
    }
}

extension LogStore {
    /// Opens (or creates) the store directory, takes the writer lock and replays every segment.
    static func openStore(path: String, options: LogStoreOptions) throws -> OpenedStore {
        let fs = options.fileSystem
        let writable = !options.readOnly
        switch fs.kind(of: path) {
        case .directory:
            break
        case .missing:
            guard writable && options.createIfMissing else {
                throw LogStoreError.io(operation: "open", path: path, errno: ENOENT)
            }
            do {
                try fs.makeDirectory(path)
                try fs.syncDirectory(parentDirectory(of: path))
            } catch LogStoreError.io(operation: "mkdir", _, EEXIST)
                where fs.kind(of: path) == .directory
            {
                // Another process created it since the check above: open it as found (its
                // writer lock decides which of the two writes).
            }
        case .symlink:
            throw LogStoreError.invalidArgument(
                "\(path) is a symbolic link; open the store by its real path")
        case .file, .other:
            throw LogStoreError.invalidArgument(
                "\(path) is not a directory, so it cannot be a store")
        }

        var lockFile: OpenFile?
        if writable {
            let file = try fs.open(path + "/" + StoreFiles.lockName, create: true, readOnly: false)
            do {
                // Another process's child may hold a copy of a just-closed lock descriptor
                // between its fork and exec: give such a lock ~100 ms to go before refusing.
                var attempts = 0
                while try !fs.tryLock(file) {
                    attempts += 1
                    guard attempts < 20 else { throw LogStoreError.locked(path: path) }
                    usleep(5_000)
                }
            } catch {
                try? fs.close(file)
                throw error
            }
            lockFile = file
        }
        do {
            // The store's own open leaves the key directory file's tables to be checked later
            // (``PendingKeyDirectoryCheck``); salvage, which may skip what it finds, checks now.
            var opened = try replayListing(
                path: path, options: options, checkingTablesLater: !options.salvage)
            opened.lockFile = lockFile
            return opened
        } catch {
            if let lockFile { try? fs.close(lockFile) }
            throw error
        }
    }

    /// Replays the store. A read-only open, which holds no lock, replays a ``PinnedListing``: it
    /// lists the directory, opens every file listed and lists again, and does so again while a
    /// writer's compaction moves files between the two listings, waiting a little longer each
    /// time (``listingAttempts`` times, then it reports `EAGAIN`). Only the opens lie between
    /// the listings, so however long the replay takes, a writer that compacts often cannot make
    /// it start over.
    static func replayListing(
        path: String, options: LogStoreOptions, checkingTablesLater: Bool = false
    ) throws -> OpenedStore {
        guard options.readOnly else {
            return try replay(
                path: path, options: options, pinned: nil,
                checkingTablesLater: checkingTablesLater)
        }
        var attempt = 0
        while true {
            if let pinned = try PinnedListing(storeAt: path, fileSystem: options.fileSystem) {
                return try replay(
                    path: path, options: options, pinned: pinned,
                    checkingTablesLater: checkingTablesLater)
            }
            attempt += 1
            guard attempt < listingAttempts else {
                throw LogStoreError.io(operation: "open", path: path, errno: EAGAIN)
            }
            usleep(UInt32(min(attempt, 20)) * 1_000)
        }
    }

    /// How many times a read-only open lists the directory before it gives up on a writer that
    /// keeps moving files between two listings taken a few `open`s apart: about three quarters
    /// of a second of waiting in all.
    static let listingAttempts = 50

    private static func replay(
        path: String, options: LogStoreOptions, pinned: PinnedListing?, checkingTablesLater: Bool
    ) throws -> OpenedStore {
        var replay = Replay(path: path, options: options)
        replay.checkingTablesLater = checkingTablesLater
        replay.pinned = pinned
        return try replay.run()
    }

    static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
