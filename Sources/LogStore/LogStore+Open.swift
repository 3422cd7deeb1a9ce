#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `open` assembles before the store is usable.
struct OpenedStore {
    var state: IndexState
    var lockFile: OpenFile?
    var writer: LogWriter?
    var report: RecoveryReport
}

extension LogStore {
    static let lockFileName = "LOCK"

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
            try fs.makeDirectory(path)
            try fs.syncDirectory(parentDirectory(of: path))
        case .symlink:
            throw LogStoreError.invalidArgument(
                "\(path) is a symbolic link; open the store by its real path")
        case .file, .other:
            throw LogStoreError.invalidArgument(
                "\(path) is not a directory, so it cannot be a store")
        }

        var lockFile: OpenFile?
        if writable {
            let file = try fs.open(path + "/" + lockFileName, create: true, readOnly: false)
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
            var opened = try replayListing(path: path, options: options)
            opened.lockFile = lockFile
            return opened
        } catch {
            if let lockFile { try? fs.close(lockFile) }
            throw error
        }
    }

    /// Replays the store; a read-only open lists the directory again if a writer's compaction
    /// removed a file it listed (a few times, then it reports the error).
    private static func replayListing(path: String, options: LogStoreOptions) throws -> OpenedStore
    {
        var attempt = 0
        while true {
            do {
                return try replay(path: path, options: options)
            } catch LogStoreError.io(_, _, ENOENT) where options.readOnly && attempt < 5 {
                attempt += 1
            }
        }
    }

    private static func replay(path: String, options: LogStoreOptions) throws -> OpenedStore {
        let fs = options.fileSystem
        let writable = !options.readOnly
        var report = RecoveryReport()
        var orders: [UInt64] = []
        var hints: Set<String> = []
        let names = try fs.contents(ofDirectory: path)
        for name in names {
            if let order = Segment.order(fromFileName: name) {
                orders.append(order)
            } else if name.hasSuffix(".hint") {
                hints.insert(name)
            } else if name.hasSuffix(".tmp") && writable {
                try fs.remove(path + "/" + name)
                report.notes.append(
                    "removed \(name), left over from an interrupted compaction or hint write")
            }
        }
        orders.sort()
        if writable {
            for hint in hints where !names.contains(String(hint.dropLast(5)) + ".seg") {
                try fs.remove(path + "/" + hint)  // its segment was compacted away
                hints.remove(hint)
            }
        }
        var state = IndexState()
        if orders.isEmpty {
            guard writable else {
                return OpenedStore(state: state, lockFile: nil, writer: nil, report: report)
            }
            let segment = try Segment(
                directory: path, order: 1 << 16, handle: 0, fileSystem: fs, growing: true,
                create: true)
            try fs.syncData(segment.file)
            try fs.syncDirectory(path)
            state.addSegment(segment)
            let writer = LogWriter(
                directory: path, fileSystem: fs, segmentSize: options.segmentSize, active: segment,
                state: state)
            return OpenedStore(state: state, lockFile: nil, writer: writer, report: report)
        }
        for (i, order) in orders.enumerated() {
            let newest = i == orders.count - 1
            let segment = try Segment(
                directory: path, order: order, handle: UInt32(i), fileSystem: fs,
                growing: newest && writable)
            state.addSegment(segment)
            // A segment shorter than its header is a torn creation: replaySegment handles it.
            if segment.size >= FileHeader.size,
                hints.contains(Segment.fileName(order: order).dropLast(4) + ".hint")
            {
                do {
                    // The hint says where records are; the CRCs say they are still what was written.
                    let header = try FileHeader.decode(
                        segment.bytes(), kind: .segment, path: segment.path)
                    segment.formatVersion = header.version
                    guard try segment.checksumsMatch(fileSystem: fs) else {
                        throw Hint.Unusable(reason: "its segment fails a checksum")
                    }
                    let sequence = try applyHint(of: segment, fileSystem: fs, state: &state)
                    state.lastSequence = max(state.lastSequence, sequence)
                    continue
                } catch LogStoreError.io(_, _, ENOENT) where options.readOnly {
                    // A writer's compaction removed it since we listed the directory: scan instead.
                } catch let unusable as Hint.Unusable {
                    report.notes.append(
                        "ignored the hint file of \(segment.path) (\(unusable.reason)); scanned the segment instead"
                    )
                }
            }
            try replaySegment(
                segment, newest: newest, options: options, state: &state, report: &report)
            if !newest && writable && report.skipped.isEmpty {
                do {
                    try Hint.write(for: segment, directory: path, fileSystem: fs)
                } catch {
                    report.notes.append(
                        "could not write the hint file of \(segment.path): \(error)")
                }
            }
        }
        // Replay touched every page it read; reads will touch again only what they need.
        for segment in state.segments { segment?.releasePages() }
        var writer: LogWriter?
        if writable, let active = state.segments.last ?? nil {
            writer = LogWriter(
                directory: path, fileSystem: fs, segmentSize: options.segmentSize, active: active,
                state: state)
        }
        return OpenedStore(state: state, lockFile: nil, writer: writer, report: report)
    }

    /// Checks the header and applies every complete commit of one segment. In the newest segment,
    /// damage no later sync mark vouches for is a torn tail: it is cut off (or, read-only, ignored).
    private static func replaySegment(
        _ segment: Segment, newest: Bool, options: LogStoreOptions, state: inout IndexState,
        report: inout RecoveryReport
    ) throws {
        let fs = options.fileSystem
        let writable = !options.readOnly
        let bytes = segment.bytes()
        if newest && headerNeverWritten(bytes, path: segment.path) {
            // A crash while the segment was being created: it holds no commit.
            try cutTail(
                segment, at: 0, reason: "incomplete header", options: options, report: &report)
            if writable {
                let header = FileHeader(kind: .segment, fileOrder: segment.order).encoded()
                try header.withUnsafeBytes { try fs.writeAll(segment.file, $0, at: 0) }
                try fs.syncData(segment.file)
                segment.size = FileHeader.size
            }
            return
        }
        let header = try FileHeader.decode(bytes, kind: .segment, path: segment.path)
        segment.formatVersion = header.version
        guard header.fileOrder == segment.order else {
            throw LogStoreError.corruption(
                path: segment.path, offset: 12,
                reason:
                    "header names segment \(hex16(header.fileOrder)), not the one in the file name")
        }
        var scanner = SegmentScanner(bytes: bytes)
        while let event = scanner.next() {
            switch event {
            case .commit(let sequence, let start, let end):
                try state.applyCommit(scanner, start: start, end: end, segment: segment)
                state.lastSequence = max(state.lastSequence, sequence)
            case .damage(let commitStart, let offset, let reason, let checksummed):
                if newest,
                    scanner.isTornWrite(
                        commitStart: commitStart, offset: offset, checksummed: checksummed)
                {
                    try cutTail(
                        segment, at: commitStart, reason: reason, options: options, report: &report)
                    return
                }
                guard options.salvage else {
                    throw LogStoreError.corruption(
                        path: segment.path, offset: Int64(offset), reason: reason)
                }
                let resume = scanner.findNextFrame(after: offset)
                let skipEnd = resume ?? bytes.count
                report.skipped.append(
                    RecoveryReport.Skip(
                        path: segment.path, offset: Int64(commitStart),
                        length: Int64(skipEnd - commitStart),
                        reason: reason))
                guard let resume else { return }
                scanner.position = resume
            }
        }
    }

    /// Whether a segment is shorter than its header, or its header is damaged and no valid frame
    /// follows: what a crash between creating a segment and syncing its header leaves (zeros or
    /// garbage where the header should be). Such a segment holds no commit.
    private static func headerNeverWritten(_ bytes: UnsafeRawBufferPointer, path: String) -> Bool {
        guard bytes.count >= FileHeader.size else { return true }
        do {
            _ = try FileHeader.decode(bytes, kind: .segment, path: path)
            return false
        } catch LogStoreError.corruption {
            return SegmentScanner(bytes: bytes).findNextFrame(after: FileHeader.size - 1) == nil
        } catch {
            return false
        }
    }

    /// Reads a segment's hint file and applies it.
    private static func applyHint(
        of segment: Segment, fileSystem fs: any FileSystem, state: inout IndexState
    ) throws
        -> UInt64
    {
        let file = try fs.open(Hint.path(forSegment: segment.path), create: false, readOnly: true)
        defer { try? fs.close(file) }
        let size = try fs.size(file)
        // A hint holds at most ~16 bytes per record of at least 5 bytes: never more than 4× its segment.
        guard size <= Int64(segment.size) * 4 + Int64(FileHeader.size + Hint.trailerSize) else {
            throw Hint.Unusable(reason: "larger than its segment allows")
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = try bytes.withUnsafeMutableBytes { try fs.read(file, into: $0, at: 0) }
        guard read == bytes.count else { throw Hint.Unusable(reason: "short read") }
        return try bytes.withUnsafeBytes { try Hint.apply($0, to: segment, state: &state) }
    }

    /// Drops the bytes of the newest segment from `offset` on: truncates and syncs when
    /// writable, or only hides them when read-only.
    private static func cutTail(
        _ segment: Segment, at offset: Int, reason: String, options: LogStoreOptions,
        report: inout RecoveryReport
    ) throws {
        let dropped = segment.size - offset
        report.droppedTailBytes += Int64(dropped)
        report.truncatedSegment = segment.path
        report.notes.append(
            "cut \(dropped) bytes of an incomplete commit at offset \(offset) of \(segment.path): \(reason)"
        )
        if !options.readOnly {
            try options.fileSystem.truncate(segment.file, to: Int64(offset))
            try options.fileSystem.syncData(segment.file)
        }
        segment.size = offset
    }

    static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
