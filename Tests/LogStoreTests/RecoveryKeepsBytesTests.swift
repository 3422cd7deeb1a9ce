import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Recovery never destroys bytes it cannot prove were never acknowledged (issue 16): what it
/// cannot classify as a torn write is corruption and stays on disk; what it cuts is kept aside in
/// a cut file named in the report; salvage moves an unreadable file aside instead of rewriting it.
@Suite struct RecoveryKeepsBytesTests {
    private func open(_ path: String, salvage: Bool = false, readOnly: Bool = false) throws
        -> LogStore
    {
        var options = LogStoreOptions()
        options.salvage = salvage
        options.readOnly = readOnly
        options.autoCompactionDeadFraction = nil
        return try LogStore(path: path, options: options)
    }

    private func randomBytes(_ count: Int, seed: String) -> [UInt8] {
        var rng = SeededGenerator(seed: testSeed(seed))
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    /// Opening fails with corruption at `offset` of `file`, and `file` still holds `bytes`.
    private func expectCorruption(
        _ path: String, file: String, at offset: Int64, keeping bytes: [UInt8],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try open(path)
            Issue.record("open succeeded on a damaged store", sourceLocation: sourceLocation)
        } catch let LogStoreError.corruption(found, foundOffset, _) {
            #expect(found == file, sourceLocation: sourceLocation)
            #expect(foundOffset == offset, sourceLocation: sourceLocation)
        } catch {
            Issue.record("wrong error: \(error)", sourceLocation: sourceLocation)
        }
        #expect(readFile(file) == bytes, "the damaged file changed", sourceLocation: sourceLocation)
        // verify names the same file and offset as its first damage.
        let report = try? LogInspector.verify(storeAt: path)
        let first = report?.problems.first { $0.isDamage }
        #expect(first?.path == file, sourceLocation: sourceLocation)
        #expect(first?.offset == offset, sourceLocation: sourceLocation)
    }

    /// The name the next segment after the store's newest gets.
    private func nextSegment(after path: String) -> String {
        let newest = URL(fileURLWithPath: segmentFiles(path).last!).lastPathComponent
        let order = UInt64(newest.prefix(16), radix: 16)! + (1 << 16)
        let digits = String(order, radix: 16)
        return path + "/" + String(repeating: "0", count: 16 - digits.count) + digits + ".seg"
    }

