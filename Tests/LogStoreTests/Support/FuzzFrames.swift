// The body of the `frames` fuzz target (Tests/Fuzz/README.md): shared by the libFuzzer build,
// which compiles it into the LogStore module with -D FUZZING, and by FuzzDecoderCorpusTests, which
// replays the committed corpus on every `swift test`.
#if !FUZZING
    @testable import LogStore
#endif

/// Runs the frame decoder (``SegmentScanner``) over arbitrary segment bytes and checks what it
/// reports; returns the broken invariants (empty when all hold). A crash, a trap or an
/// AddressSanitizer report is a finding too.
///
/// Input: `mode: u8, rest`. Mode bit 0 puts a valid segment header before `rest` (otherwise `rest`
/// is the whole file, header included); bit 1 recomputes the CRC of every frame whose length fits,
/// so the fuzzer reaches types, sequences and records. The other bits are ignored.
///
/// Invariants: the header decodes or throws a ``LogStoreError``; every commit and damage report
/// lies inside the file, and the scan always moves forward (resuming after damage as salvage
/// does); every frame of a reported commit passes its checks, has the commit's sequence, and
/// re-encodes to the same bytes; its records tile the payloads, lie inside them, respect the
/// limits, agree with a canonical re-encode and with ``StoredRecord``'s trusting decoder; a scan
/// without damage means ``Segment/checksumsMatch(fileSystem:)``; a hint is built exactly when
/// there is no damage, and applying it gives the same index as replaying the commits.
func fuzzFrames(_ input: [UInt8]) -> [String] {
    guard let mode = input.first else { return [] }
    var file = Array(input.dropFirst())
    if mode & 1 != 0 {
        file = FileHeader(kind: .segment, fileOrder: FuzzFixtures.order).encoded() + file
    }
    if mode & 2 != 0 { FuzzFixtures.sealFrames(&file, from: FileHeader.size) }
    let check = FrameChecker(file)
    check.run()
    return check.problems
}

private final class FrameChecker {
    let file: [UInt8]
    let segment: Segment
    /// The segment's bytes: an allocation of exactly the file's size (see ``ByteFileSystem``).
    let bytes: UnsafeRawBufferPointer
    var problems: [String] = []
    var commits: [(sequence: UInt64, start: Int, end: Int)] = []
    /// Where the scan found the segment's zero tail (version 3 on): its frames end there, as
    /// every reader sets the segment's size to.
    var zeroTail: Int?

    init(_ file: [UInt8]) {
        self.file = file
        segment = FuzzFixtures.segment(file)
        bytes = segment.bytes()
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { problems.append(message()) }
    }

    func run() {
        do {
            _ = try FileHeader.decode(bytes, kind: .segment, path: segment.path)
        } catch {
            expect(error is LogStoreError, "header decoding threw \(error)")
        }
        let clean = scan()
        if let zeroTail { segment.size = zeroTail }
        let files = ByteFileSystem(files: [segment.path: file])
        let matches = ((try? segment.checkedRecordBytes(fileSystem: files)) ?? nil) != nil
        if clean { expect(matches, "a scan without damage, but checkedRecordBytes is nil") }
        compareHintWithReplay(clean: clean)
    }

