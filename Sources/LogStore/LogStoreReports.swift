/// What `open` found and repaired. Empty when the store was clean.
public struct RecoveryReport: Sendable, Equatable {
    /// One damaged region that salvage mode skipped.
    public struct Skip: Sendable, Equatable {
        /// The file that holds the damage.
        public var path: String
        /// Where the damage starts, in bytes from the start of the file.
        public var offset: Int64
        /// How many bytes were skipped.
        public var length: Int64
        /// What was wrong.
        public var reason: String
    }

    /// A torn tail cut from the newest segment: bytes a crash left that no acknowledged commit
    /// is in (FORMAT.md, "Recovery").
    public struct Cut: Sendable, Equatable {
        /// The segment that was cut.
        public var path: String
        /// Where the cut starts: the segment now ends here.
        public var offset: Int64
        /// How many bytes were cut.
        public var length: Int64
        /// What made them a torn tail.
        public var reason: String
        /// The file that keeps the cut bytes (`*.cut`, beside the segments), or `nil` if none was
        /// needed (nothing cut, or a read-only open, which cuts nothing from the file). A later
        /// compaction or `logbook verify --discard-cut` removes it.
        public var keptIn: String?
    }

    /// Each torn tail cut (at most one: only the newest segment can have one). A read-only open
    /// does not cut the bytes from the file, only ignores them.
    public var cuts: [Cut] = []
    /// Regions skipped in salvage mode.
    public var skipped: [Skip] = []
    /// Segments salvage mode could not read at all (their header is damaged) and so moved aside,
    /// renamed to `NAME.seg.damaged` (a read-only open only skips them).
    public var movedAside: [String] = []
    /// Hint files that did not describe their segment and were ignored (the segment was scanned
    /// instead), by path.
    public var ignoredHints: [String] = []
    /// Whether the index came from the key directory file (FORMAT.md, "Key directory file")
    /// rather than from hints and scans of every segment.
    public var usedKeyDirectory = false
    /// Why a key directory file was there but not used (stale or damaged); the index was then
    /// rebuilt from hints and segments.
    public var ignoredKeyDirectory: String?
    /// Other things worth knowing (why a hint file was ignored, a leftover temporary file that
    /// was removed, …).
    public var notes: [String] = []

    /// Whether open found nothing to repair or skip.
    public var isClean: Bool { droppedTailBytes == 0 && skipped.isEmpty && movedAside.isEmpty }

    /// The bytes of every cut (``cuts``), for tools and tests.
    package var droppedTailBytes: Int64 { cuts.reduce(0) { $0 + $1.length } }
}

/// Counts for one keyspace.
public struct KeyspaceStats: Sendable, Equatable {
    /// The keyspace's name.
    public var name: String
    /// Live keys.
    public var keys: Int
    /// Bytes of live keys and values.
    public var liveBytes: Int64
}

/// A snapshot of a store's size and shape.
public struct LogStoreStats: Sendable, Equatable {
    /// Per keyspace, sorted by name.
    public var keyspaces: [KeyspaceStats]
    /// Bytes of segment files holding live records (their framing included).
    public var liveBytes: Int64
    /// Bytes of segment files holding overwritten, deleted or framing-only data.
    public var deadBytes: Int64
    /// Segment files.
    public var segments: Int
    /// Total bytes of all segment files.
    public var fileBytes: Int64
    /// Sequence number of the last commit.
    public var lastSequence: UInt64
    /// The last compaction in this process, if any.
    public var lastCompaction: CompactionReport?

    /// File bytes per live byte (1.0 when nothing is dead).
    public var spaceAmplification: Double {
        liveBytes == 0
            ? (fileBytes == 0 ? 1 : Double(fileBytes)) : Double(fileBytes) / Double(liveBytes)
    }
}

/// What one compaction did.
public struct CompactionReport: Sendable, Equatable {
    /// Segments rewritten.
    public var segmentsCompacted: Int
    /// File bytes before minus after.
    public var bytesReclaimed: Int64
    /// Live bytes copied.
    public var bytesWritten: Int64
    /// Wall time in seconds.
    public var duration: Double
}

/// A place in a store's log: a segment, by the replay order in its file header, and a byte
/// offset in it (``LogStore/endOfLog()``). Positions of one store compare in log order.
public struct LogPosition: Sendable, Hashable, Comparable {
    /// The segment's order (FORMAT.md, "Directory layout").
    public let segmentOrder: UInt64
    /// Bytes from the start of the segment file.
    public let offset: Int

    public init(segmentOrder: UInt64, offset: Int) {
        self.segmentOrder = segmentOrder
        self.offset = offset
    }

    public static func < (a: LogPosition, b: LogPosition) -> Bool {
        (a.segmentOrder, a.offset) < (b.segmentOrder, b.offset)
    }
}
