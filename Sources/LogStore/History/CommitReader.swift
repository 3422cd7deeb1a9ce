#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a store's commits back in sequence order, straight from its segment files: the log as
/// history (FORMAT.md, "History").
///
/// Made by ``LogStore/commits(after:follow:)``. Each call of ``next()`` returns the next complete
/// commit, each once and in order, with no gap: were a commit missing (compaction removed it
/// meanwhile) it throws instead of skipping it. Compaction outputs hold states, not commits, and
/// are passed over. With `follow`, a reader that has returned everything looks again for commits
/// written since (by the store's own writer, or for a store opened read-only by the process that
/// writes it), so calling ``next()`` later goes on where it stopped.
///
/// A commit another process is still writing is not returned until it is complete. A commit is
/// returned once it is in the file, which may be before its writer's `fdatasync` returned: a
/// power loss can still take back the newest commits a follower saw.
///
/// Not thread-safe: use a reader from one thread at a time. It keeps the segments it reads
/// mapped while it lives, even those compaction removes.
public final class CommitReader {
    /// A segment to read, up to `limit` bytes (the complete commits it held when last looked at).
    private struct Source {
        var segment: Segment
        var limit: Int
    }

    private let store: LogStore
    private let follow: Bool
    private var sources: [Source] = []
    /// The source being read, and the offset of the next commit in it (0: its start).
    private var current = 0
    private var offset = 0
    /// Keyspace names as of the position read to (for a scanner of the next source).
    private var keyspaces: KeyspaceTable
    /// The scanner of the source being read, kept between calls, and which source and limit it
    /// scans: one scanner per source, not one per commit (each would copy the keyspace table).
    private var scanner: SegmentScanner?
    private var scanned = (source: -1, limit: 0)
    /// The names the commits returned share, replaced only when a commit defines a keyspace.
    private var names: KeyspaceNames
    /// The sequence number of the last commit returned (at first, the one the reader starts after).
    public private(set) var lastSequence: UInt64
    /// The store's last sequence number when the reader last looked at its index (writers only).
    private var refreshedLastSequence: UInt64 = 0

    init(store: LogStore, after sequence: UInt64, follow: Bool) throws {
        self.store = store
        self.follow = follow
        lastSequence = sequence
        let (segments, keyspaces, last) = try store.index.withLock {
            state throws(LogStoreError) in
            guard !state.closed else { throw .closed }
            let segments = state.segments.compactMap { $0 }.sorted { $0.order < $1.order }
            return (segments.map { ($0, $0.size) }, state.keyspaces, state.lastSequence)
        }
        self.keyspaces = keyspaces
        self.names = KeyspaceNames(keyspaces)
        let floor = LogStore.historyFloor(of: segments.map(\.0))
        guard sequence >= floor else {
            throw LogStoreError.historyUnavailable(requested: sequence, oldest: floor)
        }
        sources = segments.filter { !$0.0.isCompactionOutput }.map {
            Source(segment: $0.0, limit: $0.1)
        }
        if sequence > last {
            // A follower may start from a token newer than its read-only open.
            var newest = last
            if follow {
                try refresh()
                newest = max(
                    refreshedLastSequence,
                    (sources.last?.segment.commitSpan() ?? nil)?.last ?? last)
            }
            guard sequence <= newest else {
                throw LogStoreError.invalidArgument(
                    "sequence number \(sequence) is ahead of the store's last commit, \(newest)")
            }
        }
        // Start in the last segment whose first commit is not after the one wanted.
        for (i, source) in sources.enumerated() {
            guard let first = source.segment.firstCommitSequence() else { continue }
            if first <= sequence + 1 { current = i } else { break }
        }
    }

    /// The next complete commit, or `nil` when there is none yet (with `follow`, call again later
    /// for commits written since).
    /// - Throws: ``LogStoreError/historyUnavailable(requested:oldest:)`` if the next commit is no
    ///   longer in the store (a compaction removed it before it was read);
    ///   ``LogStoreError/corruption(path:offset:reason:)`` for damage before the end of the log;
    ///   ``LogStoreError/io(operation:path:errno:)`` when following a store on disk.
    /// - Complexity: O(bytes of the commits passed over), plus, with `follow` at the end of the
    ///   log, a listing of the store's directory (read-only stores) or a look at its index.
    public func next() throws -> LoggedCommit? {
        var looked = false
        while true {
            if current < sources.count {
                let source = sources[current]
                if scanner == nil || scanned != (current, source.limit) {
                    if let scanner { keyspaces = scanner.keyspaces }
                    // The scanner checks each record's keyspace against the definitions read so
                    // far and learns the commit's own.
                    scanner = SegmentScanner(
                        bytes: source.segment.bytes(limit: source.limit), keyspaces: keyspaces)
                    scanned = (current, source.limit)
                }
                scanner!.position = max(offset, FileHeader.size)
                switch scanner!.next() {
                case .commit(let sequence, let start, let end):
                    offset = end
                    if scanner!.keyspaces.nextID != names.table.nextID {
                        names = KeyspaceNames(scanner!.keyspaces)
                    }
                    if sequence <= lastSequence { continue }
                    guard sequence == lastSequence + 1 else {
                        throw LogStoreError.historyUnavailable(
                            requested: lastSequence, oldest: sequence - 1)
                    }
                    lastSequence = sequence
                    return LoggedCommit(
                        sequence: sequence, segment: source.segment, start: start, end: end,
                        names: names)
                case .damage(let damage):
                    // The newest segment may end in a commit that is still being written.
                    guard current == sources.count - 1 else {
                        throw LogStoreError.corruption(
                            path: source.segment.path, offset: Int64(damage.commitStart),
                            reason: damage.reason)
                    }
                case nil:
                    if current < sources.count - 1 {
                        current += 1
                        offset = 0
                        continue
                    }
                }
            }
            guard follow, !looked else { return nil }
            looked = true
            try refresh()
        }
    }

