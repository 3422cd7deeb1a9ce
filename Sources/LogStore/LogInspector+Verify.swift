/// What ``LogInspector/verify(storeAt:)`` found, or a walk (``LogInspector/walk(storeAt:_:)``,
/// whose report lists only the log's damage and torn tails).
public struct VerifyReport: Sendable, Equatable {
    /// Segment files read.
    public var segments = 0
    /// Complete commits.
    public var commits = 0
    /// Records in complete commits.
    public var records = 0
    /// Bytes of the segment files.
    public var bytes: Int64 = 0
    /// The highest sequence number of a complete commit.
    public var lastSequence: UInt64 = 0
    /// Everything found, in replay order of the files, then the files the store never reads.
    public var problems: [LogInspector.Problem] = []

    /// Whether damage was found (`open` would refuse the store).
    public var isDamaged: Bool { problems.contains { $0.isDamage } }

    /// The torn tail `open` would cut, if any.
    public var tornTail: LogInspector.Problem? { problems.first { $0.kind == .tornTail } }

    /// An empty report.
    public init() {}
}

extension LogInspector {
    /// ``walk(storeAt:_:)`` with the records as the verifier visits them, their key and value
    /// lent for the call instead of copied.
    /// - Throws: what ``walk(storeAt:_:)`` throws.
    @discardableResult
    package static func walkInPlace(
        storeAt path: String, _ body: (VisitedRecord) throws -> Void
    ) throws -> Summary {
        let report = try verify(
            storeAt: path, fileSystem: PosixFileSystem(), checkingKeyDirectory: false,
            checkingHints: false, visit: body)
        var summary = report
        summary.problems = report.problems.filter {
            $0.kind == .corruption || $0.kind == .tornTail || $0.kind == .unsupportedVersion
        }
        return summary
    }

    /// Checks the store at `path` by the rules `open` applies, from the same code, without
    /// changing anything: every segment's header (CRC before version), every frame's length,
    /// type, sequence and CRC, every record's grammar and keyspace, the torn-tail rule of the
    /// newest segment (sync marks), every hint file against its segment (what would make
    /// `open` ignore it), and the key directory file against the segments. Damage does not stop it: it goes on from the next valid frame, as
    /// salvage mode would, so every damaged region is listed. Also lists the files the store
    /// never reads (leftover `*.tmp` files, kept `*.cut` bytes, damaged segments moved aside).
    ///
    /// Where `open` would throw ``LogStoreError/corruption(path:offset:reason:)``, the report's
    /// first damage names the same file and offset; where it would cut a torn tail, the report's
    /// ``VerifyReport/tornTail`` names the same segment and offset; the hints it reports as
    /// unusable are the ones `open` ignores.
    ///
    /// - Parameter path: the store's directory.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` if `path` is not a directory;
    ///   ``LogStoreError/io(operation:path:errno:)`` if it cannot be listed.
    /// - Complexity: O(bytes of the segments and hints). Memory is bounded, whatever the number
    ///   of records: segments are mapped and their pages dropped behind the scan.
    public static func verify(storeAt path: String) throws -> VerifyReport {
        try verify(storeAt: path, fileSystem: PosixFileSystem())
    }

    /// ``verify(storeAt:)``, calling `visit` with every record of every complete commit, in
    /// replay order, its key and value lent for the call.
    /// - Throws: as ``verify(storeAt:)``, and what `visit` throws.
    package static func verify(
        storeAt path: String, visit: (VisitedRecord) throws -> Void
    ) throws -> VerifyReport {
        try verify(storeAt: path, fileSystem: PosixFileSystem(), visit: visit)
    }

