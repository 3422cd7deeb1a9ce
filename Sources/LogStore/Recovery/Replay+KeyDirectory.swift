/// Opening through the key directory file (FORMAT.md, "Key directory file").
extension Replay {
    /// What a usable key directory file gives: the index of the segments it covers.
    struct KeyDirectoryStart {
        var state: StoreState
        /// How many of the listed segments it covers (the first ones in replay order).
        var covered: Int
        /// The size it recorded for the last of them, which may have grown since.
        var recordedSize: Int
    }

    /// Takes the index from the key directory file if it passes every check of
    /// ``loadKeyDirectory(_:)``, then scans what was appended to the last segment it covers after
    /// it was written. Returns how many of the listed segments it covers: 0 if there is no file
    /// or it cannot be used (the report then says why).
    mutating func replayKeyDirectory(_ files: StoreFiles) throws -> Int {
        guard usesKeyDirectory, files.hasKeyDirectory else { return 0 }
        var start: KeyDirectoryStart
        do {
            start = try loadKeyDirectory(files)
            // Replay past the file writes into its tables: check them before.
            if let pending = start.state.pendingCheck,
                start.covered < files.segments.count
                    || Self.mayHoldFrames(
                        start.state.segments[start.covered - 1]!, after: start.recordedSize)
            {
                try pending.checkAll(start.state.directories)
                start.state.setPendingCheck(nil)
            }
        } catch let unusable as KeyDirectoryFile.Unusable {
            report.ignoredKeyDirectory = unusable.reason
            report.notes.append(
                "ignored the key directory file (\(unusable.reason)); rebuilt the index from hints and segments"
                    + (writable ? "; removed it" : ""))
            // It never becomes usable again (the next clean close writes a current one); not
            // synced: if the removal is lost, the next open ignores it again.
            if writable { try? fs.remove(KeyDirectoryFile.path(in: path)) }
            return 0
        }
        state = start.state
        report.usedKeyDirectory = true
        keyDirectoryRecordedSize = start.recordedSize
        let last = state.segments[start.covered - 1]!
        let newest = start.covered == files.segments.count
        if last.size > start.recordedSize {
            report.notes.append(
                "the key directory file covers \(start.recordedSize) of the \(last.size) bytes of \(last.path); scanned the rest"
            )
            try scan(last, newest: newest, from: start.recordedSize)
        }
        return start.covered
    }

