import Foundation

/// What ``LogStore/backup(to:identity:)`` made.
public struct BackupReport: Sendable, Equatable {
    /// The backup holds exactly the state after this commit: every commit up to it, none after.
    public var lastSequence: UInt64
    /// Whether the backup went on from the previous one in the same directory (copying only the
    /// commits written since) rather than copying the store whole.
    public var incremental: Bool
    /// Bytes written.
    public var bytesCopied: Int64
    /// Bytes of the previous backup's files the new one shares with it (hard links, not copies).
    public var bytesReused: Int64
    /// Files the backup is made of (segments and hints).
    public var files: Int
    /// Wall time, in seconds.
    public var duration: TimeInterval
}

/// What ``LogStore/verifyBackup(at:)`` found in a backup.
public struct BackupVerification: Sendable, Equatable {
    /// The commit the backup holds the state after, as its manifest records it.
    public var lastSequence: UInt64
    /// What the backup's maker named its source (``LogStore/backup(to:identity:)``).
    public var identity: [UInt8]
    /// When the backup was made.
    public var created: Date
    /// Files the manifest lists.
    public var files: Int
    /// Bytes of them, all read and checked.
    public var bytes: Int64
    /// Each file that is missing, of another size, or whose checksum does not match, and each
    /// store file the manifest does not list, as a sentence naming it.
    public var problems: [String]

    /// Whether every file is as the backup wrote it.
    public var isIntact: Bool { problems.isEmpty }
}