    /// Scans the whole segment, resuming after damage; returns whether there was none.
    func scan() -> Bool {
        var scanner = SegmentScanner(bytes: bytes)
        var clean = true
        while true {
            let at = scanner.position
            guard let event = scanner.next() else {
                if let start = scanner.zeroTailStart {
                    expect(
                        start >= FileHeader.size && start < bytes.count && marksOnly(at, start)
                            && ZeroTail.isZero(bytes, from: start)
                            && bytes.loadLE(at: 8, as: UInt16.self) >= ZeroTail.firstVersion,
                        "a zero tail at \(start) after a scan at \(at)")
                    zeroTail = start
                }
                break
            }
            switch event {
            case .commit(let sequence, let start, let end):
                expect(marksOnly(at, start), "commit at \(start), but the scan was at \(at)")
                expect(
                    start >= FileHeader.size && start + Frame.headerSize <= end
                        && end <= bytes.count,
                    "commit \(start)..<\(end) is outside the \(bytes.count)-byte file")
                expect(
                    scanner.position == end,
                    "after a commit ending at \(end) the scan is at \(scanner.position)")
                expect(
                    sequence < Frame.sequenceLimit, "commit sequence \(sequence) is not below 2^63")
                guard problems.isEmpty else { return false }
                commits.append((sequence, start, end))
                checkCommit(scanner, sequence: sequence, start: start, end: end)
            case .damage(let damage):
                clean = false
                let (commitStart, offset, checksummed) =
                    (damage.commitStart, damage.offset, damage.checksummed)
                expect(
                    marksOnly(at, commitStart) && offset >= commitStart && offset <= bytes.count
                        && scanner.position == commitStart,
                    "damage at \(offset) of a commit at \(commitStart): the scan was at \(at)")
                let torn = scanner.isTornWrite(damage)
                expect(!(torn && checksummed), "checksummed damage at \(offset) taken as torn")
                guard let resume = scanner.findNextFrame(from: damage.resumeSearch) else {
                    return false
                }
                var passes = false
                if case .success = scanner.checkFrame(at: resume) { passes = true }
                expect(
                    resume >= damage.resumeSearch && resume > commitStart
                        && resume + Frame.headerSize <= bytes.count && passes,
                    "resumed at \(resume) after damage at \(offset)")
                guard problems.isEmpty else { return false }
                scanner.position = resume
            }
        }
        return clean
    }

    /// Whether `from..<to` holds nothing but whole, intact sync marks (what a scan passes over).
    func marksOnly(_ from: Int, _ to: Int) -> Bool {
        guard to >= from, (to - from) % SyncMark.frameSize == 0 else { return false }
        let scanner = SegmentScanner(bytes: bytes)
        return stride(from: from, to: to, by: SyncMark.frameSize).allSatisfy {
            if case .success(let header) = scanner.checkFrame(at: $0) {
                header.type == .mark
            } else {
                false
            }
        }
    }

    func checkCommit(_ scanner: SegmentScanner, sequence: UInt64, start: Int, end: Int) {
        var scanner = scanner
        var frame = start
        var payloadBytes = 0
        while frame < end {
            switch scanner.checkFrame(at: frame) {
            case .failure(let problem):
                problems.append("frame \(frame) of the commit at \(start) fails: \(problem.reason)")
                return
            case .success(let header):
                let frameEnd = frame + Frame.headerSize + header.length
                expect(header.sequence == sequence, "frame \(frame) has another sequence")
                expect(header.length <= Frame.maxPayload, "frame \(frame) is over the limit")
                expect(frameEnd <= end, "frame \(frame) runs past its commit's end \(end)")
                guard problems.isEmpty, let type = header.type else { return }
                var again: [UInt8] = []
                FrameHeader.appendPlaceholder(type: type, sequence: header.sequence, to: &again)
                again += bytes[(frame + Frame.headerSize)..<frameEnd]
                FrameHeader.sealFrame(&again, at: 0, type: type)
                expect(
                    again.elementsEqual(bytes[frame..<frameEnd]),
                    "frame \(frame) re-encodes differently")
                payloadBytes += header.length
                frame = frameEnd
            }
        }
        var recordBytes = 0
        var previousEnd = start
        scanner.forEachRecord(start: start, end: end) { record in
            recordBytes += record.encodedSize
            checkRecord(record, after: previousEnd, commitEnd: end)
            previousEnd = record.recordOffset + record.encodedSize
        }
        expect(
            recordBytes == payloadBytes,
            "records of the commit at \(start) take \(recordBytes) of \(payloadBytes) payload bytes"
        )
    }

