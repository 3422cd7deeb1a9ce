import Foundation

/// What ``LogStore/refresh()`` took in.
public struct RefreshReport: Sendable, Equatable {
    /// The store's last sequence number after the refresh.
    public var lastSequence: UInt64
    /// Commits applied one by one, each whole.
    public var commits: Int
    /// Whether the index was rebuilt from the directory instead: commits written since the last
    /// look were compacted away before they could be read one by one (the state is still
    /// exact; only which keys those commits changed is not known).
    public var reloaded: Bool
}

/// Following a store another process writes (FORMAT.md, "Readers in other processes").
extension LogStore {
    /// For a store opened read-only: takes in the commits the process that writes it made since
    /// this one opened (or last refreshed), each whole, so reads see them. A writer sees its own
    /// commits at once, and a view made by ``snapshot(asOf:)`` never changes: for both this does
    /// nothing.
    ///
    /// A commit still being written is not taken in (never half of one). When the writer
    /// compacted, this store keeps reading the segments it has open (their files stay readable
    /// after removal) and moves to the new ones once it has caught up, releasing the old.
    /// - Throws: ``LogStoreError/closed``; ``LogStoreError/corruption(path:offset:reason:)`` for
    ///   damage a torn write cannot explain; ``LogStoreError/io(operation:path:errno:)``.
    /// - Complexity: a listing of the directory, plus O(bytes of the new commits); after a
    ///   compaction, as much as an open (to move to its outputs).
    @discardableResult
    public func refresh() throws -> RefreshReport {
        try refresh(observing: nil)
    }

    /// ``refresh()``, calling `observe` with each commit before it is applied (the store still
    /// shows the state before it), so a layer above can find what it changes.
    package func refresh(observing observe: ((LoggedCommit) throws -> Void)?) throws
        -> RefreshReport
    {
        guard writer == nil, !isView else {
            return RefreshReport(lastSequence: lastSequence, commits: 0, reloaded: false)
        }
        return try refreshLock.withLock { _ in try follow(observe) }
    }

    private func follow(_ observe: ((LoggedCommit) throws -> Void)?) throws -> RefreshReport {
        let first = try advance(observe, upTo: nil)
        guard first.gap || first.compacted else {
            return RefreshReport(lastSequence: first.last, commits: first.commits, reloaded: false)
        }
        // A compaction: segments read are gone, or outputs appeared, or commits were lost with
        // the segments they were in. Move to what the directory holds now: rebuild the index
        // from it, catch up with that state commit by commit, then take it.
        var readOptions = options
        readOptions.readOnly = true
        var opened = try Self.replayListing(path: path, options: readOptions)
        let target = opened.state.lastSequence
        var commits = first.commits
        var reloaded = first.gap
        if !reloaded {
            guard target >= first.last else {
                return RefreshReport(lastSequence: first.last, commits: commits, reloaded: false)
            }
            let caught = try advance(observe, upTo: target)
            commits += caught.commits
            // The new state's commits are whole in files the second listing saw: any of them
            // not read one by one were compacted into outputs (or away) before they were read.
            reloaded = caught.gap || caught.last < target
        }
        opened.state.buildOrder(
            of: options.orderedKeyspaces, deltaLimit: options.orderedDeltaLimit)
        let fresh = opened.state
        try index.withLock { state throws(LogStoreError) in
            guard !state.closed else { throw .closed }
            state = fresh
        }
        return RefreshReport(
            lastSequence: target, commits: reloaded ? 0 : commits, reloaded: reloaded)
    }

    /// Applies the commits written after the index's last one, in order, up to `limit` if
    /// given: the growth of the newest segment it reads, then each ordinary segment after it.
    /// Stops at a gap in the sequence numbers (commits compacted away before they were read).
    private func advance(_ observe: ((LoggedCommit) throws -> Void)?, upTo limit: UInt64?)
        throws -> (last: UInt64, commits: Int, gap: Bool, compacted: Bool)
    {
        let fs = options.fileSystem
        // Listed before sizes are read: a segment that has a successor was sealed whole.
        let listed = try StoreFiles(storeAt: path, fileSystem: fs).segments.map(\.order)
        let (segments, first) = try index.withLock {
            state throws(LogStoreError) -> ([Segment], UInt64) in
            guard !state.closed else { throw .closed }
            return (
                state.segments.compactMap { $0 }.sorted { $0.order < $1.order }, state.lastSequence
            )
        }
        let known = Set(segments.map(\.order))
        let compacted =
            !known.isSubset(of: listed)
            || listed.contains { $0 & 0xFFFF != 0 && !known.contains($0) }
        var last = first
        var commits = 0
        var gap = false
        var pending = listed.filter { $0 & 0xFFFF == 0 && $0 > (segments.last?.order ?? 0) }[...]
        var segment = segments.last
        segments: while let current = segment {
            if let limit, last >= limit { break }
            var readAgain = false
            tail: while true {
                let fileSize = Int(try fs.size(current.file))
                guard let tail = try FollowedTail(of: current, to: fileSize, fileSystem: fs)
                else { break tail }
                defer { tail.release() }
                var scanner = SegmentScanner(
                    bytes: tail.bytes, keyspaces: index.withLock { $0.keyspaces })
                scanner.position = current.size
                while let event = scanner.next() {
                    switch event {
                    case .commit(let sequence, let start, let end):
                        if let limit, sequence > limit { break segments }
                        guard sequence == last + 1 else {
                            gap = sequence > last + 1
                            break segments
                        }
                        try apply(
                            sequence, start..<end, of: current, scanner: &scanner,
                            observe: observe)
                        last = sequence
                        commits += 1
                    case .damage(let damage):
                        // The writer may be writing that commit now; damage that bytes synced
                        // before it vouch for is corruption.
                        guard pending.isEmpty else {
                            throw LogStoreError.corruption(
                                path: current.path, offset: Int64(damage.offset),
                                reason: damage.reason)
                        }
                        if RecoveryRules.classify(damage, in: scanner, newest: true) == .tornTail {
                            break segments
                        }
                        // One `pread` may have copied that commit while the writer wrote it,
                        // and, further on, the mark the writer wrote once it was whole: read the
                        // tail again, after that mark (RecoveryRules.Damage.writtenSinceRead).
                        guard readAgain else {
                            readAgain = true
                            continue tail
                        }
                        throw LogStoreError.corruption(
                            path: current.path, offset: Int64(damage.offset),
                            reason: damage.reason)
                    }
                }
                break tail
            }
            guard let order = pending.popFirst() else { break }
            do {
                segment = try openFollowed(order: order, newest: pending.isEmpty)
            } catch LogStoreError.io(_, _, ENOENT) {
                gap = true  // compacted away since the listing
                break
            }
        }
        return (last, commits, gap, compacted)
    }

