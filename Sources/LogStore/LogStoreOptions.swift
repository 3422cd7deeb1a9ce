/// When a commit counts as done.
public enum Durability: Sendable, Hashable {
    /// The commit returns only after its bytes are on stable storage (`fdatasync`). Concurrent
    /// `.sync` commits share one `fdatasync` (group commit).
    case sync
    /// The commit returns once its bytes are handed to the operating system. They survive a
    /// crash of the process, not of the machine, until ``LogStore/sync()`` or ``LogStore/close()``.
    case buffered
}

/// How a ``LogStore`` is opened.
public struct LogStoreOptions: Sendable {
    /// Durability of commits that do not name their own. Default `.sync`.
    public var durability: Durability = .sync
    /// Size at which the active segment is sealed and a new one started. A single commit is
    /// never split across segments, so a segment may exceed this by one commit.
    public var segmentSize: Int = 64 << 20
    /// Open without taking the writer lock; every write throws ``LogStoreError/readOnly(path:)``.
    /// Sees the commits that were complete when it opened.
    public var readOnly = false
    /// Skip damaged frames instead of failing, and list each skip in the ``RecoveryReport``.
    public var salvage = false
    /// Create the directory if it does not exist. Default `true` (ignored when read-only).
    public var createIfMissing = true
    /// Compact automatically once dead bytes pass this fraction of the store (and
    /// ``autoCompactionMinimumBytes``); `nil` turns automatic compaction off.
    public var autoCompactionDeadFraction: Double? = 0.5
    /// Dead bytes below which automatic compaction never runs.
    public var autoCompactionMinimumBytes: Int = 64 << 20

    /// A clean close writes the key directory file (FORMAT.md, "Key directory file"), which the
    /// next open maps instead of rebuilding the index, once the store holds at least this many
    /// keys; `nil` never writes it. Below it an open is fast anyway, and the file (16–24 bytes a
    /// key) would only add to the store's size.
    public var keyDirectoryFileMinimumKeys: Int? = 100_000
    /// The key directory file is written only while it takes at most this share of the bytes of
    /// the segments (its tables take 12 bytes a slot, 16–24 a key: for small records they can
    /// be a large part of the store); `nil` (the default) writes it whatever its size. The file
    /// is a disposable cache: it holds nothing the log does not, and deleting it loses no data
    /// (the next open rebuilds from hints). Set a share to bound the disk the cache may take.
    public var keyDirectoryFileMaximumShare: Double?

    /// Which past states compaction keeps (FORMAT.md, "History"). Called when a compaction starts,
    /// with the store, it returns the oldest sequence number whose state, and every commit after
    /// it, must stay readable through ``LogStore/snapshot(asOf:)`` and
    /// ``LogStore/commits(after:follow:)``; `nil` keeps only the live state. Without it (the
    /// default) compaction keeps only the live state.
    public var historyRetention: (@Sendable (LogStore) throws -> UInt64?)?

    /// Keyspaces kept in key order, which ``LogStore/forEach(in:range:reverse:limit:_:)``
    /// iterates (ascending or descending). The declaration belongs to this open, not to the
    /// store: nothing about it is written to disk, since the order follows from the keys. The
    /// first ordered iteration of a named keyspace builds its order from its index (a sort of
    /// its references, about 8 bytes of memory a key), so open itself is unchanged; a keyspace
    /// created later under one of these names is ordered from its first commit. Reopening with a
    /// different set is allowed: a keyspace left out iterates only in log order
    /// (``LogStore/forEach(in:_:)``), and ordered iteration of it throws
    /// ``LogStoreError/invalidArgument(_:)``.
    public var orderedKeyspaces: Set<String> = []
    /// Changes an ordered keyspace collects before merging them into its sorted run (tests
    /// make it small).
    package var orderedDeltaLimit = 2048

    /// With a read-only open, index only these keyspaces (the others read as empty): for a tool
    /// that checks or copies the log itself and needs only a few keyspaces' keys, such as the
    /// schema, without the memory of every key's index. `nil` (the default) indexes all.
    package var indexedKeyspaces: Set<String>?

    /// When and by how much the writer extends the active segment with zeros ahead of durable
    /// commits (FORMAT.md, "Zero tail"); tests make both small.
    package var zeroTail = ZeroTailPolicy()

    /// Every system call of the store goes through this; tests swap it to inject faults.
    package var fileSystem: any FileSystem = PosixFileSystem()

    /// MiB of a key directory file's table that the check at open reads between two
    /// releases of their pages (``KeyDirectoryFile/checkPieceMiB``, 12), rounded down to a
    /// multiple of 3 (at least 3) so that each piece starts at an entry. Tests make it small to
    /// see a small table in pieces.
    package var keyDirectoryCheckPieceMiB = KeyDirectoryFile.checkPieceMiB

    /// Live records a compaction's copy sorts at once
    /// (``LogStore/compactionWindow``, 2^19). Tests make it small to see a small store in windows.
    package var compactionWindow = LogStore.compactionWindow

    /// Options with the defaults.
    public init() {}
}

/// How the writer reserves a zero tail (FORMAT.md, "Zero tail"): once the active segment has
/// been synced more than `afterDurableGroups` times in this session (by durable group writes,
/// or for callers waiting on buffered commits), a group that would grow the file (a durable
/// one, or a buffered one of at most 64 KiB) first extends it with zeros to the next multiple
/// of `step` past its end (never past the configured segment size, so a segment that fills up
/// is sealed with no zeros left), and syncs them: the commits after it overwrite allocated
/// bytes.
package struct ZeroTailPolicy: Sendable {
    /// Bytes the file grows by at a time.
    package var step = 1 << 20
    /// Durable groups a segment takes before the first extension: a store that syncs rarely
    /// never pays for one.
    package var afterDurableGroups = 8

    package init(step: Int = 1 << 20, afterDurableGroups: Int = 8) {
        self.step = step
        self.afterDurableGroups = afterDurableGroups
    }
}
