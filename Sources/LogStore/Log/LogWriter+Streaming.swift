/// Writing one commit in pieces (``StreamingCommit``): its frames go to the file as they fill,
/// in the one segment it was begun in, and it is published only when it ends. Memory stays at
/// about one frame buffer whatever the commit's size: publishing reads the records back from the
/// segment instead of keeping them.
extension LogWriter {
    /// A streaming commit in progress.
    struct Stream {
        let sequence: UInt64
        let durability: Durability
        /// The state to return to if it fails or is cancelled.
        let checkpoint: Checkpoint
        /// File offset of its first frame.
        let start: Int
        var output: SegmentOutput
        var frames: CommitFrames
        /// Operations appended so far.
        var operations = 0
        /// Scratch for the put offsets the encoder reports (publishing does not need them).
        var scratch: [UInt32] = []
        /// Puts appended so far, by keyspace number: publishing makes room for them in each
        /// keyspace's table at once, instead of growing it (and holding the old table beside the
        /// new one) on the way.
        var putsPerKeyspace: [Int] = []
    }

    /// Starts a streaming commit; the caller holds the commit queue until it ends.
    /// - Throws: ``LogStoreError/writesDisabled(path:cause:)``, or an I/O error starting a new
    ///   segment.
    func beginStream(durability: Durability, index: borrowing StoreStateLock) throws -> Stream {
        if let cause = disabledCause {
            throw LogStoreError.writesDisabled(path: directory, cause: cause)
        }
        guard index.settleBeforeWriting() else { throw LogStoreError.closed }
        try rollIfNeeded(adding: 0, index: index)
        let checkpoint = checkpoint()
        var output = SegmentOutput(
            file: active.file, fileSystem: fileSystem, offset: active.size,
            capacity: SegmentOutput.flushThreshold + Frame.targetPayload * 2)
        appendMarkIfNeeded(to: &output)
        let start = output.end
        let frames = CommitFrames(sequence: nextSequence, output: &output)
        return Stream(
            sequence: nextSequence, durability: durability, checkpoint: checkpoint, start: start,
            output: output, frames: frames)
    }

    /// Appends `batch`'s operations to the streaming commit. On a throw the caller must
    /// ``abandon(_:after:)`` the stream.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a key, value or keyspace name over
    ///   the limits, or a commit that would outgrow 4 GiB; an I/O error from a write.
    func append(_ batch: WriteBatch, to stream: inout Stream) throws {
        if let problem = batch.invalidity() { throw problem }
        // Record offsets are 32-bit: the whole commit must fit below 4 GiB of its segment.
        guard stream.output.end + batch.encodedSizeBound <= Int(UInt32.max) - (1 << 20) else {
            throw LogStoreError.invalidArgument(
                "a commit of \(stream.output.end - stream.start + batch.encodedSizeBound) bytes "
                    + "starting at offset \(stream.start) of its segment exceeds the limit of 4 GiB"
            )
        }
        let (globalIDs, definitions) = resolveKeyspaces(of: batch)
        try append(
            batch, globalIDs: globalIDs, definitions: definitions, to: &stream.frames,
            output: &stream.output, putOffsets: &stream.scratch)
        stream.scratch.removeAll(keepingCapacity: true)
        stream.operations += batch.count
        for (local, puts) in batch.putsPerKeyspace.enumerated() where puts > 0 {
            let id = globalIDs[local]
            while stream.putsPerKeyspace.count <= id { stream.putsPerKeyspace.append(0) }
            stream.putsPerKeyspace[id] += puts
        }
        writtenSize = stream.output.offset
        reservedSize = max(reservedSize, writtenSize)
    }

    /// Ends the streaming commit: writes its last frame, syncs it (with `.sync`), and publishes
    /// it to `index`. Returns its sequence number. On a throw the caller must
    /// ``abandon(_:after:)`` the stream.
    func finish(_ stream: inout Stream, index: borrowing StoreStateLock) throws -> UInt64 {
        stream.frames.finish(&stream.output)
        try stream.output.flush()
        writtenSize = stream.output.offset
        reservedSize = max(reservedSize, writtenSize)
        if stream.durability == .sync { try sync() }
        let end = stream.output.offset
        let (start, sequence, segment) = (stream.start, stream.sequence, active)
        let putsPerKeyspace = stream.putsPerKeyspace
        index.withLock { state in
            // First: applying checks the records it replaces against the segment's size, and
            // they may be in this commit.
            state.setSize(of: segment, end)
            // Keyspaces the commit defines are defined first (the commit's own definitions then
            // repeat them, which is allowed), so that their tables can be made room in too.
            let defined = putsPerKeyspace.count - 1
            while state.keyspaces.nextID <= defined,
                let name = keyspaces.name(of: state.keyspaces.nextID)
            {
                guard state.define(name, id: state.keyspaces.nextID) else { break }
            }
            for (id, puts) in putsPerKeyspace.enumerated()
            where puts > 1024 && id < state.directories.count && state.indexed[id] {
                state.directories[id].reserve(forPuts: puts)
            }
            // Read back from the segment: the commit's bytes are all there, unchecked but written
            // by this writer, which defined every keyspace they use.
            var scanner = SegmentScanner(
                bytes: UnsafeRawBufferPointer(start: segment.base, count: end))
            // A bulk load's commit is as large as the store: its pages leave memory as they are
            // indexed, not at the end.
            scanner.releaseStride = 4 << 20
            // From the commit's start each time, not from the last release: pages behind come
            // back into this process's mapping during the apply (seen at 10M puts: 370 MB of
            // the segment mapped at the end), so each release drops all that was passed.
            scanner.releasePages = { segment.releasePages(from: start, to: $1) }
            state.applyCommit(&scanner, start: start, end: end, segment: segment)
            state.lastSequence = sequence
        }
        segment.releasePages(from: start, to: end)
        nextSequence += 1
        return sequence
    }

    /// Cuts a failed or cancelled streaming commit off the segment and forgets what it defined.
    func abandon(_ stream: Stream, after error: Error?) -> LogStoreError {
        rollBack(to: stream.checkpoint, after: error ?? LogStoreError.closed)
    }
}
