/// Where a put record starts: the segment's handle and the byte offset of the record's op byte.
struct RecordRef: Equatable {
    var segment: UInt32
    var offset: UInt32
}

/// Base addresses of the mapped segments, by handle (`nil` once a segment is gone).
typealias SegmentBases = [UnsafeRawPointer?]

extension StoredRecord {
    /// The record `ref` points at.
    @inline(__always)
    init(_ bases: SegmentBases, _ ref: RecordRef) {
        self.init(at: bases[Int(ref.segment)].unsafelyUnwrapped + Int(ref.offset))
    }
}
