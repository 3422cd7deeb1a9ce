import Foundation

/// The compaction protocol behind ``LogStore/compact()``.
extension LogStore {
    /// Runs one compaction (FORMAT.md, "Compaction", steps 1–6); the caller holds
    /// `compactionLock`.
    func runCompaction(_ writer: LogWriter, automatic: Bool = false) throws -> CompactionReport {
        let started = Date()
        let fs = options.fileSystem
        // 1. Seal the active segment so everything written so far can be compacted. Its hint
        // is written only if it outlives this compaction (not an input, or the compaction
        // failed): building one costs a scan of the segment.
        let sealedNow = try queue.exclusive { try writer.sealActiveSegment(index: index) }
        var sealedNowConsumed = false
        defer {
            if let sealedNow, !sealedNowConsumed {
                try? Hint.write(for: sealedNow, directory: path, fileSystem: fs)
            }
        }
        // Bytes earlier recoveries cut and kept: their segments are all inputs now.
        let cutFiles = try StoreFiles(storeAt: path, fileSystem: fs).cutFiles
        // The live state, held only until the copy has walked it (see step 4).
        var directories: [KeyDirectory] = []
        let (sealed, bases, definitions, sequence) = try index.withLock {
            state throws(LogStoreError) in
            guard !state.closed else { throw LogStoreError.closed }
            let active = writer.active.handle
            // In replay order (by order, not handle: an earlier compaction's outputs have newer
            // handles than the segments after them), so outputs are named after every input and
            // inputs are removed oldest first.
            let inputs = state.segments.compactMap { $0 }.filter { $0.handle != active }
                .sorted { $0.order < $1.order }
            // One definition for each keyspace id from 1.
            var definitions = (bytes: [UInt8](), count: state.keyspaces.nextID - 1)
            for id in 1..<state.keyspaces.nextID {
                let name = state.keyspaces.name(of: id)!
                RecordFormat.appendDefinition(keyspace: id, name: name, to: &definitions.bytes)
            }
            // The live state and its sequence number are taken together: the outputs hold the
            // state after that commit (FORMAT.md, "History").
            directories = state.directories
            return (inputs, state.bases, definitions, state.lastSequence)
        }
        var plan = try compactionPlan(
            sealed: sealed, bases: bases, live: directories, sequence: sequence,
            automatic: automatic)
        directories = []
        let inputs = plan.inputs
        guard let last = inputs.last else {
            try removeCutFiles(cutFiles)
            return CompactionReport(
                segmentsCompacted: 0, bytesReclaimed: 0, bytesWritten: 0, duration: 0)
        }
        let inputBytes = inputs.reduce(Int64(0)) { $0 + Int64($1.size) }

        // 2. Copy live records into .tmp files, checking liveness against the index in chunks.
        let output = CompactionOutput(
            directory: path, fileSystem: fs, segmentSize: options.segmentSize,
            firstOrder: last.order + 1,
            sequence: plan.sequence, definitions: definitions.bytes,
            definitionCount: definitions.count)
        let handles = Self.handleMarks(of: inputs, count: bases.count)
        // The windows of each keyspace's walk.
        let windows = plan.directories.map {
            $0.count > 0 ? $0.logWindows(bases, window: options.compactionWindow) : []
        }
        let moved: [[RecordRef]]
        do {
            moved = try copyLive(
                from: inputs, handles: handles, directories: plan.directories, windows: windows,
                bases: bases, into: output)
            // Let go, so that step 4 re-points tables no one else holds in place instead of
            // copying each whole.
            plan.directories = []
            try output.finish()
            // 3. Put the new segments in place: rename, then make the renames durable.
            for file in output.finished { try fs.rename(file.temporaryPath, to: file.finalPath) }
            try fs.syncDirectory(path)
        } catch {
            output.abandon()
            throw error
        }

        // 4. Map the new segments and point the index at them, a chunk at a time.
        let outputs = try queue.exclusive {
            try index.withLock { state -> [Segment] in
                var opened: [Segment] = []
                for file in output.finished {
                    let segment = try Segment(
                        directory: path, order: file.order, handle: UInt32(state.segments.count),
                        fileSystem: fs,
                        growing: false)
                    state.addSegment(segment)
                    opened.append(segment)
                }
                return opened
            }
        }
        repointIndex(to: outputs, moved: moved)  // +Repoint.swift
        repointOrder(from: inputs)  // Compaction+Ordered.swift

        // 5. Forget the old segments, then delete their files oldest first (FORMAT.md says why).
        let stray = index.withLock { state -> LogStoreError? in
            state.finishRepointingOrder(from: inputs)
            // Every entry that pointed into an input was live, so it was moved; one that still
            // does was not an entry of its record's key (a damaged key directory file). The
            // inputs then stay mapped and on disk beside the outputs, the state step 3 leaves.
            if let stray = state.referenceInto(inputs) {
                state.keyDirectoryDamaged = true
                return StoreState.damaged(
                    stray.damage, keyspace: state.keyspaces.name(of: stray.keyspace),
                    storePath: path)
            }
            for input in inputs {
                state.segments[Int(input.handle)] = nil
                state.bases[Int(input.handle)] = nil
            }
            return nil
        }
        if let stray { throw stray }
        sealedNowConsumed = inputs.contains { $0 === sealedNow }
        for input in inputs {
            try fs.remove(input.path)
            if fs.kind(of: Hint.path(forSegment: input.path)) == .file {
                try fs.remove(Hint.path(forSegment: input.path))
            }
            // One removal durable at a time: were a newer input's removal to reach the disk and an
            // older one's not, the older one's puts would outlive the newer one's deletes.
            try fs.syncDirectory(path)
        }
        // 6. The kept cut bytes go with the segments they were cut from.
        try removeCutFiles(cutFiles)
        // 7. Hints for the outputs, built as they were written.
        for (segment, file) in zip(outputs, output.finished) {
            try? Hint.write(file.hint, for: segment, directory: path, fileSystem: fs)
        }
        let written = output.finished.reduce(Int64(0)) { $0 + Int64($1.size) }
        let report = CompactionReport(
            segmentsCompacted: inputs.count, bytesReclaimed: inputBytes - written,
            bytesWritten: written,
            duration: Date().timeIntervalSince(started))
        lastCompaction.withLock { $0 = report }
        return report
    }