    /// A file overwritten or mis-copied into the newest segment's place: 4 KiB of random bytes
    /// cannot be a torn creation (a new segment's header is synced before anything follows it).
    @Test func randomNewestSegmentIsCorruptionAndItsBytesStay() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 3)
        let random = randomBytes(4096, seed: "random newest segment")
        let file = nextSegment(after: history.path)
        writeFile(file, random)
        chmod(file, 0o644)
        expectCorruption(history.path, file: file, at: 0, keeping: random)
        #expect(mode(file) == 0o644)

        // Salvage moves it aside, whole, and writes into a new segment after it.
        let salvaged = try open(history.path, salvage: true)
        #expect(salvaged.recovery.movedAside == [file + ".damaged"])
        #expect(readFile(file + ".damaged") == random)
        #expect(try CommitHistory.contents(of: salvaged) == history.states[3])
        try salvaged.put(b("v"), for: b("after"), in: "k")
        try salvaged.close()
        #expect(!FileManager.default.fileExists(atPath: file))
        let names = try StoreFiles(storeAt: history.path).segments.map(\.name)
        #expect(names.last! > URL(fileURLWithPath: file).lastPathComponent)
        // A plain open now works; verify lists the file set aside.
        let reopened = try open(history.path)
        #expect(reopened.recovery.isClean)
        #expect(try reopened.get(b("after"), in: "k") == b("v"))
        try reopened.close()
        let report = try LogInspector.verify(storeAt: history.path)
        #expect(!report.isDamaged)
        #expect(report.problems.map(\.kind) == [.leftoverFile])
    }

    @Test func randomSealedSegmentIsCorruptionAndItsBytesStay() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.segmentSize = 1024
        let store = try LogStore(path: path, options: options)
        for i in 0..<60 { try store.put([UInt8](repeating: 7, count: 50), for: b("\(i)"), in: "k") }
        try store.close()
        let sealed = segmentFiles(path)[1]
        let random = randomBytes(4096, seed: "random sealed segment")
        writeFile(sealed, random)
        expectCorruption(path, file: sealed, at: 0, keeping: random)
        let salvaged = try open(path, salvage: true)
        #expect(salvaged.recovery.movedAside == [sealed + ".damaged"])
        #expect(readFile(sealed + ".damaged") == random)
    }

    /// A bit flip in the header of a newest segment that holds commits: the header was synced
    /// before them, so it is damage, not a torn creation, and nothing is rewritten.
    @Test(arguments: [0, 13, 21])
    func flippedHeaderByteIsCorruptionAndTheSegmentStays(_ offset: Int) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 3)
        var bytes = readFile(history.newestSegment)
        bytes[offset] ^= 0x04
        writeFile(history.newestSegment, bytes)
        expectCorruption(
            history.path, file: history.newestSegment, at: offset == 0 ? 0 : 20, keeping: bytes)
    }

    /// The header's CRC is checked before its version: a flipped version byte (2 → 3) is
    /// corruption, not a store of a newer version.
    @Test func flippedVersionByteIsCorruptionNotUnsupportedVersion() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 3)
        var bytes = readFile(history.newestSegment)
        bytes[8] ^= 0x01
        writeFile(history.newestSegment, bytes)
        expectCorruption(history.path, file: history.newestSegment, at: 20, keeping: bytes)
    }

    /// Every cut keeps the cut bytes, exactly, in a cut file the report names.
    @Test func tornTailIsKeptInACutFileNamedInTheReport() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        history.removeCloseMark()
        var bytes = readFile(history.newestSegment)
        bytes[history.sizes[5] - 3] ^= 0x40
        writeFile(history.newestSegment, bytes)
        let store = try open(history.path)
        let cut = try #require(store.recovery.cuts.first)
        #expect(store.recovery.cuts.count == 1)
        #expect(cut.path == history.newestSegment)
        #expect(cut.offset == Int64(history.sizes[4]))
        #expect(cut.length == Int64(history.sizes[5] - history.sizes[4]))
        let kept = try #require(cut.keptIn)
        #expect(readFile(kept) == Array(bytes[history.sizes[4]...]))
        #expect(readFile(history.newestSegment) == Array(bytes[..<history.sizes[4]]))
        #expect(kept.hasSuffix(".cut"))
        try store.close()
        // Reopening finds nothing to cut; verify lists the kept bytes, and discarding removes them.
        let reopened = try open(history.path)
        #expect(reopened.recovery.isClean)
        try reopened.close()
        let report = try LogInspector.verify(storeAt: history.path)
        #expect(report.problems.map(\.kind) == [.cutBytes])
        #expect(try LogInspector.discardCutFiles(storeAt: history.path) == [kept])
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(try LogInspector.verify(storeAt: history.path).problems.isEmpty)
    }

    @Test func compactionRemovesCutFiles() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        let bytes = readFile(history.newestSegment)
        writeFile(history.newestSegment, Array(bytes[..<(history.sizes[5] - 4)]))
        let store = try open(history.path)
        let kept = try #require(store.recovery.cuts.first?.keptIn)
        #expect(FileManager.default.fileExists(atPath: kept))
        try store.compact()
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(try StoreFiles(storeAt: history.path).cutFiles.isEmpty)
        #expect(try CommitHistory.contents(of: store) == history.states[4])
    }

    /// A crash between keeping the cut bytes and truncating: the next open finds the same tail
    /// and the cut file that already holds it, and makes no second copy.
    @Test func aCutInterruptedBeforeItsTruncationKeepsOneCopy() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 5)
        let torn = Array(readFile(history.newestSegment)[..<(history.sizes[5] - 4)])
        writeFile(history.newestSegment, torn)
        let copy = dir.child("copy")
        try FileManager.default.copyItem(atPath: history.path, toPath: copy)
        let store = try open(history.path)
        let kept = try #require(store.recovery.cuts.first?.keptIn)
        try store.close()
        // The copy: the cut file made, the segment not yet truncated.
        let name = URL(fileURLWithPath: kept).lastPathComponent
        writeFile(copy + "/" + name, readFile(kept))
        let again = try open(copy)
        #expect(again.recovery.cuts.first?.keptIn == copy + "/" + name)
        #expect(try StoreFiles(storeAt: copy).cutFiles == [name])
    }

    /// A newest segment shorter than its header is a torn creation: its bytes are kept too, and
    /// the header recovery writes is owner-only.
    @Test func tornCreationKeepsItsBytesAndIsRewrittenOwnerOnly() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 2)
        let file = nextSegment(after: history.path)
        let partial = Array(readFile(history.newestSegment).prefix(10))
        writeFile(file, partial)
        chmod(file, 0o644)
        let store = try open(history.path)
        #expect(store.recovery.droppedTailBytes == 10)
        #expect(readFile(try #require(store.recovery.cuts.first?.keptIn)) == partial)
        #expect(readFile(file).count == 24)
        #expect(mode(file) == 0o600)
        #expect(try CommitHistory.contents(of: store) == history.states[2])
    }

    @Test func segmentRecoveryCutsBecomesOwnerOnly() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 3)
        let bytes = readFile(history.newestSegment)
        writeFile(history.newestSegment, Array(bytes[..<(history.sizes[3] - 2)]))
        chmod(history.newestSegment, 0o644)
        let store = try open(history.path)
        #expect(store.recovery.droppedTailBytes > 0)
        #expect(mode(history.newestSegment) == 0o600)
    }

    /// A read-only open cuts nothing and keeps nothing: it only hides the torn tail.
    @Test func readOnlyOpenWritesNoCutFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 3)
        let torn = Array(readFile(history.newestSegment)[..<(history.sizes[3] - 2)])
        writeFile(history.newestSegment, torn)
        let store = try open(history.path, readOnly: true)
        #expect(store.recovery.cuts.first?.keptIn == nil)
        #expect(store.recovery.droppedTailBytes > 0)
        #expect(try StoreFiles(storeAt: history.path).cutFiles.isEmpty)
        #expect(readFile(history.newestSegment) == torn)
    }

    /// On a full file system the torn tail is cut without a cut file: a store that filled its
    /// disk still opens for writing, with every acknowledged commit (issue 40: a real `ENOSPC`
    /// left reopening impossible).
    @Test(arguments: [ENOSPC, EDQUOT])
    func aFullFileSystemCutsTheTornTailWithoutKeepingIt(code: Int32) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let history = try CommitHistory(path: dir.child("s"), commits: 3)
        let torn = Array(readFile(history.newestSegment)[..<(history.sizes[3] - 2)])
        writeFile(history.newestSegment, torn)
        let fs = FaultInjectingFileSystem()
        fs.inject(.error(code), on: "write", pathSuffix: ".cut.tmp", times: 10)
        var options = LogStoreOptions()
        options.fileSystem = fs
        options.autoCompactionDeadFraction = nil
        let store = try LogStore(path: history.path, options: options)
        let cut = try #require(store.recovery.cuts.first)
        #expect(cut.keptIn == nil)
        #expect(cut.offset == Int64(history.sizes[2]))
        #expect(store.recovery.notes.contains { $0.contains("not kept: no space left") })
        #expect(try StoreFiles(storeAt: history.path).cutFiles.isEmpty)
        #expect(try StoreFiles(storeAt: history.path).temporaryFiles.isEmpty)
        #expect(readFile(history.newestSegment) == Array(torn[..<history.sizes[2]]))
        try store.put([7], for: [7], in: "after")
        try store.close()
        // Any other failure to keep the bytes still refuses the open and cuts nothing.
        let again = try CommitHistory(path: dir.child("t"), commits: 3)
        let tornAgain = Array(readFile(again.newestSegment)[..<(again.sizes[3] - 2)])
        writeFile(again.newestSegment, tornAgain)
        fs.heal()
        fs.inject(.error(EIO), on: "write", pathSuffix: ".cut.tmp", times: 10)
        #expect(throws: LogStoreError.self) { try LogStore(path: again.path, options: options) }
        #expect(readFile(again.newestSegment) == tornAgain)
    }
}
