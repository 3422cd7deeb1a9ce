import Foundation
import LogStore

/// What ``ModelContainer/backup(to:)`` made.
public struct ContainerBackup: Sendable, Equatable {
    /// The backup holds exactly the saves up to this token, none after: history read from the
    /// source after it starts with the first save the backup does not hold. `nil` for a store
    /// that records no history (opened read-only, never written by a Logbook that keeps it).
    public var token: HistoryToken?
    /// What the store layer copied.
    public var report: BackupReport
}

/// What ``ModelContainer/verifyBackup(at:)`` found.
public struct BackupCheck: Sendable {
    /// The token the backup was made at, from its manifest (`nil` for a store without history).
    public var token: HistoryToken?
    /// Its files against its manifest, and its log and identity against its token.
    public var files: BackupVerification
    /// The check of the backup as a store: log, records, references.
    public var store: StoreCheckReport

    /// Whether the backup is whole, as it was made, and holds the state at ``token``. Stricter
    /// than `logbook verify`: a backup is written whole, so a torn tail, an unusable hint or a
    /// leftover file in it counts too.
    public var isIntact: Bool { files.isIntact && !store.isDamaged && store.log.problems.isEmpty }
}

/// Online backups of a container's store (FORMAT.md, "Backups").
extension ModelContainer {
    /// Copies the store as of its last save into the directory `destination`, while saves go
    /// on (in this process, or in another one when this container is read-only: then the copy
    /// holds what this container shows).
    ///
    /// The copy is a store: restoring is opening it with ``ModelContainer``. A later backup into
    /// the same directory copies only what changed since. It is built beside `destination` and
    /// swapped in atomically, so if the process is killed or the disk fills, `destination`
    /// stays the previous backup, whole.
    ///
    /// ```swift
    /// let made = try container.backup(to: URL(fileURLWithPath: "/backups/people"))
    /// print("backed up to", made.token?.description ?? "-")
    /// ```
    /// - Throws: ``LogbookError/store(_:)`` wrapping `LogStoreError.invalidArgument` (the
    ///   destination holds files that are not a backup, or is the store itself),
    ///   `LogStoreError.locked` (another backup into it is running, or it is open),
    ///   `LogStoreError.io` (`ENOSPC` when the disk is full), or
    ///   `LogStoreError.closed`.
    /// - Complexity: O(bytes written since the previous backup into `destination`), or O(bytes
    ///   of the store) for the first one or after a compaction.
    public func backup(to destination: URL) throws -> ContainerBackup {
        try Self.backup(core.store, identifier: core.storeIdentifier, to: destination.path)
    }

    /// ``backup(to:)`` of `store`, opened directly (as the `logbook` tool does), whose history
    /// identifier is `identifier`.
    package static func backup(_ store: LogStore, identifier: UUID?, to destination: String)
        throws -> ContainerBackup
    {
        let identity = identifier.map(Keyspaces.storeIdentifierValue) ?? []
        let report = try wrapStoreErrors { try store.backup(to: destination, identity: identity) }
        return ContainerBackup(
            token: identifier.map {
                HistoryToken(storeIdentifier: $0, sequence: report.lastSequence)
            },
            report: report)
    }

    /// Checks the backup at `directory` against its own token: every file as the backup wrote
    /// it (its manifest's sizes and checksums), the log ending at the token's save and the
    /// store's identity that of the token, and the whole store as `logbook verify` checks one.
    /// - Throws: ``LogbookError/store(_:)``: `LogStoreError.io`
    ///   (`ENOENT` when `directory` holds no backup), `LogStoreError.corruption`
    ///   for a damaged manifest, `LogStoreError.locked` while a backup into it runs.
    /// - Complexity: reads every byte of the backup twice.
    public static func verifyBackup(at directory: URL) throws -> BackupCheck {
        let path = LogStore.backupDirectory(at: directory.path, fileSystem: PosixFileSystem())
        var files = try wrapStoreErrors { try LogStore.verifyBackup(at: path) }
        let token =
            Keyspaces.storeIdentifier(ofValue: files.identity).map {
                HistoryToken(storeIdentifier: $0, sequence: files.lastSequence)
            }
        let store = try wrapStoreErrors { try StoreCheck.run(storeAt: path) }
        if !store.isDamaged {
            files.problems += tokenProblems(path, identity: files.identity, at: files.lastSequence)
        }
        return BackupCheck(token: token, files: files, store: store)
    }

    /// Where the store at `path` disagrees with the token of its manifest.
    private static func tokenProblems(_ path: String, identity: [UInt8], at sequence: UInt64)
        -> [String]
    {
        var options = LogStoreOptions()
        options.readOnly = true
        options.createIfMissing = false
        options.autoCompactionDeadFraction = nil
        do {
            let store = try LogStore(path: path, options: options)
            defer { try? store.close() }
            var problems: [String] = []
            if store.lastSequence != sequence {
                problems.append(
                    "\(path): the log ends at commit \(store.lastSequence); the backup was made "
                        + "at commit \(sequence)")
            }
            let found = try HistoryToken.current(of: store)?.storeIdentifier
            if let expected = Keyspaces.storeIdentifier(ofValue: identity), found != expected {
                problems.append(
                    "\(path): the store's identity is \(found?.uuidString ?? "missing"); the "
                        + "backup was made of \(expected.uuidString)")
            }
            return problems
        } catch {
            return ["\(path) does not open as a store: \(error)"]
        }
    }
}