    /// Removes the cut files (kept bytes of torn tails) named in `names`.
    private func removeCutFiles(_ names: [String]) throws {
        for name in names { try options.fileSystem.remove(path + "/" + name) }
        if !names.isEmpty { try options.fileSystem.syncDirectory(path) }
    }

    /// Live records the copy sorts at once: 8 MiB of scratch (the default of
    /// ``LogStoreOptions/compactionWindow``).
    static let compactionWindow = 1 << 19

    /// By handle (`count` of them), whether the segment is one of `inputs`.
    static func handleMarks(of inputs: [Segment], count: Int) -> [Bool] {
        var marks = [Bool](repeating: false, count: count)
        for input in inputs { marks[Int(input.handle)] = true }
        return marks
    }

    /// Copies the records of `inputs` (marked by handle in `handles`) that `directories` point
    /// at (the live state, or the state history needs) to `output`, keyspace by keyspace, each
    /// in log order (``KeyDirectory/forEachLiveRecord(inSegments:windows:_:)``). Dead records
    /// are never looked at; records overwritten while this runs are copied but left behind at
    /// the swap. A value the store's ``CompactionRewriter`` rewrites is copied with the value it
    /// returns. Returns, by keyspace, where each record copied was, in the order copied (8 bytes a
    /// record): step 4 pairs them with the copies (``repointIndex(to:moved:)``).
    /// - Throws: ``LogStoreError/damagedKeyDirectory(path:reason:)`` if an entry points at no put
    ///   record of its keyspace inside its segment (close then removes the key directory file);
    ///   what writing the outputs throws.
    private func copyLive(
        from inputs: [Segment], handles: [Bool], directories: [KeyDirectory],
        windows: [[Range<UInt64>]], bases: SegmentBases, into output: CompactionOutput
    ) throws -> [[RecordRef]] {
        var byHandle = [Segment?](repeating: nil, count: bases.count)
        for input in inputs { byHandle[Int(input.handle)] = input }
        let rewriter = compactionRewriter.withLock { $0 }
        let names = index.withLock { state in
            directories.indices.map { state.keyspaces.name(of: $0) }
        }
        var rewritten: [UInt8] = []
        var moved = [[RecordRef]](repeating: [], count: directories.count)
        for (keyspace, directory) in directories.enumerated() where directory.count > 0 {
            var copied: [RecordRef] = []
            copied.reserveCapacity(directory.count)
            defer { moved[keyspace] = copied }
            // Prepared once for the keyspace: a record it leaves as it is costs one call.
            let rewrite = names[keyspace].flatMap { rewriter?.preparedRewrite(forKeyspace: $0) }
            // The inputs' pages copied so far leave memory as the copy goes.
            var release = WalkPageRelease(byHandle)
            defer { release.finish() }
            try directory.forEachLiveRecord(inSegments: handles, windows: windows[keyspace]) {
                ref in
                release.reading(ref)
                copied.append(ref)
                // Checked as a read checks it: the directory may be mapped from a key
                // directory file, and what is copied here replaces its input for good.
                let record: StoredRecord
                do throws(KeyDirectory.DamagedEntry) {
                    record = try KeyDirectory.record(at: ref, bases)
                    if record.keyspace != keyspace { throw KeyDirectory.otherKeyspace(ref, record) }
                } catch {
                    throw keyDirectoryDamaged(
                        error, keyspace: index.withLock { $0.keyspaces.name(of: keyspace) })
                }
                if let rewrite, let value = rewrite(record.value) {
                    rewritten.removeAll(keepingCapacity: true)
                    value.withUnsafeBytes {
                        RecordFormat.append(
                            op: RecordOp.put, keyspace: keyspace, key: record.key, value: $0,
                            to: &rewritten)
                    }
                    _ = try rewritten.withUnsafeBytes { try output.append($0, keyspace: keyspace) }
                    return
                }
                _ = try output.append(
                    UnsafeRawBufferPointer(
                        start: bases[Int(ref.segment)]! + Int(ref.offset), count: record.encodedSize
                    ), keyspace: keyspace)
            }
        }
        return moved
    }
}