    /// ``verify(storeAt:visit:)`` through `fileSystem`; without `checkingKeyDirectory`, the key
    /// directory file is not checked, without `checkingHints` the hint files are not (a walk,
    /// which reports only the log's damage: a hint's check builds a table as large as the
    /// segment's index). `keyDirectoryPassBytes`, when given, bounds the table bytes each pass
    /// of the key directory file's comparison holds (tests make it small to force many passes).
    package static func verify(
        storeAt path: String, fileSystem fs: any FileSystem, checkingKeyDirectory: Bool = true,
        checkingHints: Bool = true,
        keyDirectoryPassBytes: Int? = nil,
        visit: (VisitedRecord) throws -> Void = { _ in }
    ) throws -> VerifyReport {
        let path = LogStore.backupDirectory(at: path, fileSystem: fs)
        guard fs.kind(of: path) == .directory else {
            throw LogStoreError.invalidArgument("\(path) is not a store directory")
        }
        let files = try StoreFiles(storeAt: path, fileSystem: fs)
        var report = VerifyReport()
        var keyspaces = KeyspaceTable()
        for (i, file) in files.segments.enumerated() {
            let newest = i == files.segments.count - 1
            let segment: Segment
            do {
                segment = try Segment(
                    directory: path, order: file.order, handle: 0, fileSystem: fs, growing: false)
            } catch let error as LogStoreError {
                report.problems.append(
                    Problem(
                        path: files.path(of: file.name), offset: nil, reason: error.description,
                        kind: .corruption))
                continue
            }
            report.segments += 1
            report.bytes += Int64(segment.size)
            try check(
                segment, newest: newest,
                hasHint: checkingHints && files.hasHint(forSegmentOf: file.order),
                keyspaces: &keyspaces, fileSystem: fs, report: &report, visit: visit)
        }
        if files.hasKeyDirectory && checkingKeyDirectory {
            checkKeyDirectory(
                files, fileSystem: fs,
                passBytes: keyDirectoryPassBytes ?? KeyDirectoryFile.comparisonPassBytes,
                report: &report)
        }
        // The files the store never reads, each with what becomes of it.
        let unread: [(names: [String], reason: String, kind: Problem.Kind)] = [
            (
                files.temporaryFiles,
                "a file left by an interrupted compaction, hint write or cut; never read, "
                    + "removed by the next open for writing", .leftoverFile
            ),
            (
                files.orphanHints,
                "a hint file without its segment; never read, removed by the next open for "
                    + "writing", .leftoverFile
            ),
            (
                files.damagedFiles,
                "a segment salvage mode moved aside because it could not be read; never read",
                .leftoverFile
            ),
            (
                files.cutFiles,
                "bytes recovery cut from a torn tail, kept aside; never read, removed by a "
                    + "compaction or `logbook verify --discard-cut`", .cutBytes
            ),
        ]
        for (names, reason, kind) in unread {
            for name in names {
                report.problems.append(
                    Problem(path: files.path(of: name), offset: nil, reason: reason, kind: kind))
            }
        }
        return report
    }

    /// Bytes of a segment read between two releases of the pages behind the reader.
    static let walkReleaseStride = 2 << 20

    /// One segment: its header, its hint, then every frame.
    private static func check(
        _ segment: Segment, newest: Bool, hasHint: Bool, keyspaces: inout KeyspaceTable,
        fileSystem fs: any FileSystem, report: inout VerifyReport,
        visit: (VisitedRecord) throws -> Void
    ) throws {
        let bytes = segment.bytes()
        switch RecoveryRules.header(
            of: bytes, order: segment.order, newest: newest, path: segment.path)
        {
        case .tornCreation(let reason):
            report.problems.append(
                Problem(path: segment.path, offset: 0, reason: reason, kind: .tornTail))
            return
        case .invalid(let error):
            var problem = Problem(
                path: segment.path, offset: nil, reason: error.description, kind: .corruption)
            switch error {
            case .corruption(_, let offset, let reason):
                problem.offset = offset
                problem.reason = reason
            case .unsupportedVersion:
                problem.kind = .unsupportedVersion
            default:
                break
            }
            report.problems.append(problem)
            return
        case .valid(let header):
            segment.formatVersion = header.version
        }
        let name = StoreFiles.segmentName(order: segment.order)
        // The hint is checked after the frames (its problems are reported after theirs), against
        // the keyspaces the segments before this one define, as `open` checks it.
        let keyspacesBefore = keyspaces
        var scanner = SegmentScanner(bytes: bytes, keyspaces: keyspaces)
        scanner.releasePages = { segment.releasePages(from: $0, to: $1) }
        defer {
            keyspaces = scanner.keyspaces
            segment.releasePages()
        }
        defer {
            if hasHint {
                checkHint(
                    of: segment, keyspaces: keyspacesBefore, fileSystem: fs, report: &report)
            }
        }
        var releasedUpTo = 0
        var readAgain: Int?
        while let event = scanner.next() {
            switch event {
            case .commit(let sequence, let start, let end):
                report.commits += 1
                report.lastSequence = max(report.lastSequence, sequence)
                let table = scanner.keyspaces
                try scanner.forEachRecord(start: start, end: end) { record in
                    report.records += 1
                    // The pages behind the record being read go from this process's memory
                    // every few MiB (the scanner's own stride is 4 MiB), also inside one
                    // long commit: a walk holds little of the segment whatever its size.
                    if record.recordOffset - releasedUpTo >= Self.walkReleaseStride {
                        let behind = (record.recordOffset & ~4095) - 4096
                        segment.releasePages(
                            from: WalkPageRelease.releaseStart(after: releasedUpTo), to: behind)
                        releasedUpTo = behind
                    }
                    let kind: RecordKind =
                        record.op == RecordOp.put
                        ? .put : record.op == RecordOp.delete ? .delete : .defineKeyspace
                    try visit(
                        VisitedRecord(
                            segment: name, frameOffset: Int64(record.frameOffset),
                            recordOffset: Int64(record.recordOffset), sequence: sequence,
                            kind: kind,
                            keyspace: kind == .defineKeyspace
                                ? String(decoding: record.key, as: UTF8.self)
                                : table.name(of: Int(record.keyspace)) ?? "",
                            key: kind == .defineKeyspace
                                ? UnsafeRawBufferPointer(start: nil, count: 0) : record.key,
                            value: record.value))
                }
            case .damage(let damage):
                switch RecoveryRules.classify(damage, in: scanner, newest: newest) {
                case .tornTail:
                    report.problems.append(
                        Problem(
                            path: segment.path, offset: Int64(damage.commitStart),
                            reason: damage.reason, kind: .tornTail))
                    return  // recovery drops everything after a torn write
                case .writtenSinceRead where readAgain != damage.commitStart:
                    readAgain = damage.commitStart  // read while the writer wrote it
                    scanner.position = damage.commitStart
                    continue
                case .writtenSinceRead, .corruption:
                    break
                }
                report.problems.append(
                    Problem(
                        path: segment.path, offset: Int64(damage.offset), reason: damage.reason,
                        kind: .corruption))
                guard let resume = scanner.findNextFrame(from: damage.resumeSearch) else { return }
                scanner.position = resume
            }
        }
        // The frames end where the zero tail starts, as open finds (its hint describes that).
        if let zeroTail = scanner.zeroTailStart { segment.size = zeroTail }
    }

