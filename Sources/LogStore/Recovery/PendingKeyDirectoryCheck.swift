/// The checks of a key directory file's tables that open leaves for later (FORMAT.md, "Key
/// directory file"), so that an open costs a few reads whatever the number of keys, and what a
/// failed one leads to: the index rebuilt from hints and segments, as open would have rebuilt it.
///
/// A point read checks only what its probe reads (``checkProbe(hash:entries:in:)``): the CRC of
/// every block it passes, once per block, and each entry on the way as the whole check would
/// (inside a listed segment); a probe longer than the table is a failure, since the count that
/// bounds probes is checked only whole. Once point reads have checked every block of a table,
/// the next read checks that table whole (``checkTable(_:of:)``), which then leaves the check:
/// its bytes have all been read by then, and its later reads check nothing. Everything else
/// checks every table whole first (``checkAll(_:)``, the check open used to make). Held in
/// ``StoreState/pendingCheck`` until then; the tables are not written before it is gone
/// (writes check whole first).
struct PendingKeyDirectoryCheck {
    struct Table {
        var keyspace: KeyDirectoryFile.KeyspaceEntry
        /// By block, whether a point read checked its CRC.
        var checkedBlocks: [Bool]
        /// How many of ``checkedBlocks`` are `false`.
        var uncheckedBlocks: Int
    }

    /// The tables not yet checked, by keyspace number (`nil`: checked, or not mapped). An array,
    /// not a dictionary: every point read asks it while any table is pending, and a hashed
    /// lookup there cost more than the probe's own check.
    private var tables: [Table?] = []
    /// How many of ``tables`` are not `nil`.
    private(set) var pendingTables = 0

    /// The keyspace numbers of the tables not yet checked.
    var uncheckedIDs: [Int] { tables.indices.filter { tables[$0] != nil } }

    /// Keyspace `id`'s table, if it is not yet checked.
    func unchecked(_ id: Int) -> Table? { id < tables.count ? tables[id] : nil }
    /// By place in the file's list, the sizes it records for its segments.
    let segmentSizes: [UInt32]
    /// The store, to rebuild the index if a check fails.
    let path: String
    let options: LogStoreOptions
    /// By segment handle, whether the open's listing had the segment's hint.
    let hasHint: [Bool]

    init(segmentSizes: [UInt32], path: String, options: LogStoreOptions, hasHint: [Bool]) {
        self.segmentSizes = segmentSizes
        self.path = path
        self.options = options
        self.hasHint = hasHint
    }

    mutating func add(_ keyspace: KeyDirectoryFile.KeyspaceEntry, id: Int) {
        if id >= tables.count { tables += repeatElement(nil, count: id + 1 - tables.count) }
        if tables[id] == nil { pendingTables += 1 }
        tables[id] = Table(
            keyspace: keyspace,
            checkedBlocks: [Bool](repeating: false, count: keyspace.blockCRCs.count),
            uncheckedBlocks: keyspace.blockCRCs.count)
    }

    /// Checks what a probe for `hash` reads of keyspace `id`'s table, whose entries are
    /// `entries`: each block's CRC the first time a probe passes it, and each entry on the way.
    /// Returns whether every block of the table has now been checked (then the caller checks
    /// the table whole, ``checkTable(_:of:)``, and its probes are checked no more).
    /// - Throws: ``KeyDirectoryFile/Unusable`` if one fails.
    mutating func checkProbe(
        hash: UInt32, entries: UnsafeBufferPointer<KeyDirectory.Entry>, in id: Int
    ) throws(KeyDirectoryFile.Unusable) -> Bool {
        // The table is changed where it lies (no copy of it, or of its block flags, per probe).
        guard id < tables.count, tables[id] != nil else { return false }
        let stride = MemoryLayout<KeyDirectory.Entry>.stride
        let blockSize = tables[id]!.keyspace.blockSize
        let mask = entries.count - 1
        var slot = Int(hash) & mask
        var steps = 0
        while true {
            // An entry may straddle two blocks.
            let first = slot * stride / blockSize
            let last = (slot * stride + stride - 1) / blockSize
            for block in first...last where !tables[id]!.checkedBlocks[block] {
                try Self.checkBlock(block, of: entries, tables[id]!.keyspace)
                tables[id]!.checkedBlocks[block] = true
                tables[id]!.uncheckedBlocks -= 1
            }
            let entry = entries[slot]
            if entry.isEmpty { break }
            let ref = entry.ref
            guard Int(ref.segment) < segmentSizes.count, ref.offset >= UInt32(FileHeader.size),
                ref.offset < segmentSizes[Int(ref.segment)]
            else {
                throw KeyDirectoryFile.Unusable(
                    reason:
                        "keyspace \"\(tables[id]!.keyspace.name.prefix(40))\" has an entry (slot \(slot)) that points outside the segments: segment \(ref.segment) offset \(ref.offset)"
                )
            }
            steps += 1
            guard steps < entries.count else {
                throw KeyDirectoryFile.Unusable(
                    reason:
                        "keyspace \"\(tables[id]!.keyspace.name.prefix(40))\" has no empty slot"
                )
            }
            slot = (slot + 1) & mask
        }
        return tables[id]!.uncheckedBlocks == 0
    }

