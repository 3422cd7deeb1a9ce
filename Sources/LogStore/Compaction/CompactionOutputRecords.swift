/// The records a compaction copied, read back from its output segments in the order they were
/// written (FORMAT.md, "Compaction": each output is a header, then `full` frames whose first
/// holds the keyspace definitions, then the copied records). Re-pointing the index (step 4)
/// pairs them with where the copy found each record (8 bytes a record), instead of keeping
/// where each went as well (8 more).
///
/// The outputs were written, synced and renamed by this compaction, and are read with the
/// trusted decoder. Pages it has passed are dropped from memory as it goes. Not thread-safe.
struct CompactionOutputRecords {
    private let outputs: [Segment]
    private var file = 0
    /// Where the next record (or frame header, at `frameEnd`) starts in `outputs[file]`.
    private var position = FileHeader.size
    private var frameEnd = FileHeader.size
    private var released = 0

    init(_ outputs: [Segment]) { self.outputs = outputs }

    /// The next copied record (definitions are passed over): its reference, by the output's
    /// handle, and the record; `nil` after the last.
    mutating func next() -> (RecordRef, StoredRecord)? {
        while file < outputs.count {
            let segment = outputs[file]
            let bytes = segment.bytes()
            if position < frameEnd {
                let record = StoredRecord(at: bytes.baseAddress! + position)
                let ref = RecordRef(segment: segment.handle, offset: UInt32(position))
                position += record.encodedSize
                if record.op == RecordOp.defineKeyspace { continue }
                if position - released >= WalkPageRelease.step {
                    segment.releasePages(
                        from: WalkPageRelease.releaseStart(after: released), to: Int(ref.offset))
                    released = Int(ref.offset) & ~4095
                }
                return (ref, record)
            }
            if frameEnd + Frame.headerSize <= segment.size {
                let header = FrameHeader(bytes, at: frameEnd)
                position = frameEnd + Frame.headerSize
                frameEnd = position + header.length
                continue
            }
            segment.releasePages()
            file += 1
            (position, frameEnd, released) = (FileHeader.size, FileHeader.size, 0)
        }
        return nil
    }
}
