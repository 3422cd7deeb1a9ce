/// Where a segment's commits lie in sequence order (FORMAT.md, "History").
extension Segment {
    /// Whether compaction wrote this segment: its order is not a multiple of 2^16 (FORMAT.md,
    /// "Directory layout"). Its frames are not commits but the state of the store as of the one
    /// sequence number they carry.
    var isCompactionOutput: Bool { order & 0xFFFF != 0 }

    /// The sequence numbers of the segment's first and last complete commits (in its first `size`
    /// bytes): `.some(nil)` if it holds none, `nil` if it holds damage (salvage mode kept it).
    /// - Complexity: O(bytes): every frame is checked as replay checks it.
    func commitSpan() -> (first: UInt64, last: UInt64)?? {
        let bytes = self.bytes()
        guard bytes.count > FileHeader.size else { return .some(nil) }
        var scanner = SegmentScanner(bytes: bytes)
        var span: (first: UInt64, last: UInt64)?
        while let event = scanner.next() {
            switch event {
            case .commit(let sequence, _, _): span = (span?.first ?? sequence, sequence)
            case .damage: return nil
            }
        }
        return .some(span)
    }

    /// The sequence number of the segment's first complete commit, or `nil` if it holds none.
    /// - Complexity: O(bytes of that commit).
    func firstCommitSequence() -> UInt64? {
        let bytes = self.bytes()
        guard bytes.count > FileHeader.size else { return nil }
        var scanner = SegmentScanner(bytes: bytes)
        guard case .commit(let sequence, _, _) = scanner.next() else { return nil }
        return sequence
    }
}
