#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening's replay of a store's segments into the index (FORMAT.md, "Recovery"): every segment
/// in order, through its hint when the hint passes every check, else by a scan; torn tails cut
/// (and kept aside), corruption thrown or, in salvage mode, skipped. The decisions are
/// ``RecoveryRules``', which ``LogInspector/verify(storeAt:)`` reports without acting.
struct Replay {
    let path: String
    let options: LogStoreOptions
    var state = StoreState()
    var report = RecoveryReport()
    /// Whether the writer must start a new segment rather than append to the newest one: salvage
    /// skipped damage in it or moved it aside (damaged files are never written to).
    var needsNewSegment = false
    /// The highest order seen, damaged segments included: a new segment sorts after them all.
    private var highestOrder: UInt64 = 0
    /// The size the key directory file recorded for the last segment it covers.
    var keyDirectoryRecordedSize = 0
    /// Whether replay may start from the key directory file; `verify` turns it off to build the
    /// index the log alone gives.
    var usesKeyDirectory = true
    /// Whether the tables of a key directory file are checked after open rather than during it
    /// (``PendingKeyDirectoryCheck``): a store's own open; never `verify`, which reports.
    var checkingTablesLater = false
    /// For a read-only open: the listing to replay, its files already open, so that a writer's
    /// compaction cannot remove them under the replay. `nil`: list the directory and open by name
    /// (a writer's open, which holds the lock, or verify).
    var pinned: PinnedListing?

    var fs: any FileSystem { options.fileSystem }
    var writable: Bool { !options.readOnly }

    init(path: String, options: LogStoreOptions) {
        self.path = path
        self.options = options
        state.onlyKeyspaces = options.indexedKeyspaces
    }

    /// Lists the directory, tidies it (leftover temporary files, hints whose segment is gone)
    /// when writable, replays every segment, and makes the writer.
    mutating func run() throws -> OpenedStore {
        let files = try pinned?.files ?? StoreFiles(storeAt: path, fileSystem: fs)
        if writable {
            for name in files.temporaryFiles {
                try fs.remove(files.path(of: name))
                report.notes.append(
                    "removed \(name), left over from an interrupted compaction, hint or cut")
            }
            for name in files.orphanHints {
                try fs.remove(files.path(of: name))  // its segment was compacted away
            }
        }
        // The key directory file, when it passes every check, gives the index of the segments it
        // covers: only what was appended after it is replayed.
        let covered = try replayKeyDirectory(files)
        for (i, file) in files.segments.enumerated() {
            highestOrder = max(highestOrder, file.order)
            guard i >= covered else { continue }
            try replaySegment(
                file, newest: i == files.segments.count - 1,
                hasHint: files.hasHint(forSegmentOf: file.order))
        }
        for name in files.damagedFiles {
            if let order = StoreFiles.segmentOrder(String(name.dropLast(".damaged".count))) {
                highestOrder = max(highestOrder, order)
            }
        }
        if report.usedKeyDirectory && covered == files.segments.count && !needsNewSegment
            && report.cuts.isEmpty && state.segments.last??.size == keyDirectoryRecordedSize
        {
            state.keyDirectoryFileState = KeyDirectoryFile.Current(
                lastSequence: state.lastSequence, segments: state.segments.count)
        }
        // Replay touched every page it read; reads will touch again only what they need.
        for segment in state.segments { segment?.releasePages() }
        var writer: LogWriter?
        if writable {
            let active: Segment
            if let newest = state.segments.last ?? nil, !needsNewSegment {
                active = newest
            } else {
                active = try Segment(
                    directory: path, order: (highestOrder >> 16 + 1) << 16,
                    handle: UInt32(state.segments.count), fileSystem: fs, growing: true,
                    create: true)
                try fs.syncData(active.file)
                try fs.syncDirectory(path)
                state.addSegment(active)
            }
            // Replay checked that what lies past the active segment's frames is its zero tail.
            let fileSize = Int(try fs.size(active.file))
            writer = LogWriter(
                directory: path, fileSystem: fs, segmentSize: options.segmentSize, active: active,
                state: state, reservedSize: max(fileSize, active.size),
                zeroTail: options.zeroTail)
        }
        return OpenedStore(state: state, lockFile: nil, writer: writer, report: report)
    }

