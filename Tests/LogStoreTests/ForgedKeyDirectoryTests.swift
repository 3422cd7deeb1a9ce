import Foundation
import TestSupport
import Testing

@testable import LogStore

/// A key directory file whose CRCs all match but whose entries are wrong (forged, or written by
/// a faulty writer): `open` must never let a read fall outside a segment, and `verify` must find
/// entries that differ from the index the log gives.
@Suite struct ForgedKeyDirectoryTests {
    private func options() -> LogStoreOptions {
        var options = LogStoreOptions.alwaysWritingKeyDirectoryFile
        options.segmentSize = 4096
        return options
    }

    /// A store of several segments and three keyspaces, closed cleanly (so it has `keys.dir`);
    /// returns its contents by keyspace and key.
    private func makeStore(_ path: String) throws -> [String: [UInt8]] {
        var model: [String: [UInt8]] = [:]
        let store = try LogStore(path: path, options: options())
        for i in 0..<600 {
            let keyspace = ["a", "b", "c"][i % 3]
            let key = "key\(i % 97)"
            let value = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 20 + i % 30)
            try store.put(value, for: Array(key.utf8), in: keyspace, durability: .buffered)
            model["\(keyspace)/\(key)"] = value
        }
        try store.close()
        return model
    }

    private typealias Layout = KeyDirectoryForgery.Layout

    private func reseal(_ bytes: inout [UInt8]) { KeyDirectoryForgery.reseal(&bytes) }

    private func store<T: FixedWidthInteger>(_ value: T, in bytes: inout [UInt8], at offset: Int) {
        KeyDirectoryForgery.store(value, in: &bytes, at: offset)
    }

    private func liveEntries(_ bytes: [UInt8]) -> [Int] { KeyDirectoryForgery.liveEntries(bytes) }

    /// Entries that name a place outside the segments, and a key count the table does not hold:
    /// open ignores the file (verify says why, in the same words) and every read is right.
    @Test(arguments: ["segment index", "offset past its segment", "offset in the header", "count"])
    func anEntryOutsideTheSegmentsMakesTheFileIgnored(_ forgery: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let model = try makeStore(dir.path)
        let path = KeyDirectoryFile.path(in: dir.path)
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let entry = liveEntries(bytes)[0]
        switch forgery {
        case "segment index":
            // The low 28 bits name the segment; the high 4 (lines to prefetch) are kept.
            bytes[entry + 8] = 0xF0
            bytes[entry + 9] = 0xFF
        case "offset past its segment": store(UInt32(0xFFFF_FF00), in: &bytes, at: entry + 4)
        case "offset in the header": store(UInt32(3), in: &bytes, at: entry + 4)
        default:
            // One key more recorded than the table holds.
            let keysAt = Layout(bytes).tables[0].keysAt
            bytes[keysAt] &+= 1
        }
        reseal(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let verified = try LogInspector.verify(storeAt: dir.path).problems.first {
            $0.kind == .unusableKeyDirectory
        }
        let store = try LogStore(path: dir.path, options: options())
        #expect(!store.recovery.usedKeyDirectory)
        let reason = try #require(store.recovery.ignoredKeyDirectory)
        #expect(reason.contains(forgery == "count" ? "entries for the" : "outside the segments"))
        #expect(verified?.reason == reason)
        #expect(try KeyDirectoryForgery.contents(store) == model)
        try store.close()
    }

    /// The reseal itself leaves a file open accepts: the forgeries above are refused for their
    /// entries, not their CRCs.
    @Test func aResealedUnchangedFileIsStillUsed() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let model = try makeStore(dir.path)
        let path = KeyDirectoryFile.path(in: dir.path)
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        reseal(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try LogInspector.verify(storeAt: dir.path).problems.isEmpty)
        let store = try LogStore(path: dir.path, options: options())
        #expect(store.recovery.usedKeyDirectory)
        #expect(try KeyDirectoryForgery.contents(store) == model)
        try store.close()
    }

    /// Two entries whose records are swapped: every reference is inside its segment, so open uses
    /// the file, but verify compares it with the index the log gives and reports it.
    @Test func verifyReportsEntriesThatDifferFromTheLog() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        _ = try makeStore(dir.path)
        let path = KeyDirectoryFile.path(in: dir.path)
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let entries = liveEntries(bytes)
        let (first, second) = (entries[0], entries[1])
        for i in 4..<12 { bytes.swapAt(first + i, second + i) }
        reseal(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let problems = try LogInspector.verify(storeAt: dir.path).problems
        let problem = try #require(problems.first { $0.kind == .unusableKeyDirectory })
        #expect(problem.reason.hasPrefix("open would use it, but keyspace \"a\""))
        #expect(problems.count == 1)
        var readOnly = options()
        readOnly.readOnly = true
        let store = try LogStore(path: dir.path, options: readOnly)
        #expect(store.recovery.usedKeyDirectory)
        try store.close()
    }

    /// The comparison goes in passes, each over one slice of every table, so that its memory is
    /// bounded whatever the number of keys: in one pass, in several and in very many, a clean
    /// file is clean and swapped entries are reported in the same words.
    @Test(arguments: [1 << 30, 1024, 64])
    func verifyComparesTheFileInPassesOfAnySize(_ passBytes: Int) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        _ = try makeStore(dir.path)
        let clean = try LogInspector.verify(
            storeAt: dir.path, fileSystem: PosixFileSystem(), keyDirectoryPassBytes: passBytes)
        #expect(clean.problems.isEmpty, "\(clean.problems)")

        let path = KeyDirectoryFile.path(in: dir.path)
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let entries = liveEntries(bytes)
        let (first, last) = (entries[0], entries[entries.count - 1])
        for i in 4..<12 { bytes.swapAt(first + i, last + i) }
        reseal(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let problems = try LogInspector.verify(
            storeAt: dir.path, fileSystem: PosixFileSystem(), keyDirectoryPassBytes: passBytes
        ).problems
        #expect(problems.count == 1, "\(problems)")
        #expect(
            problems.first?.reason.hasPrefix("open would use it, but keyspace \"a\" does not point")
                == true, "\(problems)")
    }

    /// A file that was right when written but whose store moved on under it without a change to
    /// the segments it covers is not possible; a store appended to after the file was written is
    /// compared as open sees it (file, then the log past it): no problem.
    @Test func verifyComparesTheFileWithTheTailReplayed() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        _ = try makeStore(dir.path)
        // A session that writes and is killed: the file stays, the log grows past it.
        let copy = TemporaryDirectory()
        defer { copy.remove() }
        let store = try LogStore(path: dir.path, options: options())
        try store.put([1, 2, 3], for: Array("key3".utf8), in: "a")
        try store.delete(Array("key4".utf8), in: "b")
        try copy.copyFiles(of: dir.path)
        try store.close()
        #expect(FileManager.default.fileExists(atPath: KeyDirectoryFile.path(in: copy.path)))
        let report = try LogInspector.verify(storeAt: copy.path)
        #expect(report.problems.filter { $0.kind == .unusableKeyDirectory }.isEmpty)
    }

    // MARK: Entries inside their segment that point at no record of their key

    /// Record-header bytes a value carries, for forged entries to point at: a put (op 1) in
    /// keyspace 1 whose key length runs far past the segment's end, and one whose lengths are
    /// 10-byte varints of 2^63 and more.
    private static let pastTheEnd: [UInt8] = [0x01, 0x01, 0xFF, 0xFF, 0xFF, 0x7F, 0x05, 0xEE]
    private static let overlong: [UInt8] =
        [0x01, 0x01] + [UInt8](repeating: 0xFF, count: 9) + [0x01]
        + [UInt8](repeating: 0x80, count: 9) + [0x01, 0xEE]

    private func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        KeyDirectoryForgery.find(pattern, in: bytes)
    }

    /// An entry whose offset is inside its segment but not at the start of its key's record
    /// (inside that record; at record-header bytes whose lengths run past the segment's end or
    /// overflow; two bytes before the segment's end), in a file whose CRCs all match: open uses
    /// the file (it checks only that entries are inside their segments), a read of that key
    /// throws `damagedKeyDirectory` and never reads outside the mapping, other keys read right,
    /// verify reports the file, and after a close (which removes it) the store reopens by a
    /// rebuild with every value.
    @Test(arguments: ["mid-record", "lengths past the end", "overlong lengths", "near the end"])
    func anEntryThatPointsAtNoRecordMakesReadsOfItsKeyThrow(_ forgery: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = options()
        options.segmentSize = 1 << 20
        var model: [String: [UInt8]] = [:]
        do {
            let store = try LogStore(path: dir.path, options: options)
            var batch = WriteBatch()
            for i in 0..<50 {
                let value = [UInt8](repeating: UInt8(i), count: 10 + i)
                batch.put(value, for: Array("key\(i)".utf8), in: "a")
                model["key\(i)"] = value
            }
            batch.put(Self.pastTheEnd, for: Array("bait1".utf8), in: "a")
            batch.put(Self.overlong, for: Array("bait2".utf8), in: "a")
            model["bait1"] = Self.pastTheEnd
            model["bait2"] = Self.overlong
            try store.commit(batch)
            try store.close()
        }
        let segmentName = try #require(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).first {
                $0.hasSuffix(".seg")
            })
        let segment = [UInt8](FileManager.default.contents(atPath: dir.path + "/" + segmentName)!)
        let path = KeyDirectoryFile.path(in: dir.path)
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let target = Array("key7".utf8)
        let hash = target.withUnsafeBytes { KeyDirectory.hash($0) }
        let entry = try #require(
            liveEntries(bytes).first { at in
                (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } == hash
            })
        let offset = (0..<4).reduce(0) { $0 | Int(bytes[entry + 4 + $1]) << (8 * $1) }
        let forged: Int
        switch forgery {
        case "mid-record": forged = offset + 1
        case "lengths past the end": forged = try #require(find(Self.pastTheEnd, in: segment))
        case "overlong lengths": forged = try #require(find(Self.overlong, in: segment))
        default: forged = segment.count - 2
        }
        store(UInt32(forged), in: &bytes, at: entry + 4)
        reseal(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let problems = try LogInspector.verify(storeAt: dir.path).problems
        #expect(problems.contains { $0.kind == .unusableKeyDirectory })
        do {
            let store = try LogStore(path: dir.path, options: options)
            #expect(store.recovery.usedKeyDirectory)
            let thrown = #expect(throws: LogStoreError.self) { try store.get(target, in: "a") }
            guard case .damagedKeyDirectory(let damagedPath, let reason) = thrown else {
                Issue.record("not damagedKeyDirectory: \(String(describing: thrown))")
                return
            }
            #expect(damagedPath == path)
            #expect(reason.contains("keyspace \"a\""))
            #expect(thrown?.description.contains("rebuild the index") == true)
            #expect(throws: LogStoreError.self) { try store.contains(target, in: "a") }
            #expect(throws: LogStoreError.self) {
                try target.withUnsafeBytes { key in
                    try store.withValue(forKey: key, in: "a") { _ in 0 }
                }
            }
            #expect(throws: LogStoreError.self) {
                try target.withUnsafeBytes { key in
                    try store.view(of: "a").withValue(forKey: key) { _ in 0 }
                }
            }
            for (key, value) in model where key != "key7" {
                #expect(try store.get(Array(key.utf8), in: "a") == value)
            }
            // Writes of the key go on: the damaged entry is passed over.
            try store.put([9], for: Array("key8".utf8), in: "a")
            model["key8"] = [9]
            try store.close()
        }
        // The writable store that met the damage removed the file at close.
        #expect(!FileManager.default.fileExists(atPath: path))
        let store = try LogStore(path: dir.path, options: options)
        #expect(!store.recovery.usedKeyDirectory)
        for (key, value) in model {
            #expect(try store.get(Array(key.utf8), in: "a") == value)
        }
        try store.close()
    }

    /// The checked decoder against the trusted one on every record a store writes, and on
    /// every offset of a segment: where it accepts, it decodes what the trusted decoder does
    /// and stays before the end; it accepts every real record start.
    @Test func theCheckedDecoderAcceptsRecordStartsAndNeverPassesTheEnd() throws {
        let bytes: [UInt8] =
            [0x01, 0x01, 0x03] + [0x05] + Array("abc".utf8) + [1, 2, 3, 4, 5]
            + Self.pastTheEnd + Self.overlong + [0x01, 0x01, 0x01, 0x00, 0x41]
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            let end = base + raw.count
            let first = StoredRecord(checkedAt: base, end: end)
            #expect(first.map { Array($0.key) } == Array("abc".utf8))
            #expect(first.map { Array($0.value) } == [1, 2, 3, 4, 5])
            let last = StoredRecord(checkedAt: end - 5, end: end)
            #expect(last.map { Array($0.key) } == [0x41])
            #expect(last?.value.count == 0)
            for start in 0..<raw.count {
                // Every end from here on: a record accepted ends by it.
                for stop in (start + 1)...raw.count {
                    if let record = StoredRecord(checkedAt: base + start, end: base + stop) {
                        #expect(record.op == RecordOp.put)
                        #expect(start + record.encodedSize <= stop)
                        #expect(record.value.baseAddress! + record.value.count <= base + stop)
                    }
                }
            }
            #expect(StoredRecord(checkedAt: base + 12, end: end) == nil)  // pastTheEnd
            #expect(StoredRecord(checkedAt: base + 20, end: end) == nil)  // overlong
        }
    }
}