    /// Looks for commits written since the sources were taken: from the store's index when it is
    /// the writer, else from its directory (new segments, and segments that grew).
    private func refresh() throws {
        if store.writer != nil {
            let (segments, last) = try store.index.withLock { state throws(LogStoreError) in
                guard !state.closed else { throw .closed }
                let segments = state.segments.compactMap { $0 }
                    .filter { !$0.isCompactionOutput }.sorted { $0.order < $1.order }
                return (segments.map { ($0, $0.size) }, state.lastSequence)
            }
            refreshedLastSequence = last
            merge(segments.map { Source(segment: $0.0, limit: $0.1) })
            return
        }
        let fs = store.options.fileSystem
        // Listed before sizes are taken: a segment that has a successor was sealed whole.
        let orders = try fs.contents(ofDirectory: store.path).compactMap {
            StoreFiles.segmentOrder($0)
        }.filter { $0 & 0xFFFF == 0 }.sorted()
        let newest = sources.last?.segment.order ?? 0
        var found: [Source] = []
        for order in orders where order >= newest {
            let known = sources.last.map { $0.segment.order == order } ?? false
            do {
                let segment = try Segment(
                    directory: store.path, order: order, handle: 0, fileSystem: fs, growing: false)
                if known && segment.size <= sources[sources.count - 1].limit { continue }
                found.append(Source(segment: segment, limit: segment.size))
            } catch LogStoreError.io(_, _, ENOENT) {
                continue  // compacted away since the listing: a gap, if it held unread commits
            }
        }
        merge(found)
    }

    /// Takes newer views of the sources: the same segment with a larger limit replaces the one
    /// read so far (the offset stays valid), later segments are added.
    private func merge(_ fresh: [Source]) {
        for source in fresh {
            if let i = sources.lastIndex(where: { $0.segment.order == source.segment.order }) {
                if source.limit > sources[i].limit { sources[i] = source }
            } else if source.segment.order > (sources.last?.segment.order ?? 0) {
                sources.append(source)
            }
        }
    }
}

/// One complete commit read back from the log by a ``CommitReader``.
///
/// Its record buffers point into the mapped segment and are valid while the commit is.
public struct LoggedCommit: @unchecked Sendable {  // the segment's bytes never change
    /// The commit's sequence number.
    public let sequence: UInt64
    let segment: Segment
    let start: Int
    let end: Int
    let names: KeyspaceNames

    /// Calls `body` with every put and delete of the commit, in the order they were written
    /// (a later operation on the same key wins). The buffers are valid only during the call.
    public func forEachRecord(_ body: (LoggedRecord) throws -> Void) rethrows {
        // The reader checked the frames (checksums, record bounds) when it found the commit:
        // here they are only walked, with no scanner (it would copy the keyspace table).
        let bytes = segment.bytes(limit: end)
        let table = names.table
        var frame = start
        while frame < end {
            let header = FrameHeader(bytes, at: frame)
            var offset = frame + Frame.headerSize
            let payloadEnd = offset + header.length
            while offset < payloadEnd,
                let record = RecordFormat.decode(bytes, at: &offset, end: payloadEnd)
            {
                guard record.op != RecordOp.defineKeyspace,
                    let name = table.name(of: Int(clamping: record.keyspace))
                else { continue }
                try body(LoggedRecord(keyspace: name, key: record.key, value: record.value))
            }
            frame = payloadEnd
        }
    }
}

/// A keyspace table shared by the commits a reader returns (one reference each, not a copy).
final class KeyspaceNames: @unchecked Sendable {  // immutable
    let table: KeyspaceTable
    init(_ table: KeyspaceTable) { self.table = table }
}

/// A put or a delete in a ``LoggedCommit``.
public struct LoggedRecord {
    /// The keyspace's name.
    public let keyspace: String
    /// The key.
    public let key: UnsafeRawBufferPointer
    /// The value a put stores; `nil` for a delete.
    public let value: UnsafeRawBufferPointer?
}