    private static func checkBlock(
        _ block: Int, of entries: UnsafeBufferPointer<KeyDirectory.Entry>,
        _ keyspace: KeyDirectoryFile.KeyspaceEntry
    ) throws(KeyDirectoryFile.Unusable) {
        let bytes = UnsafeRawBufferPointer(entries)
        let start = block * keyspace.blockSize
        let end = min(bytes.count, start + keyspace.blockSize)
        guard
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                == keyspace.blockCRCs[block]
        else {
            throw KeyDirectoryFile.Unusable(
                reason: "the table of keyspace \"\(keyspace.name.prefix(40))\" fails its checksum")
        }
    }

    /// Checks keyspace `id`'s table whole, as ``checkAll(_:)`` would, and holds it no longer.
    /// - Throws: ``KeyDirectoryFile/Unusable`` if it fails.
    mutating func checkTable(_ id: Int, of directories: [KeyDirectory])
        throws(KeyDirectoryFile.Unusable)
    {
        guard let table = unchecked(id) else { return }
        try KeyDirectoryFile.checkTable(
            directories[id], of: table.keyspace, segmentSizes: segmentSizes,
            fileSystem: options.fileSystem,
            pieceMiB: options.keyDirectoryCheckPieceMiB)
        tables[id] = nil
        pendingTables -= 1
    }

    /// Checks every table whole, as open used to
    /// (``KeyDirectoryFile/checkTable(_:of:segmentSizes:fileSystem:pieceMiB:)``).
    /// - Throws: ``KeyDirectoryFile/Unusable`` for the first that fails.
    func checkAll(_ directories: [KeyDirectory]) throws(KeyDirectoryFile.Unusable) {
        for (id, table) in tables.enumerated() {
            guard let table else { continue }
            try KeyDirectoryFile.checkTable(
                directories[id], of: table.keyspace, segmentSizes: segmentSizes,
                fileSystem: options.fileSystem,
                pieceMiB: options.keyDirectoryCheckPieceMiB)
        }
    }

    /// The index of `segments` (the open's, in handle order, nothing written since) rebuilt
    /// from their hints and scans, as an open that ignored the file would build it, and
    /// `report` amended to say so; removes the file when writable.
    /// - Throws: ``LogStoreError`` from the replay; ``LogStoreError/corruption(path:offset:reason:)``
    ///   if the rebuild would have to cut or skip bytes of the newest segment, which the writer
    ///   already appends to (an open again does that before any write).
    func rebuild(segments: [Segment], report: RecoveryReport, reason: String) throws -> (
        StoreState, RecoveryReport
    ) {
        var replay = Replay(path: path, options: options)
        replay.report = report
        replay.report.usedKeyDirectory = false
        replay.report.ignoredKeyDirectory = reason
        replay.report.notes.append(
            "ignored the key directory file (\(reason)); rebuilt the index from hints and segments"
                + (options.readOnly ? "" : "; removed it"))
        if !options.readOnly { try? options.fileSystem.remove(KeyDirectoryFile.path(in: path)) }
        let cuts = report.cuts.count
        let skips = report.skipped.count
        for (i, segment) in segments.enumerated() {
            try replay.index(
                segment, newest: i == segments.count - 1,
                hasHint: i < hasHint.count && hasHint[i])
        }
        for segment in segments { segment.releasePages() }
        if replay.report.cuts.count != cuts || replay.report.skipped.count != skips
            || replay.needsNewSegment
        {
            throw LogStoreError.corruption(
                path: segments.last?.path ?? path, offset: 0,
                reason: "the log has damage the key directory file covered")
        }
        return (replay.state, replay.report)
    }
}
