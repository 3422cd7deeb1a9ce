/// Everything that can go wrong in a ``LogStore``, with what a person needs to act on it.
///
/// Callers match on the case; ``description`` gives a sentence that says what happened and
/// what to do next.
public enum LogStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes on disk are not what FORMAT.md allows: a checksum mismatch, an impossible length,
    /// an unknown record type. `offset` is the byte offset in `path` where the damage starts.
    case corruption(path: String, offset: Int64, reason: String)
    /// A system call failed. `operation` names it (`"open"`, `"fdatasync"`, …).
    case io(operation: String, path: String, errno: Int32)
    /// Another process (or another open ``LogStore`` in this one) holds the writer lock.
    case locked(path: String)
    /// The file was written by a newer format version than this library reads.
    case unsupportedVersion(path: String, found: UInt16, supported: UInt16)
    /// The caller passed something the store cannot take (an empty keyspace name, a value
    /// over the size limit, …).
    case invalidArgument(String)
    /// The store was closed; open it again to go on.
    case closed
    /// A write was attempted on a store opened read-only.
    case readOnly(path: String)
    /// An earlier `fdatasync` failed, so the kernel may have dropped written pages; the store
    /// refuses writes until it is closed and opened again (which re-reads what is really on disk).
    case writesDisabled(path: String, cause: Int32)
    /// The state or commits asked for are older than the history the store still holds:
    /// compaction dropped them (``LogStoreOptions/historyRetention`` says what it keeps).
    /// `oldest` is the oldest sequence number whose state is still available.
    case historyUnavailable(requested: UInt64, oldest: UInt64)
    /// The key directory file `path` (`keys.dir`, a cache of the index that open maps) has an
    /// entry that does not point at a record of its key, found by a read, a walk, the first
    /// ordered iteration or a compaction (which then stops before it removes any input: the
    /// store is left as a crash after its step 3 would leave it): its checksums match,
    /// so it was written wrong or forged, not torn. The log itself is not affected. The read is
    /// refused rather than answered from a wrong place. Reopening without that file rebuilds
    /// the index from the log: a writable store that met the damage removes the file when it
    /// closes; otherwise delete it.
    case damagedKeyDirectory(path: String, reason: String)

    public var description: String {
        switch self {
        case .corruption(let path, let offset, let reason):
            return
                "corrupt store file \(path) at offset \(offset): \(reason). "
                + "Run `logbook verify` for details; open with salvage mode to skip damaged frames."
        case .io(let operation, let path, let code):
            return "\(operation) failed on \(path): \(errnoDescription(code)) (errno \(code))."
        case .locked(let path):
            return
                "the store at \(path) is open for writing by another process (or another LogStore "
                + "in this one). Close it there first, or open this one read-only."
        case .unsupportedVersion(let path, let found, let supported):
            return
                "\(path) has format version \(found), but this library reads versions up to "
                + "\(supported). Use a newer Logbook to open it."
        case .invalidArgument(let reason):
            return "invalid argument: \(reason)."
        case .closed:
            return "the store is closed; open it again to use it."
        case .readOnly(let path):
            return "the store at \(path) was opened read-only; open it for writing to change it."
        case .writesDisabled(let path, let cause):
            return
                "writes to \(path) are disabled since a sync failed (\(errnoDescription(cause))); "
                + "close and reopen the store: acknowledged commits are safe, the failed one may be lost."
        case .historyUnavailable(let requested, let oldest):
            return
                "the store no longer holds its history after commit \(requested): compaction dropped "
                + "it. The oldest state still available is after commit \(oldest); keep more "
                + "history with a longer retention."
        case .damagedKeyDirectory(let path, let reason):
            return
                "the store's key directory file \(path) is damaged: \(reason). The log is not "
                + "affected: close the store and open it again without that file (a writable "
                + "store removes it when it closes; otherwise delete it) to rebuild the index."
        }
    }
}