    func checkRecord(_ record: RecordView, after previousEnd: Int, commitEnd: Int) {
        let start = record.recordOffset
        let end = start + record.encodedSize
        let base = bytes.baseAddress!
        func inside(_ buffer: UnsafeRawBufferPointer?) -> Bool {
            guard let buffer, buffer.count > 0 else { return true }
            let offset = buffer.baseAddress! - base
            return offset > start && offset + buffer.count <= end
        }
        expect(start >= previousEnd && end <= commitEnd, "record \(start)..<\(end) is out of place")
        expect(inside(record.key) && inside(record.value), "record \(start) points outside itself")
        expect(
            (record.value != nil) == (record.op == RecordOp.put),
            "record \(start): value of a non-put")
        let keyLimit =
            record.op == RecordOp.defineKeyspace ? KeyspaceTable.maxNameLength : Frame.maxKeyLength
        expect(record.key.count <= keyLimit, "record \(start): key over the limit")
        expect(
            (record.value?.count ?? 0) <= Frame.maxValueLength,
            "record \(start): value over the limit")
        guard problems.isEmpty else { return }
        // A canonical re-encode (shortest varints) decodes to the same record.
        let canonical = FuzzFixtures.record(
            record.op, keyspace: record.keyspace, key: Array(record.key),
            value: record.value.map { Array($0) })
        let same = canonical.withUnsafeBytes { raw -> Bool in
            var offset = 0
            guard let again = RecordFormat.decode(raw, at: &offset, end: raw.count) else {
                return false
            }
            return again.op == record.op && again.keyspace == record.keyspace
                && again.key.elementsEqual(record.key)
                && again.value.map { Array($0) } == record.value.map { Array($0) }
                && offset == raw.count && canonical.count <= record.encodedSize
        }
        expect(same, "record \(start) does not survive a re-encode")
        if record.op == RecordOp.put {
            var bases = SegmentBases()
            bases.append(bytes.baseAddress!, size: bytes.count)
            let stored = StoredRecord(bases, RecordRef(segment: 0, offset: UInt32(start)))
            let checked = StoredRecord(
                checkedAt: bytes.baseAddress! + start, end: bytes.baseAddress! + bytes.count)
            expect(
                checked?.key.baseAddress == record.key.baseAddress
                    && checked?.encodedSize == record.encodedSize,
                "the checked decoder reads the put at \(start) differently")
            expect(
                stored.key.baseAddress == record.key.baseAddress
                    && stored.key.count == record.key.count
                    && stored.value.count == record.value!.count
                    && stored.encodedSize == record.encodedSize,
                "StoredRecord reads the put at \(start) differently")
        }
    }

    /// Replays the commits into one index and applies the segment's hint to another: a hint exists
    /// exactly when the scan found no damage, open accepts it, and it gives the same index.
    func compareHintWithReplay(clean: Bool) {
        let hint = Hint.build(for: segment)
        expect(
            (hint != nil) == clean,
            "Hint.build gave \(hint == nil ? "no hint" : "a hint") for a segment "
                + (clean ? "without damage" : "with damage"))
        guard let hint else { return }
        var replayed = StoreState()
        replayed.addSegment(FuzzFixtures.segment(file))
        let replaySegment = replayed.segments[0]!
        if let zeroTail { replayed.setSize(of: replaySegment, zeroTail) }
        // The scan checked every record's keyspace: replaying its commits cannot fail.
        var replayScanner = SegmentScanner(bytes: replaySegment.bytes())
        for commit in commits {
            replayed.applyCommit(
                &replayScanner, start: commit.start, end: commit.end, segment: replaySegment)
            replayed.lastSequence = max(replayed.lastSequence, commit.sequence)
        }
        var hinted = StoreState()
        let hintedSegment = FuzzFixtures.segment(file)
        hinted.addSegment(hintedSegment)
        if let zeroTail { hinted.setSize(of: hintedSegment, zeroTail) }
        var hintError: Error?
        do {
            let sequence = try hint.withUnsafeBytes {
                try Hint.apply($0, to: hintedSegment, state: &hinted)
            }
            hinted.lastSequence = sequence
        } catch {
            hintError = error
            expect(error is Hint.Unusable, "Hint.apply threw \(error)")
        }
        // A segment a scan finds clean has a hint that open accepts.
        expect(hintError == nil, "its hint: \(hintError.map { "\($0)" } ?? "ok")")
        problems += FuzzFixtures.indexProblems(replayed)
        if hintError == nil {
            expect(
                IndexSnapshot(replayed) == IndexSnapshot(hinted)
                    && replayed.lastSequence == hinted.lastSequence,
                "the segment's hint gives another index than replaying it")
        }
    }
}
