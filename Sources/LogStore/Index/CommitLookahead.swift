/// A cursor over the records of a commit's frames that runs ahead of the one applying them
/// (``StoreState/applyCommit(_:start:end:segment:)``): each put's table slot, and the record
/// the slot names, are cache misses of their own, so prefetching them a few records ahead lets
/// the misses of many keys overlap, as publishing a written batch does.
///
/// Invariant: the frames between `start` and `end` were checked (checksums, record bounds) by
/// the scanner that found the commit, so decoding cannot fail.
struct CommitLookahead {
    private let bytes: UnsafeRawBufferPointer
    private let end: Int
    private var frame: Int
    private var offset: Int
    private var payloadEnd: Int

    init(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int) {
        self.bytes = bytes
        self.end = end
        frame = start
        offset = start
        payloadEnd = start
    }

    /// Moves to the next record; calls `prefetch` with its keyspace number and key hash if it
    /// is a put. Does nothing past the commit's end.
    @inline(__always)
    mutating func next(_ prefetch: (_ keyspace: Int, _ hash: UInt32) -> Void) {
        while offset >= payloadEnd {
            guard frame < end else { return }
            let header = FrameHeader(bytes, at: frame)
            offset = frame + Frame.headerSize
            payloadEnd = offset + header.length
            frame = payloadEnd
        }
        guard let record = RecordFormat.decode(bytes, at: &offset, end: payloadEnd) else {
            offset = payloadEnd
            return
        }
        if record.op == RecordOp.put {
            prefetch(Int(clamping: record.keyspace), KeyDirectory.hash(record.key))
        }
    }
}
