import Foundation
import Synchronization
import TestSupport
import Testing

@testable import LogStore

/// A reader without the lock reads the newest segment while its writer appends to it: it may
/// copy a commit half written, then, further on, the sync mark the writer appended once that
/// commit was whole. The mark vouches for the commit, so read once it is damage no torn write
/// explains; read again it is whole. The reader must stop at the last commit it read whole and
/// read again, never report corruption (FORMAT.md, "Readers in other processes").
@Suite struct ReaderWriteRaceTests {
    /// The reader's `pread` of the segment's new bytes returns commit `b` with its last bytes
    /// not yet written, `times` times, and the bytes after it (the mark vouching for `b`, then
    /// commit `c`) as written. Returns the reader's refresh and what it then holds.
    private func refreshWhileBIsHalfRead(times: Int) throws -> (
        Result<RefreshReport, any Error>, [String: [UInt8]]
    ) {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 1 << 20
        options.autoCompactionDeadFraction = nil
        let writer = try LogStore(path: dir.child("s"), options: options)
        defer { try? writer.close() }
        try writer.put(Array("A".utf8), for: Array("a".utf8), in: "k")
        let segment = segmentFiles(dir.child("s")).last!
        let torn = Torn()
        var readerOptions = options
        readerOptions.readOnly = true
        readerOptions.fileSystem = HookedFileSystem(afterRead: { file, offset, bytes in
            torn.apply(file, offset, bytes)
        })
        let reader = try LogStore(path: dir.child("s"), options: readerOptions)
        defer { try? reader.close() }
        // `.sync` commits: a mark before each after the first, recording the segment durable
        // up to the end of the commit before it.
        try writer.put([UInt8](repeating: 66, count: 200), for: Array("b".utf8), in: "k")
        let endOfB = readFile(segment).count
        try writer.put(Array("C".utf8), for: Array("c".utf8), in: "k")
        #expect(readFile(segment).count > endOfB)
        torn.arm(path: segment, offset: endOfB - 2, times: times)
        let result = Result { try reader.refresh() }
        #expect(torn.hits >= 1, "the reader read commit b")
        return (result, try CommitHistory.contents(of: reader))
    }

    @Test func aCommitReadWhileItWasWrittenIsReadAgain() throws {
        let (result, contents) = try refreshWhileBIsHalfRead(times: 1)
        let report = try result.get()
        #expect(report.commits == 2)
        #expect(contents["b"] == [UInt8](repeating: 66, count: 200))
        #expect(contents["c"] == Array("C".utf8))
    }

    /// The rule `open` and `verify` apply to a mapped segment, whose bytes a second look reads
    /// again: damage a mark vouches for is a write the reader raced when the commit is whole on
    /// the second look, and corruption when it is not.
    @Test func aMarkVouchesForDamageOnlyIfItIsStillThereWhenReadAgain() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 1 << 20
        let writer = try LogStore(path: dir.child("s"), options: options)
        try writer.put(Array("A".utf8), for: Array("a".utf8), in: "k")
        try writer.put([UInt8](repeating: 66, count: 200), for: Array("b".utf8), in: "k")
        let segment = segmentFiles(dir.child("s")).last!
        let endOfB = readFile(segment).count
        try writer.put(Array("C".utf8), for: Array("c".utf8), in: "k")
        try writer.close()
        var bytes = readFile(segment)
        let written = bytes[endOfB - 2]
        bytes[endOfB - 2] = 0  // commit b as a reader copied it mid-write
        try bytes.withUnsafeMutableBytes { buffer in
            var scanner = SegmentScanner(bytes: UnsafeRawBufferPointer(buffer))
            var damage: SegmentScanner.Damage?
            while let event = scanner.next() {
                if case .damage(let found) = event {
                    damage = found
                    break
                }
            }
            let found = try #require(damage)
            #expect(!scanner.isTornWrite(found), "the mark after commit b vouches for it")
            #expect(RecoveryRules.classify(found, in: scanner, newest: true) == .corruption)
            buffer[endOfB - 2] = written  // the writer finished it before writing the mark
            #expect(RecoveryRules.classify(found, in: scanner, newest: true) == .writtenSinceRead)
            #expect(RecoveryRules.classify(found, in: scanner, newest: false) == .corruption)
        }
    }

    /// Bytes a mark vouches for that are still damaged when read again are corruption.
    @Test func aCommitDamagedOnEveryReadIsCorruption() throws {
        let (result, contents) = try refreshWhileBIsHalfRead(times: .max)
        #expect(throws: LogStoreError.self) { try result.get() }
        #expect(contents["b"] == nil)
    }
}

/// Zeroes the byte at `offset` of the file at `path` in what reads return, `times` times.
private final class Torn: Sendable {
    private let state = Mutex<(path: String, offset: Int64, remaining: Int, hits: Int)>(
        ("", 0, 0, 0))

    func arm(path: String, offset: Int, times: Int) {
        state.withLock { $0 = (path, Int64(offset), times, 0) }
    }

    /// How many reads it changed.
    var hits: Int { state.withLock { $0.hits } }

    func apply(_ file: OpenFile, _ offset: Int64, _ bytes: UnsafeMutableRawBufferPointer) {
        state.withLock { state in
            guard state.remaining > 0, file.path == state.path, offset <= state.offset,
                state.offset < offset + Int64(bytes.count)
            else { return }
            bytes[Int(state.offset - offset)] = 0
            state.remaining -= 1
            state.hits += 1
        }
    }
}
