// The body of the `hints` fuzz target (Tests/Fuzz/README.md): shared by the libFuzzer build,
// which compiles it into the LogStore module with -D FUZZING, and by FuzzDecoderCorpusTests, which
// replays the committed corpus on every `swift test`.
#if !FUZZING
    @testable import LogStore
#endif

/// Decodes arbitrary hint-file bytes against a segment (``Hint/apply(_:to:state:)``, as `open`
/// does, and ``Hint/mismatch(_:segment:)``, as `logbook verify` does) and checks the result;
/// returns the broken invariants (empty when all hold). A crash, a trap or an AddressSanitizer
/// report is a finding too.
///
/// Input: `flags: u8, rest`. Flag bit 0 takes the segment from the input: `segmentLength: u16
/// (LE), frames: [segmentLength]u8, hint: rest`, the frames behind a valid header with their CRCs
/// recomputed; otherwise the segment is ``FuzzFixtures/sampleSegment`` and `hint` is all of
/// `rest`. Bit 1 wraps `hint` in a valid hint header and closing CRC (so `hint` is then entries
/// and the first three trailer fields); bit 2, with bit 1, also sets the trailer's segment size to
/// the segment's. Bit 3 first replays the sample segment into the index (handle 0), so the hint
/// meets keyspaces and keys that are already there.
///
/// Invariants: the hint is either refused with ``Hint/Unusable``, leaving the index exactly as it
/// was, or it is applied, and then every entry of the index points at a put record of its
/// keyspace that lies inside its segment, the byte counts add up, and the sequence returned is the
/// trailer's.
func fuzzHints(_ input: [UInt8]) -> [String] {
    guard let flags = input.first else { return [] }
    var rest = input.dropFirst()
    var file = FuzzFixtures.sampleSegment
    if flags & 1 != 0 {
        guard rest.count >= 2 else { return [] }
        let length = min(
            Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8, rest.count - 2)
        rest = rest.dropFirst(2)
        file =
            FileHeader(kind: .segment, fileOrder: FuzzFixtures.order).encoded()
            + rest.prefix(length)
        FuzzFixtures.sealFrames(&file, from: FileHeader.size)
        rest = rest.dropFirst(length)
    }
    var hint = Array(rest)
    if flags & 2 != 0 {
        if flags & 4 != 0 && hint.count >= 24 {
            hint.storeLE(UInt64(file.count), at: hint.count - 24)
        }
        hint = FuzzFixtures.sealHint(hint, order: FuzzFixtures.order)
    }
    var problems: [String] = []
    var state = StoreState()
    if flags & 8 != 0 {
        let sample = FuzzFixtures.segment(FuzzFixtures.sampleSegment)
        state.addSegment(sample)
        var scanner = SegmentScanner(bytes: sample.bytes())
        while case .commit(_, let start, let end) = scanner.next() {
            state.applyCommit(&scanner, start: start, end: end, segment: sample)  // it is valid
        }
    }
    let segment = FuzzFixtures.segment(file, handle: UInt32(state.segments.count))
    state.addSegment(segment)
    let before = IndexSnapshot(state)
    do {
        let sequence = try hint.withUnsafeBytes { try Hint.apply($0, to: segment, state: &state) }
        let trailer = hint.count - Hint.trailerSize
        let stored = hint.withUnsafeBytes { $0.loadLE(at: trailer + 8, as: UInt64.self) }
        if sequence != stored {
            problems.append("Hint.apply returned sequence \(sequence); the trailer says \(stored)")
        }
        problems += FuzzFixtures.indexProblems(state)
    } catch let error as Hint.Unusable {
        if IndexSnapshot(state) != before {
            problems.append("a hint refused (\(error.reason)) changed the index")
        }
    } catch {
        problems.append("Hint.apply threw \(error)")
    }
    return problems
}
