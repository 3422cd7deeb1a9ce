/// Drops from this process's memory the mapped pages a walk in log order has passed, in steps
/// of ``step`` bytes, so a walk over a large store keeps a few megabytes of the log mapped
/// rather than all of it. The pages stay in the page cache and come back on the next touch, so
/// this changes memory, never what a read sees.
///
/// Not thread-safe: one walk's.
struct WalkPageRelease {
    /// Bytes of a segment (or slots' bytes of a table) passed between two releases.
    static let step = 4 << 20

    /// How far below the end of the last release a release starts again. A fault maps a block
    /// of pages around the page it touches (the kernel's fault-around: 64 KiB, or a whole
    /// large folio of the page cache, up to 2 MiB), so the first fault past a release maps
    /// pages just below it again; without this slack each release would leave such a block
    /// behind, and a walk of a 400 MB segment kept 20 MB of them.
    static let faultAroundSlack = 2 << 20

    /// Where a release that follows one ending at `end` starts.
    @inline(__always)
    static func releaseStart(after end: Int) -> Int { Swift.max(0, end - faultAroundSlack) }

    private let segments: [Segment?]
    private var segment = -1
    private var released = 0
    /// Where the last record read in `segment` starts.
    private var last = 0

    /// A release over the segments of a walk (indexed by handle).
    init(_ segments: [Segment?]) { self.segments = segments }

    /// Notes that the walk reads the record at `ref` next: releases what lies behind it once a
    /// step has passed, and the rest of the previous segment when `ref` is in a later one.
    @inline(__always)
    mutating func reading(_ ref: RecordRef) {
        let handle = Int(ref.segment)
        let offset = Int(ref.offset)
        defer { last = offset }
        if handle != segment {
            finish()
            segment = handle
            released = 0
        } else if offset - released >= Self.step {
            let end = offset & ~4095  // keep the page the record starts on
            segments[handle]?.releasePages(from: Self.releaseStart(after: released), to: end)
            released = end
        }
    }

    /// Releases what the walk passed in its last segment (up to the page after the start of
    /// the last record read: a walk over a small keyspace leaves the rest of the log alone).
    mutating func finish() {
        if segment >= 0 && segment < segments.count, let passed = segments[segment] {
            passed.releasePages(
                from: Self.releaseStart(after: released), to: min(passed.size, last + 8192))
        }
        segment = -1
    }
}
