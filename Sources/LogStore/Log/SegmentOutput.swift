/// Bytes on their way to the end of the active segment: appended to a buffer that is handed to
/// the OS in large writes. Knows nothing of frames (``CommitFrames`` packs them).
struct SegmentOutput {
    /// Bytes buffered before they are handed to the OS in one write.
    static let flushThreshold = 1 << 20

    let file: OpenFile
    let fileSystem: any FileSystem
    /// Bytes not yet written.
    var buffer: [UInt8] = []
    /// The file offset of `buffer[0]`: everything before it has been handed to the OS.
    private(set) var offset: Int

    /// Output that appends at file offset `offset`.
    init(file: OpenFile, fileSystem: any FileSystem, offset: Int, capacity: Int) {
        self.file = file
        self.fileSystem = fileSystem
        self.offset = offset
        buffer.reserveCapacity(capacity)
    }

    /// The file offset the next appended byte will have.
    var end: Int { offset + buffer.count }

    /// Hands the buffer to the OS.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``; the file may then hold part of it.
    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try fileSystem.writeAll(file, $0, at: Int64(offset)) }
        offset += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Hands the buffer to the OS once it holds ``flushThreshold`` bytes.
    mutating func flushIfFull() throws {
        if buffer.count >= Self.flushThreshold { try flush() }
    }
}

/// Packs the records of one commit into frames (FORMAT.md, "Commits"): about
/// ``Frame/targetPayload`` bytes of whole records a frame; one frame makes a `full` commit, more
/// make `first`, `middle`…, `last`. A frame's header is filled in when it is sealed, so only
/// sealed frames ever reach the file before the commit ends.
struct CommitFrames {
    let sequence: UInt64
    /// Index in the output's buffer of the open frame's header.
    private var frameStart: Int
    /// Frames sealed so far.
    private var sealed = 0

    /// Opens the commit's first frame at the end of `output`.
    init(sequence: UInt64, output: inout SegmentOutput) {
        self.sequence = sequence
        frameStart = output.buffer.count
        FrameHeader.appendPlaceholder(type: .full, sequence: sequence, to: &output.buffer)
    }

    /// Appends one record; returns the file offset of its first byte. Seals the open frame first
    /// (and hands full stretches to the OS) when the record would take it past the target size.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` from a write.
    @inline(__always)
    mutating func append(
        op: UInt8, keyspace: Int, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?,
        to output: inout SegmentOutput
    ) throws -> Int {
        let size = RecordFormat.encodedSize(
            keyspace: keyspace, keyLength: key.count, valueLength: value?.count)
        let payload = output.buffer.count - frameStart - Frame.headerSize
        if payload > 0 && payload + size > Frame.targetPayload {
            FrameHeader.sealFrame(
                &output.buffer, at: frameStart, type: sealed == 0 ? .first : .middle)
            sealed += 1
            try output.flushIfFull()
            frameStart = output.buffer.count
            FrameHeader.appendPlaceholder(type: .middle, sequence: sequence, to: &output.buffer)
        }
        let offset = output.end
        RecordFormat.append(op: op, keyspace: keyspace, key: key, value: value, to: &output.buffer)
        return offset
    }

    /// Appends a `define-keyspace` record.
    mutating func appendDefinition(keyspace: Int, name: String, to output: inout SegmentOutput)
        throws
    {
        var name = name
        _ = try name.withUTF8 {
            try append(
                op: RecordOp.defineKeyspace, keyspace: keyspace, key: UnsafeRawBufferPointer($0),
                value: nil, to: &output)
        }
    }

    /// Seals the open frame, which ends the commit.
    mutating func finish(_ output: inout SegmentOutput) {
        FrameHeader.sealFrame(&output.buffer, at: frameStart, type: sealed == 0 ? .full : .last)
    }
}