    /// Checks one segment's header and applies its commits, through its hint if usable.
    private mutating func replaySegment(
        _ file: StoreFiles.Segment, newest: Bool, hasHint: Bool
    ) throws {
        let segment = try Segment(
            directory: path, order: file.order, handle: UInt32(state.segments.count),
            fileSystem: fs, growing: newest && writable, following: newest && !writable,
            opened: pinned?.segments[file.order])
        let bytes = segment.bytes()
        switch RecoveryRules.header(
            of: bytes, order: file.order, newest: newest, path: segment.path)
        {
        case .tornCreation(let reason):
            if writable { try fs.restrictToOwner(segment.file) }
            try cut(segment, at: 0, reason: reason)
            if writable {
                let header = FileHeader(kind: .segment, fileOrder: segment.order).encoded()
                try header.withUnsafeBytes { try fs.writeAll(segment.file, $0, at: 0) }
                try fs.syncData(segment.file)
                state.setSize(of: segment, FileHeader.size)
            }
            state.addSegment(segment)
            return
        case .invalid(let error):
            guard options.salvage, case .corruption = error else { throw error }
            try moveAside(segment, reason: error.reason)
            return
        case .valid(let header):
            segment.formatVersion = header.version
            // The segment recovery may cut and the writer appends to: owner-only, whatever
            // mode it was given.
            if newest && writable { try fs.restrictToOwner(segment.file) }
        }
        try index(segment, newest: newest, hasHint: hasHint)
    }

    /// Applies the commits of `segment`, whose header is valid, through its hint if usable, else
    /// by a scan (which writes the hint of a sealed segment).
    mutating func index(_ segment: Segment, newest: Bool, hasHint: Bool) throws {
        state.addSegment(segment)
        // A pinned listing's hint is the one it opened, if any.
        let hintFile = pinned?.hints[segment.order]?.file
        if pinned == nil ? hasHint : hintFile != nil {
            // A hint describes the segment without its zero tail (FORMAT.md, "Zero tail").
            let fileSize = segment.size
            if let described = Hint.sizeBeforeZeroTail(
                of: segment, fileSystem: fs, opened: hintFile)
            {
                state.setSize(of: segment, described)
            }
            do {
                // The hint says where records are; the CRCs say they are still what was written.
                let checked = try Hint.check(
                    segment: segment, keyspaces: state.keyspaces, fileSystem: fs,
                    keeping: state.onlyKeyspaces, opened: hintFile)
                Hint.apply(checked, to: segment, state: &state)
                state.lastSequence = max(state.lastSequence, checked.lastSequence)
                segment.hintedSize = segment.size
                return
            } catch let unusable as Hint.Unusable {
                state.setSize(of: segment, fileSize)  // the scan finds where the frames end
                let hint = Hint.path(forSegment: segment.path)
                report.ignoredHints.append(hint)
                report.notes.append(
                    "ignored the hint file of \(segment.path) (\(unusable.reason)); scanned the segment instead"
                )
            } catch LogStoreError.io(_, _, ENOENT) where !writable {
                // Listed, then removed by the writer's compaction before it was opened (a replay
                // by name: the rebuild after a key directory file failed a later check). The
                // segment is still held open: scan it.
                state.setSize(of: segment, fileSize)
                report.notes.append(
                    "the hint file of \(segment.path) was removed while the store was read; scanned the segment instead"
                )
            }
        }
        let skips = report.skipped.count
        try scan(segment, newest: newest)
        if !newest && writable && report.skipped.count == skips {
            do {
                try Hint.write(for: segment, directory: path, fileSystem: fs)
            } catch {
                report.notes.append("could not write the hint file of \(segment.path): \(error)")
            }
        }
    }

