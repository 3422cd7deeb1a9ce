/// Writes compaction output segments as `.tmp` files: each starts with a header and the
/// keyspace definitions, then frames of copied records (type `full`, the sequence of the last
/// compacted commit). Files are synced when finished; renaming them into place is the caller's.
/// Each file's hint (FORMAT.md, "Hint files") is built as its records are appended, the same
/// bytes ``Hint/build(for:)`` would make by scanning the finished file.
///
/// Not thread-safe: used by the one compaction that runs at a time.
final class CompactionOutput {
    struct File {
        var order: UInt64
        var temporaryPath: String
        var finalPath: String
        var size: Int
        /// The file's hint, complete once the file is finished.
        var hint: [UInt8] = []
    }

    private let directory: String
    private let fileSystem: any FileSystem
    private let segmentSize: Int
    private let sequence: UInt64
    private let definitions: [UInt8]
    private let definitionCount: Int
    // Skips Swift's dynamic exclusivity checks (about 6% of a compaction's time in `append`,
    // once per record): no method reenters another that mutates these.
    @exclusivity(unchecked) private var nextOrder: UInt64
    @exclusivity(unchecked) private(set) var finished: [File] = []
    @exclusivity(unchecked) private var current: (file: OpenFile, info: File, records: Int)?
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    @exclusivity(unchecked) private var frameStart = 0
    /// The current file's hint so far: its entries, and the offset of its last put.
    @exclusivity(unchecked) private var hintEntries = 0
    @exclusivity(unchecked) private var lastPutOffset = 0

    /// - Parameter definitions: encoded `define-keyspace` records for every keyspace
    ///   (`definitionCount` of them).
    init(
        directory: String, fileSystem: any FileSystem, segmentSize: Int, firstOrder: UInt64,
        sequence: UInt64,
        definitions: [UInt8], definitionCount: Int
    ) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.segmentSize = segmentSize
        self.nextOrder = firstOrder
        self.sequence = sequence
        self.definitions = definitions
        self.definitionCount = definitionCount
    }

    /// Copies one put record of `keyspace`; returns the output file's index and the record's
    /// offset in it.
    func append(_ record: UnsafeRawBufferPointer, keyspace: Int) throws -> (
        file: Int, offset: UInt32
    ) {
        if current == nil { try startFile() }
        let payload = buffer.count - frameStart - Frame.headerSize
        if current!.info.size + buffer.count + record.count > segmentSize && current!.records > 0 {
            try finishFile()
            try startFile()
        } else if payload > 0 && payload + record.count > Frame.targetPayload {
            FrameHeader.sealFrame(&buffer, at: frameStart, type: .full)
            if buffer.count >= SegmentOutput.flushThreshold { try flush() }
            frameStart = buffer.count
            FrameHeader.appendPlaceholder(type: .full, sequence: sequence, to: &buffer)
        }
        let offset = current!.info.size + buffer.count
        buffer.append(contentsOf: record)
        current!.records += 1
        Hint.appendEntry(
            op: RecordOp.put, keyspace: UInt64(keyspace), delta: UInt64(offset - lastPutOffset),
            to: &current!.info.hint)
        hintEntries += 1
        lastPutOffset = offset
        return (finished.count, UInt32(offset))
    }

    /// Seals and syncs the last file. A compaction writes at least one file, even when nothing
    /// is live: its frames record the sequence number the state is of (FORMAT.md, "History").
    func finish() throws {
        if current == nil && finished.isEmpty { try startFile() }
        if current != nil { try finishFile() }
    }

    /// Removes every file written (after a failure).
    func abandon() {
        if let current {
            try? fileSystem.close(current.file)
            try? fileSystem.remove(current.info.temporaryPath)
        }
        current = nil
        for file in finished { try? fileSystem.remove(file.temporaryPath) }
    }

    private func startFile() throws {
        let name = Segment.fileName(order: nextOrder)
        let info = File(
            order: nextOrder, temporaryPath: directory + "/" + name + ".tmp",
            finalPath: directory + "/" + name,
            size: 0)
        nextOrder += 1
        let file = try fileSystem.open(info.temporaryPath, create: true, readOnly: false)
        var started = info
        // A hint's definition entries are the definition records themselves.
        started.hint = FileHeader(kind: .hint, fileOrder: info.order).encoded() + definitions
        hintEntries = definitionCount
        lastPutOffset = 0
        current = (file, started, 0)
        try fileSystem.truncate(file, to: 0)
        buffer = FileHeader(kind: .segment, fileOrder: info.order).encoded()
        frameStart = buffer.count
        FrameHeader.appendPlaceholder(type: .full, sequence: sequence, to: &buffer)
        buffer.append(contentsOf: definitions)
    }

    /// Hands the buffer to the OS and has it start writing those bytes to the device at once: the
    /// device then works while the copy goes on, and the sync that finishes the file waits only
    /// for the last of them.
    private func flush() throws {
        guard let file = current?.file, !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes {
            try fileSystem.writeAll(file, $0, at: Int64(current!.info.size))
        }
        fileSystem.startWriteback(file, from: Int64(current!.info.size), length: buffer.count)
        current!.info.size += buffer.count
        buffer.removeAll(keepingCapacity: true)
        frameStart = 0
    }

    private func finishFile() throws {
        FrameHeader.sealFrame(&buffer, at: frameStart, type: .full)  // a frame is always open here
        try flush()
        var (file, info, _) = current!
        try fileSystem.syncData(file)
        try fileSystem.close(file)
        Hint.appendTrailer(
            segmentSize: info.size, lastSequence: sequence, entries: hintEntries, to: &info.hint)
        finished.append(info)
        current = nil
    }
}