    /// Reports the hint of `segment` if `open` would ignore it.
    private static func checkHint(
        of segment: Segment, keyspaces: KeyspaceTable, fileSystem fs: any FileSystem,
        report: inout VerifyReport
    ) {
        let hint = Hint.path(forSegment: segment.path)
        do {
            _ = try Hint.check(segment: segment, keyspaces: keyspaces, fileSystem: fs, keeping: [])
        } catch let unusable as Hint.Unusable {
            report.problems.append(
                Problem(path: hint, offset: nil, reason: unusable.reason, kind: .unusableHint))
        } catch {
            report.problems.append(
                Problem(path: hint, offset: nil, reason: "\(error)", kind: .unusableHint))
        }
    }

    /// Reports the key directory file if `open` would ignore it: the same checks, from the same
    /// code (``Replay/loadKeyDirectory(_:)``); and if open would use it but its index is not the
    /// one the log gives (``KeyDirectoryFile/difference(_:passBytes:)``, in passes that each hold
    /// about `passBytes` of table). Internal, not private, for the `keysdir` fuzz target, which
    /// runs this part of `verify` alone (Tests/Fuzz/README.md).
    static func checkKeyDirectory(
        _ files: StoreFiles, fileSystem fs: any FileSystem, passBytes: Int,
        report: inout VerifyReport
    ) {
        var options = LogStoreOptions()
        options.readOnly = true
        options.fileSystem = fs
        let path = KeyDirectoryFile.path(in: files.path)
        let start: Replay.KeyDirectoryStart
        do {
            start = try Replay(path: files.path, options: options).loadKeyDirectory(files)
        } catch let unusable as KeyDirectoryFile.Unusable {
            report.problems.append(
                Problem(
                    path: path, offset: nil, reason: unusable.reason, kind: .unusableKeyDirectory))
            return
        } catch {
            report.problems.append(
                Problem(path: path, offset: nil, reason: "\(error)", kind: .unusableKeyDirectory))
            return
        }
        // Beyond open's checks: its entries against the index the log gives.
        if let difference = KeyDirectoryFile.difference(start, passBytes: passBytes) {
            report.problems.append(
                Problem(
                    path: path, offset: nil, reason: "open would use it, but " + difference,
                    kind: .unusableKeyDirectory))
        }
    }

    /// Removes the bytes recovery cut and kept aside (`*.cut` files: FORMAT.md, "Recovery"),
    /// once you know you do not want them. Returns the paths removed.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``.
    @discardableResult
    public static func discardCutFiles(storeAt path: String) throws -> [String] {
        try discardCutFiles(storeAt: path, fileSystem: PosixFileSystem())
    }

    /// ``discardCutFiles(storeAt:)`` through `fileSystem`.
    package static func discardCutFiles(storeAt path: String, fileSystem fs: any FileSystem)
        throws -> [String]
    {
        let files = try StoreFiles(storeAt: path, fileSystem: fs)
        let removed = files.cutFiles.map(files.path(of:))
        for file in removed { try fs.remove(file) }
        if !removed.isEmpty { try fs.syncDirectory(path) }
        return removed
    }
}

extension LogInspector.InspectedRecord where Bytes == [UInt8] {
    /// A copy of `record`, which outlives the visit.
    package init(copying record: LogInspector.VisitedRecord) {
        self.init(
            segment: record.segment, frameOffset: record.frameOffset,
            recordOffset: record.recordOffset, sequence: record.sequence, kind: record.kind,
            keyspace: record.keyspace, key: [UInt8](record.key),
            value: record.value.map { [UInt8]($0) })
    }
}