    /// Applies every complete commit of `segment` by walking its frames. In the newest segment,
    /// damage no later sync mark vouches for is a torn tail: it is cut off (or, read-only,
    /// ignored). Other damage throws, or in salvage mode is skipped. A scan of the tail that the
    /// key directory file does not cover starts at `start`, a commit boundary.
    mutating func scan(_ segment: Segment, newest: Bool, from start: Int = FileHeader.size) throws {
        let bytes = segment.bytes()
        var scanner = SegmentScanner(bytes: bytes, keyspaces: state.keyspaces)
        scanner.position = start
        // Bounded memory however large the segment (or one commit in it): drop pages behind.
        scanner.releasePages = { segment.releasePages(from: $0, to: $1) }
        var readAgain: Int?
        while let event = scanner.next() {
            switch event {
            case .commit(let sequence, let start, let end):
                state.applyCommit(&scanner, start: start, end: end, segment: segment)
                state.lastSequence = max(state.lastSequence, sequence)
            case .damage(let damage):
                switch RecoveryRules.classify(damage, in: scanner, newest: newest) {
                case .tornTail:
                    try cut(segment, at: damage.commitStart, reason: damage.reason)
                    return
                case .writtenSinceRead where readAgain != damage.commitStart:
                    readAgain = damage.commitStart
                    scanner.position = damage.commitStart
                    continue
                case .writtenSinceRead, .corruption:
                    break
                }
                guard options.salvage else {
                    throw LogStoreError.corruption(
                        path: segment.path, offset: Int64(damage.offset), reason: damage.reason)
                }
                let resume = scanner.findNextFrame(from: damage.resumeSearch)
                report.skipped.append(
                    RecoveryReport.Skip(
                        path: segment.path, offset: Int64(damage.commitStart),
                        length: Int64((resume ?? bytes.count) - damage.commitStart),
                        reason: damage.reason))
                if newest { needsNewSegment = true }
                guard let resume else { return }
                scanner.position = resume
            }
        }
        // The frames end where the zero tail starts: readers read no further, and the writer
        // overwrites the zeros rather than growing the file (FORMAT.md, "Zero tail").
        if let zeroTail = scanner.zeroTailStart {
            state.setSize(of: segment, zeroTail)
        }
    }

    /// Drops the bytes of the newest segment from `offset` on: when writable, keeps them in a
    /// cut file, then truncates and syncs the segment; read-only, only hides them. On a full
    /// file system the bytes (an incomplete commit, never acknowledged) are not kept: a store
    /// that filled its disk must still open, so its data can be read and deleted.
    private mutating func cut(_ segment: Segment, at offset: Int, reason: String) throws {
        let dropped = segment.size - offset
        var keptIn: String?
        var unkept = false
        if writable && dropped > 0 {
            do {
                keptIn = try CutBytes.keep(segment, from: offset, directory: path, fileSystem: fs)
            } catch LogStoreError.io(_, _, let code) where code == ENOSPC || code == EDQUOT {
                unkept = true
            }
            try fs.truncate(segment.file, to: Int64(offset))
            try fs.syncData(segment.file)
        }
        state.setSize(of: segment, offset)
        report.cuts.append(
            RecoveryReport.Cut(
                path: segment.path, offset: Int64(offset), length: Int64(dropped), reason: reason,
                keptIn: keptIn))
        report.notes.append(
            "cut \(dropped) bytes of an incomplete commit at offset \(offset) of \(segment.path): \(reason)"
                + (keptIn.map { "; kept in \($0)" } ?? "")
                + (unkept ? "; not kept: no space left on the file system" : ""))
    }

    /// Salvage: a segment whose header cannot be read is renamed `NAME.seg.damaged` (when
    /// writable) and left out: never rewritten in place.
    private mutating func moveAside(_ segment: Segment, reason: String) throws {
        report.skipped.append(
            RecoveryReport.Skip(
                path: segment.path, offset: 0, length: Int64(segment.size), reason: reason))
        needsNewSegment = true
        guard writable else { return }
        let damaged = segment.path + ".damaged"
        try fs.rename(segment.path, to: damaged)
        try fs.syncDirectory(path)
        report.movedAside.append(damaged)
        report.notes.append("moved \(segment.path) aside to \(damaged): \(reason)")
    }
}