    /// Applies the checked commit `sequence` in `range` of `segment` (which `scanner` found),
    /// after showing it to `observe`.
    private func apply(
        _ sequence: UInt64, _ range: Range<Int>, of segment: Segment,
        scanner: inout SegmentScanner, observe: ((LoggedCommit) throws -> Void)?
    ) throws {
        // The bytes are checked whole, and whole commits are never cut back: from here on the
        // segment's own mapping may read them (the index does not point at them yet).
        let before = segment.size
        index.withLock { $0.setSize(of: segment, range.upperBound) }
        if let observe {
            do {
                try observe(
                    LoggedCommit(
                        sequence: sequence, segment: segment, start: range.lowerBound,
                        end: range.upperBound, names: KeyspaceNames(scanner.keyspaces)))
            } catch {
                index.withLock { $0.setSize(of: segment, before) }
                throw error
            }
        }
        try index.withLock { state throws(LogStoreError) in
            guard !state.closed else { throw .closed }
            state.applyCommit(
                &scanner, start: range.lowerBound, end: range.upperBound, segment: segment)
            state.lastSequence = sequence
        }
    }

    /// Opens the ordinary segment `order`, which appeared since the last look, and adds it to
    /// the index, empty (the caller applies its commits); `nil` while its header is not written
    /// yet.
    private func openFollowed(order: UInt64, newest: Bool) throws -> Segment? {
        let fs = options.fileSystem
        let handle = try index.withLock { state throws(LogStoreError) -> Int in
            guard !state.closed else { throw .closed }
            return state.segments.count
        }
        let segment = try Segment(
            directory: path, order: order, handle: UInt32(handle), fileSystem: fs,
            growing: false, following: newest)
        // Read, not mapped: a header being written may be cut back by its writer.
        var header = [UInt8](repeating: 0, count: FileHeader.size)
        let read = try header.withUnsafeMutableBytes { try fs.read(segment.file, into: $0, at: 0) }
        switch header.withUnsafeBytes({
            RecoveryRules.header(
                of: UnsafeRawBufferPointer(rebasing: $0[..<read]), order: order, newest: newest,
                path: segment.path)
        }) {
        case .valid(let found):
            segment.formatVersion = found.version
        case .tornCreation:
            return nil
        case .invalid(let error):
            throw error
        }
        return try index.withLock { state throws(LogStoreError) -> Segment in
            guard !state.closed else { throw .closed }
            // Invariant: only this refresh adds segments to a store opened read-only.
            assert(state.segments.count == handle)
            segment.size = FileHeader.size
            state.addSegment(segment)
            return segment
        }
    }
}

/// The bytes of a followed segment past what was read of it, read with `pread` into memory of
/// this process's own rather than through the segment's mapping: the segment's writer may cut
/// bytes there back (a failed write, the torn tail a restarted writer cuts), and touching a
/// mapped page past a file's end faults. The buffer is laid out as the file is (the header, then
/// the new bytes at their own offsets; the pages between are never touched, so never
/// allocated), so the scanner's checks, sync marks' offsets included, are those of the file.
private struct FollowedTail {
    let bytes: UnsafeRawBufferPointer
    private let buffer: UnsafeMutableRawBufferPointer

    /// The bytes of `segment` from its size to `fileSize`, or `nil` if there is nothing new
    /// (no bytes, or only its zero tail still).
    init?(of segment: Segment, to fileSize: Int, fileSystem fs: any FileSystem) throws {
        let from = segment.size
        guard fileSize > from, from >= FileHeader.size else { return nil }
        // A zero tail not yet written over: nothing new, and not worth reading.
        var head = [UInt8](repeating: 0, count: min(Frame.headerSize, fileSize - from))
        let read = try head.withUnsafeMutableBytes {
            try fs.read(segment.file, into: $0, at: Int64(from))
        }
        guard read > 0, head[..<read].contains(where: { $0 != 0 }) else { return nil }
        buffer = .allocate(byteCount: fileSize, alignment: 16)
        do {
            let header = try fs.read(
                segment.file,
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<FileHeader.size]),
                at: 0)
            let tail = try fs.read(
                segment.file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[from...]),
                at: Int64(from))
            guard header == FileHeader.size, tail > 0 else {
                buffer.deallocate()
                return nil
            }
            bytes = UnsafeRawBufferPointer(rebasing: buffer[..<(from + tail)])
        } catch {
            buffer.deallocate()
            throw error
        }
    }

    func release() { buffer.deallocate() }
}
