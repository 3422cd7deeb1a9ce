/// Appends commits to the active segment. Used only by the group-commit leader (one at a time),
/// so it needs no lock of its own; what readers see it publishes through the index lock.
///
/// Invariant: `active.size` (published) ends at a commit boundary, and nothing the writer has
/// not published lies beyond it in the file except the group being written.
final class LogWriter: @unchecked Sendable {
    /// Bytes buffered before the writer hands them to the OS in one write.
    static let flushThreshold = 1 << 20

    let directory: String
    let fileSystem: any FileSystem
    let segmentSize: Int
    private(set) var active: Segment
    /// The writer's keyspace table: ahead of the index's while a group is being written.
    private var keyspaces: KeyspaceTable
    private(set) var nextSequence: UInt64
    /// Bytes of the active segment handed to the OS.
    private var writtenSize: Int
    /// Bytes of the active segment known to be on stable storage (a successful `fdatasync`
    /// covered them).
    private var durableSize: Int
    /// The durable size the active segment's latest sync mark records.
    private var markedSize: Int
    /// Whether bytes have been written since the last `fdatasync` of the active segment.
    private var hasUnsyncedData: Bool { writtenSize > durableSize }
    /// Whether the next commit must first define every known keyspace: each segment restates
    /// the definitions so that removing older segments never leaves a number undefined.
    private var activeNeedsDefinitions = false
    /// Set after a failed sync: writes are refused until the store is reopened.
    private(set) var disabledCause: Int32?

