/// Where a put record starts: the segment's handle and the byte offset of the record's op byte.
struct RecordRef: Equatable {
    var segment: UInt32
    var offset: UInt32
}

/// The mapped segments, by handle: each one's base address (`nil` once a segment is gone) and
/// how many of its bytes may be read (its ``Segment/size``, kept in step by whoever changes it).
///
/// The sizes bound the records that entries of a mapped key directory file point at: such an
/// entry is checked at open only for being inside its segment, so what its record header says
/// is checked when it is read (``StoredRecord/init(checkedAt:end:)``).
struct SegmentBases {
    struct Span {
        var base: UnsafeRawPointer?
        /// Bytes from `base` that may be read.
        var size: Int
    }

    private(set) var spans: [Span] = []

    init() {}

    var count: Int { spans.count }

    subscript(handle: Int) -> UnsafeRawPointer? {
        @inline(__always) get { spans[handle].base }
        set {
            spans[handle].base = newValue
            if newValue == nil { spans[handle].size = 0 }
        }
    }

    /// The segment `handle`'s base and the end of its readable bytes.
    @inline(__always)
    func span(_ handle: Int) -> (base: UnsafeRawPointer, end: UnsafeRawPointer) {
        let span = spans[handle]
        let base = span.base.unsafelyUnwrapped
        return (base, base + span.size)
    }

    mutating func append(_ base: UnsafeRawPointer, size: Int) {
        spans.append(Span(base: base, size: size))
    }

    /// Records that segment `handle` now has `size` readable bytes (a commit grew it, or
    /// recovery cut it); ignored for a handle not added yet.
    mutating func setSize(_ handle: Int, _ size: Int) {
        if handle < spans.count && spans[handle].base != nil { spans[handle].size = size }
    }

    mutating func removeAll() { spans.removeAll() }
}

extension StoredRecord {
    /// The record `ref` points at (trusted: see ``StoredRecord``).
    @inline(__always)
    init(_ bases: SegmentBases, _ ref: RecordRef) {
        self.init(at: bases[Int(ref.segment)].unsafelyUnwrapped + Int(ref.offset))
    }
}