    /// Reads the key directory file and checks it against the store (FORMAT.md, "Key directory
    /// file"): its header and meta CRC; that the segments it lists are the first ones listed,
    /// in order, each with a valid header, its recorded size (the last may have grown) and the
    /// recorded CRC of the bytes before that size; that its keyspace definitions are valid; and
    /// each table's CRCs and entries (``KeyDirectoryFile/checkTable(_:of:segmentSizes:fileSystem:pieceMiB:)``),
    /// now or, with ``checkingTablesLater``, as ``PendingKeyDirectoryCheck`` says. The tables of
    /// the keyspaces replay indexes are mapped.
    /// - Throws: ``KeyDirectoryFile/Unusable`` for a file that fails a check or cannot be read;
    ///   ``LogStoreError`` if a segment cannot be opened.
    func loadKeyDirectory(_ files: StoreFiles) throws -> KeyDirectoryStart {
        let path = KeyDirectoryFile.path(in: self.path)
        let file: OpenFile
        let fileSize: Int
        do {
            file = try fs.open(path, create: false, readOnly: true)
            fileSize = Int(try fs.size(file))
        } catch let error as LogStoreError {
            throw KeyDirectoryFile.Unusable(reason: "cannot be read: \(error)")
        }
        defer { try? fs.close(file) }
        let meta: KeyDirectoryFile.Meta
        do {
            meta = try KeyDirectoryFile.readMeta(file, fileSize: fileSize, fileSystem: fs)
        } catch let error as LogStoreError {
            throw KeyDirectoryFile.Unusable(reason: "cannot be read: \(error)")
        }
        guard !meta.segments.isEmpty, meta.segments.count <= files.segments.count else {
            throw KeyDirectoryFile.Unusable(reason: "it lists segments the store does not have")
        }
        var state = StoreState()
        state.onlyKeyspaces = options.indexedKeyspaces
        for (i, recorded) in meta.segments.enumerated() {
            let listed = files.segments[i]
            guard listed.order == recorded.order else {
                throw KeyDirectoryFile.Unusable(
                    reason:
                        "it lists segment \(hex16(recorded.order)) where the store has \(listed.name)"
                )
            }
            let newest = i == files.segments.count - 1
            let segment = try Segment(
                directory: self.path, order: listed.order, handle: UInt32(i), fileSystem: fs,
                growing: newest && writable, following: newest && !writable,
                opened: pinned?.segments[listed.order])
            guard
                case .valid(let header) = RecoveryRules.header(
                    of: segment.bytes(), order: listed.order, newest: newest, path: segment.path)
            else { throw KeyDirectoryFile.Unusable(reason: "\(listed.name) has a bad header") }
            segment.formatVersion = header.version
            let last = i == meta.segments.count - 1
            guard recorded.size >= UInt64(FileHeader.size),
                last ? UInt64(segment.size) >= recorded.size : UInt64(segment.size) == recorded.size
            else {
                throw KeyDirectoryFile.Unusable(
                    reason:
                        "\(listed.name) is \(segment.size) bytes, not the \(recorded.size) it recorded"
                )
            }
            guard try tailCRC(of: segment, size: Int(recorded.size)) == recorded.tailCRC else {
                throw KeyDirectoryFile.Unusable(
                    reason: "\(listed.name) does not end as it did when the file was written")
            }
            segment.liveBytes = recorded.liveBytes
            state.addSegment(segment)
        }
        for (i, keyspace) in meta.keyspaces.enumerated() {
            guard keyspace.name.utf8.count <= KeyspaceTable.maxNameLength,
                state.define(keyspace.name, id: i + 1)
            else {
                throw KeyDirectoryFile.Unusable(
                    reason: "keyspace \(i + 1) has a name that cannot be defined")
            }
        }
        // Offsets are 32-bit, so a segment's size as an offset limit fits one.
        let sizes = meta.segments.map { UInt32(clamping: $0.size) }
        var pending = PendingKeyDirectoryCheck(
            segmentSizes: sizes, path: self.path, options: options,
            hasHint: files.segments.map { files.hasHint(forSegmentOf: $0.order) })
        for (i, keyspace) in meta.keyspaces.enumerated() where state.indexed[i + 1] {
            do {
                state.directories[i + 1] = try KeyDirectoryFile.mapTable(
                    keyspace, file: file, fileSystem: fs)
            } catch let error as LogStoreError {
                throw KeyDirectoryFile.Unusable(reason: "cannot be read: \(error)")
            }
            if checkingTablesLater {
                pending.add(keyspace, id: i + 1)
            } else {
                try KeyDirectoryFile.checkTable(
                    state.directories[i + 1], of: keyspace, segmentSizes: sizes, fileSystem: fs,
                    pieceMiB: options.keyDirectoryCheckPieceMiB)
            }
        }
        if checkingTablesLater && pending.pendingTables > 0 { state.setPendingCheck(pending) }
        state.lastSequence = meta.lastSequence
        if let newest = state.segments.last ?? nil, writable,
            meta.segments.count == files.segments.count
        {
            // The segment the writer appends to: owner-only, as replay makes it.
            try fs.restrictToOwner(newest.file)
        }
        return KeyDirectoryStart(
            state: state, covered: meta.segments.count,
            recordedSize: Int(meta.segments[meta.segments.count - 1].size))
    }

    /// Whether a frame may start at `offset` of `segment`: whole frame header there, whose type
    /// byte is not 0 (past the frames there may be only a zero tail, FORMAT.md "Zero tail").
    static func mayHoldFrames(_ segment: Segment, after offset: Int) -> Bool {
        guard segment.size >= offset + Frame.headerSize else { return false }
        return segment.bytes()[offset + 8] != 0
    }

    /// The tail CRC of `segment`'s first `size` bytes, read through `pread` (not the mapping,
    /// which is not to be paged in at open).
    private func tailCRC(of segment: Segment, size: Int) throws -> UInt32 {
        let start = max(FileHeader.size, size - KeyDirectoryFile.tailBytes)
        guard size > start else { return 0 }
        var buffer = [UInt8](repeating: 0, count: size - start)
        let read = try buffer.withUnsafeMutableBytes {
            try fs.read(segment.file, into: $0, at: Int64(start))
        }
        guard read == buffer.count else { return ~0 }
        return buffer.withUnsafeBytes { Checksum.crc32c($0) }
    }
}