    init(
        directory: String, fileSystem: any FileSystem, segmentSize: Int, active: Segment,
        state: IndexState
    ) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.segmentSize = segmentSize
        self.active = active
        // Nothing is known durable of what an earlier process wrote until this one syncs. A
        // segment that ends with a mark (a clean close) needs no new one until it grows.
        self.writtenSize = active.size
        self.durableSize = FileHeader.size
        self.markedSize = SyncMark.ends(active.bytes()) ? active.size : FileHeader.size
        self.keyspaces = state.keyspaces
        self.nextSequence = state.lastSequence + 1
        // The active segment may not define what it uses (older segments do, and compaction may
        // remove them): restate the definitions in the first commit after opening.
        self.activeNeedsDefinitions = state.keyspaces.nextID > 1
    }

    /// What the leader needs to publish one written batch.
    private struct Written {
        var commit: PendingCommit
        var sequence: UInt64
        var globalIDs: [Int]
        var definitions: [(name: String, id: Int)]
        var recordOffsets: [UInt32]
    }

    /// Writes a group of commits and publishes them to `index`; sets every commit's result.
    func write(_ group: [PendingCommit], index: borrowing Locked<IndexState>) {
        if let cause = disabledCause {
            for commit in group {
                commit.result = .failure(.writesDisabled(path: directory, cause: cause))
            }
            return
        }
        var accepted: [PendingCommit] = []
        for commit in group {
            if let problem = commit.batch.invalidity() {
                commit.result = .failure(problem)
            } else {
                accepted.append(commit)
            }
        }
        guard !accepted.isEmpty else { return }
        let savedKeyspaces = keyspaces
        let savedNeedsDefinitions = activeNeedsDefinitions
        let savedMarkedSize = markedSize
        let estimate = accepted.reduce(0) { $0 + $1.batch.encodedSizeBound }
        var written: [Written] = []
        var groupStart = active.size
        do {
            try rollIfNeeded(adding: estimate, index: index)
            groupStart = active.size
            var buffer: [UInt8] = []
            buffer.reserveCapacity(min(estimate, Self.flushThreshold + Frame.targetPayload * 2))
            var bufferOffset = groupStart
            // A group write after a sync starts with a mark saying how far the segment is durable:
            // damage before that offset is corruption, not a torn write (FORMAT.md, "Sync marks").
            if durableSize > markedSize {
                SyncMark.append(durableSize: durableSize, to: &buffer)
                markedSize = durableSize
            }
            for (i, commit) in accepted.enumerated() {
                written.append(
                    try encode(
                        commit, sequence: nextSequence + UInt64(i), buffer: &buffer,
                        bufferOffset: &bufferOffset))
            }
            try flush(&buffer, at: &bufferOffset)
            if accepted.contains(where: { $0.durability == .sync }) { try sync() }
            let end = bufferOffset
            index.withLock { state in
                for batch in written { publish(batch, into: &state) }
                state.lastSequence = written.last!.sequence
                active.size = end
            }
        } catch {
            keyspaces = savedKeyspaces
            activeNeedsDefinitions = savedNeedsDefinitions
            markedSize = savedMarkedSize
            // The group is cut off below.
            writtenSize = groupStart
            let failure =
                (error as? LogStoreError) ?? .io(operation: "write", path: active.path, errno: 5)
            // Cut the partial group off so later commits do not follow garbage.
            do {
                try fileSystem.truncate(active.file, to: Int64(groupStart))
            } catch {
                if disabledCause == nil { disabledCause = 5 }
            }
            for commit in accepted { commit.result = .failure(failure) }
            return
        }
        nextSequence += UInt64(accepted.count)
        for batch in written { batch.commit.result = .success(batch.sequence) }
    }

    /// Forces buffered commits to stable storage. A failure disables writes: the kernel may have
    /// dropped the pages, so a retry could not be trusted.
    func sync() throws {
        guard hasUnsyncedData else { return }
        // After a failed sync the pages may be gone although a retry would succeed.
        if let cause = disabledCause {
            throw LogStoreError.writesDisabled(path: directory, cause: cause)
        }
        let end = writtenSize
        do {
            try fileSystem.syncData(active.file)
        } catch let error as LogStoreError {
            if case .io(_, _, let code) = error { disabledCause = code }
            throw error
        }
        durableSize = end
    }

    /// Syncs, then appends and syncs a mark saying the whole segment is durable, so that after
    /// a clean close no damage in it passes for a torn write. Only the sync can fail: the mark is
    /// best effort (without it, damage in the last group write is cut as a torn write).
    func seal(index: borrowing Locked<IndexState>) throws {
        try sync()
        guard disabledCause == nil, durableSize > markedSize else { return }
        var buffer: [UInt8] = []
        SyncMark.append(durableSize: durableSize, to: &buffer)
        var end = writtenSize
        do {
            try flush(&buffer, at: &end)
            try sync()
        } catch {
            return
        }
        markedSize = durableSize
        index.withLock { _ in active.size = end }
    }

    // MARK: - Encoding

    /// Encodes `commit` as frames into `buffer` (which starts at file offset `bufferOffset`),
    /// handing full stretches to the OS as it goes.
    private func encode(
        _ commit: PendingCommit, sequence: UInt64, buffer: inout [UInt8], bufferOffset: inout Int
    ) throws -> Written {
        let batch = commit.batch
        var written = Written(
            commit: commit, sequence: sequence, globalIDs: [], definitions: [], recordOffsets: [])
        if activeNeedsDefinitions {
            for id in 1..<keyspaces.nextID {
                written.definitions.append((keyspaces.name(of: id)!, id))
            }
            activeNeedsDefinitions = false
        }
        for name in batch.keyspaceNames {
            if let id = keyspaces.id(of: name) {
                written.globalIDs.append(id)
            } else {
                let id = keyspaces.nextID
                _ = keyspaces.define(name, id: id)
                written.globalIDs.append(id)
                written.definitions.append((name, id))
            }
        }
        written.recordOffsets.reserveCapacity(batch.count)
        var frameStart = buffer.count
        var frames = 0
        FrameHeader.appendPlaceholder(type: .full, sequence: sequence, to: &buffer)
        for definition in written.definitions {
            RecordFormat.appendDefinition(
                keyspace: definition.id, name: definition.name, to: &buffer)
        }
        try batch.records.withUnsafeBytes { records in
            var offset = 0
            while offset < records.count {
                // The batch's own encoding, with local keyspace numbers: trusted.
                let record = StoredRecord(at: records.baseAddress! + offset)
                offset += record.encodedSize
                let isPut = record.op == RecordOp.put
                let global = written.globalIDs[record.keyspace]
                let size = RecordFormat.encodedSize(
                    keyspace: global, keyLength: record.key.count,
                    valueLength: isPut ? record.value.count : nil)
                let payload = buffer.count - frameStart - Frame.headerSize
                if payload > 0 && payload + size > Frame.targetPayload {
                    FrameHeader.sealFrame(
                        &buffer, at: frameStart, type: frames == 0 ? .first : .middle)
                    frames += 1
                    if buffer.count >= Self.flushThreshold { try flush(&buffer, at: &bufferOffset) }
                    frameStart = buffer.count
                    FrameHeader.appendPlaceholder(type: .middle, sequence: sequence, to: &buffer)
                }
                if isPut { written.recordOffsets.append(UInt32(bufferOffset + buffer.count)) }
                RecordFormat.append(
                    op: record.op, keyspace: global, key: record.key,
                    value: isPut ? record.value : nil, to: &buffer)
            }
        }
        FrameHeader.sealFrame(&buffer, at: frameStart, type: frames == 0 ? .full : .last)
        if buffer.count >= Self.flushThreshold { try flush(&buffer, at: &bufferOffset) }
        return written
    }

    private func flush(_ buffer: inout [UInt8], at offset: inout Int) throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try fileSystem.writeAll(active.file, $0, at: Int64(offset)) }
        offset += buffer.count
        writtenSize = offset
        buffer.removeAll(keepingCapacity: true)
    }

    /// Applies a written batch to the index (its definitions, puts and deletes, in order).
    private func publish(_ written: Written, into state: inout IndexState) {
        for definition in written.definitions {
            _ = state.define(definition.name, id: definition.id)
        }
        for (local, puts) in written.commit.batch.putsPerKeyspace.enumerated() where puts > 1024 {
            let id = written.globalIDs[local]
            state.directories[id].reserve(state.directories[id].count + puts)
        }
        let handle = active.handle
        var values = 0
        written.commit.batch.records.withUnsafeBytes { records in
            var offset = 0
            while offset < records.count {
                let record = StoredRecord(at: records.baseAddress! + offset)
                offset += record.encodedSize
                let keyspace = written.globalIDs[record.keyspace]
                if record.op == RecordOp.put {
                    let ref = RecordRef(segment: handle, offset: written.recordOffsets[values])
                    values += 1
                    state.applyPut(
                        keyspace: keyspace, hash: KeyDirectory.hash(record.key), ref: ref,
                        keyLength: record.key.count, valueLength: record.value.count,
                        encodedSize: RecordFormat.encodedSize(
                            keyspace: keyspace, keyLength: record.key.count,
                            valueLength: record.value.count))
                } else {
                    state.applyDelete(keyspace: keyspace, key: record.key)
                }
            }
        }
    }

    // MARK: - Segments

    /// Seals the active segment and starts a new one, unless it holds no commit (compaction).
    func sealActiveSegment(index: borrowing Locked<IndexState>) throws {
        if let cause = disabledCause {
            throw LogStoreError.writesDisabled(path: directory, cause: cause)
        }
        guard active.size > FileHeader.size else { return }
        try startSegment(index: index)
    }

    /// Seals the active segment and starts a new one if it is full, the group would push its
    /// offsets past 32 bits, or it is of an older format version (never appended to). The sealed
    /// segment is synced first: sealed segments are complete.
    private func rollIfNeeded(adding bytes: Int, index: borrowing Locked<IndexState>) throws {
        let full =
            active.size > FileHeader.size
            && (active.size >= segmentSize || active.size + bytes > Int(UInt32.max))
        guard full || active.formatVersion < FileHeader.currentVersion else { return }
        try startSegment(index: index)
    }

    private func startSegment(index: borrowing Locked<IndexState>) throws {
        try sync()
        let order = (active.order >> 16 + 1) << 16
        let handle = index.withLock { UInt32($0.segments.count) }
        let segment: Segment
        do {
            segment = try Segment(
                directory: directory, order: order, handle: handle, fileSystem: fileSystem,
                growing: true, create: true)
            try fileSystem.syncData(segment.file)
            try fileSystem.syncDirectory(directory)
        } catch let error as LogStoreError {
            // Once the new file may exist, the next open may take it for the newest segment and
            // so seal the active one, which must then end at its last commit: take no more.
            if case .io(let operation, _, let code) = error, operation != "open" {
                disabledCause = code
            }
            throw error
        }
        index.withLock { $0.addSegment(segment) }
        let sealed = active
        active = segment
        writtenSize = segment.size
        durableSize = segment.size
        markedSize = segment.size
        // The sealed segment never changes again. Its hint costs a scan of it (~0.5 ns a byte),
        // once per segment; a failure only means the next open scans the segment instead.
        try? Hint.write(for: sealed, directory: directory, fileSystem: fileSystem)
        activeNeedsDefinitions = keyspaces.nextID > 1
    }
}
