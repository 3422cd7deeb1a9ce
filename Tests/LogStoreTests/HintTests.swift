import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct HintTests {
    private func options() -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 2048
        options.autoCompactionDeadFraction = nil
        return options
    }

    private func hintFiles(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
            $0.hasSuffix(".hint")
        }.sorted()
            .map { "\(path)/\($0)" }
    }

    private func build(_ path: String) throws -> [String: [UInt8]] {
        let store = try LogStore(path: path, options: options())
        var model: [String: [UInt8]] = [:]
        for i in 0..<400 {
            let key = "key\(i % 150)"
            if i % 7 == 3 {
                try store.delete(Array(key.utf8), in: "k", durability: .buffered)
                model[key] = nil
            } else {
                let value = [UInt8](repeating: UInt8(i % 256), count: 30)
                try store.put(value, for: Array(key.utf8), in: "k", durability: .buffered)
                model[key] = value
            }
        }
        try store.close()
        return model
    }

    @Test func sealedSegmentsGetHintsAndOpenUsesThem() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let model = try build(path)
        // Sealed segments get theirs when sealed; the active one at close.
        #expect(hintFiles(path).count == segmentFiles(path).count)
        let store = try LogStore(path: path, options: options())
        #expect(store.recovery.notes.isEmpty)
        #expect(try CommitHistory.contents(of: store) == model)
        #expect(try store.stats().lastSequence == 400)
    }

    /// A bulk load that fills the segment seals it (and writes its hint) in its own commit, so
    /// the small commit after it does not pay a scan of the whole segment.
    @Test func theCommitThatFillsASegmentSealsIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        var batch = WriteBatch()
        var model: [String: [UInt8]] = [:]
        for i in 0..<100 {
            let value = [UInt8](repeating: UInt8(i), count: 30)
            batch.put(value, for: Array("key\(i)".utf8), in: "k")
            model["key\(i)"] = value
        }
        _ = try store.commit(batch, durability: .buffered)
        #expect(segmentFiles(path).count == 2)
        #expect(hintFiles(path).count == 1)
        try store.put([7], for: Array("small".utf8), in: "k", durability: .sync)
        model["small"] = [7]
        #expect(segmentFiles(path).count == 2)
        try store.close()
        let again = try LogStore(path: path, options: options())
        #expect(again.recovery.notes.isEmpty)
        #expect(try CommitHistory.contents(of: again) == model)
    }

    @Test(arguments: ["truncated", "bitflip", "missing", "wrongSize"])
    func aDamagedOrMissingHintFallsBackToScanning(damage: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let model = try build(path)
        let hint = hintFiles(path)[1]
        var bytes = readFile(hint)
        switch damage {
        case "truncated": bytes.removeLast(5)
        case "bitflip": bytes[bytes.count / 2] ^= 0x10
        case "wrongSize": bytes = readFile(hintFiles(path)[2])
        default: bytes = []
        }
        if damage == "missing" {
            try FileManager.default.removeItem(atPath: hint)
        } else {
            writeFile(hint, bytes)
        }
        let store = try LogStore(path: path, options: options())
        #expect(try CommitHistory.contents(of: store) == model)
        if damage != "missing" {
            #expect(
                store.recovery.notes.contains { $0.contains("hint") }, "\(store.recovery.notes)")
        }
        // The bad hint was replaced by a good one.
        try store.close()
        let again = try LogStore(path: path, options: options())
        #expect(again.recovery.notes.isEmpty)
        #expect(try CommitHistory.contents(of: again) == model)
    }

    @Test func compactionWritesHintsForItsOutputAndRemovesOldOnes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let model = try build(path)
        let store = try LogStore(path: path, options: options())
        try store.compact()
        try store.close()
        // Every segment holding commits has a hint (the active one since close), and none is left
        // without its segment.
        let segments = Set(
            segmentFiles(path).filter { readFile($0).count > 24 }.map { String($0.dropLast(4)) })
        let hints = Set(hintFiles(path).map { String($0.dropLast(5)) })
        #expect(hints == segments)
        let reopened = try LogStore(path: path, options: options())
        #expect(reopened.recovery.notes.isEmpty)
        #expect(try CommitHistory.contents(of: reopened) == model)
    }

    /// Compaction builds its outputs' hints as it copies records, without scanning them: the
    /// bytes are those a scan of each output makes (here, the hints open writes for outputs
    /// found without one). Keyspaces from 64 on take the hint's unpacked entry form.
    @Test func compactionOutputHintsAreTheScannedOnes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = options()
        options.segmentSize = 4096
        let store = try LogStore(path: path, options: options)
        for i in 0..<600 {
            let keyspace = "ks\(i % 70)"
            try store.put(
                [UInt8](repeating: UInt8(i & 0xFF), count: i % 40),
                for: Array("key\(i % 250)".utf8),
                in: keyspace, durability: .buffered)
        }
        try store.compact()
        try store.close()
        let outputs = hintFiles(path).filter { !$0.hasSuffix("0000.hint") }
        #expect(outputs.count >= 2, "\(hintFiles(path))")
        let built = outputs.map(readFile)
        for hint in outputs { try FileManager.default.removeItem(atPath: hint) }
        try? FileManager.default.removeItem(atPath: path + "/keys.dir")
        let reopened = try LogStore(path: path, options: options)
        try reopened.close()
        let same = outputs.map(readFile) == built
        #expect(same, "the hints built while copying differ from the scanned ones: \(outputs)")
    }

    /// A store over `fs` whose active segment holds commits, and the path of that segment.
    private func storeWithAnActiveSegment(_ path: String, _ fs: FaultInjectingFileSystem) throws
        -> (LogStore, [String: [UInt8]], active: String)
    {
        var model = try build(path)
        var options = options()
        options.fileSystem = fs
        let store = try LogStore(path: path, options: options)
        try store.put([1, 2, 3], for: Array("late".utf8), in: "k", durability: .sync)
        model["late"] = [1, 2, 3]
        return (store, model, segmentFiles(path).last!)
    }

    /// Compaction seals the active segment in order to consume it: that segment's hint, which
    /// costs a scan of it, is never built, since the compaction removes the segment.
    @Test func compactionBuildsNoHintForTheSegmentItSealsAndConsumes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let (store, model, active) = try storeWithAnActiveSegment(path, fs)
        let hint = String(active.dropLast(4)) + ".hint"
        let before = fs.calls.count
        try store.compact()
        let opened = fs.calls[before...].filter { $0.operation == "open" }.map(\.path)
        #expect(!opened.contains { $0.hasPrefix(hint) }, "\(opened)")
        #expect(!FileManager.default.fileExists(atPath: active))
        #expect(try CommitHistory.contents(of: store) == model)
        try store.close()
        let reopened = try LogStore(path: path, options: options())
        #expect(reopened.recovery.notes.isEmpty)
        #expect(try CommitHistory.contents(of: reopened) == model)
    }

    /// A compaction that fails after sealing the active segment leaves that segment sealed and
    /// in place: it then gets its hint, as any sealed segment does.
    @Test func aFailedCompactionLeavesTheSegmentItSealedItsHint() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        let (store, model, active) = try storeWithAnActiveSegment(path, fs)
        fs.inject(.error(ENOSPC), on: "write", pathSuffix: ".seg.tmp", times: Int.max)
        #expect(throws: LogStoreError.self) { try store.compact() }
        fs.heal()
        #expect(FileManager.default.fileExists(atPath: active))
        #expect(FileManager.default.fileExists(atPath: String(active.dropLast(4)) + ".hint"))
        try store.close()
        let reopened = try LogStore(path: path, options: options())
        #expect(reopened.recovery.notes.isEmpty)
        #expect(try CommitHistory.contents(of: reopened) == model)
    }
}

@Suite struct HintInspectionTests {
    @Test func goodHintsHaveNoProblemsAndADamagedOneIsNamed() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.segmentSize = 1024
        let store = try LogStore(path: path, options: options)
        for i in 0..<100 {
            try store.put(
                [UInt8](repeating: 3, count: 40), for: b("\(i)"), in: "k", durability: .buffered)
        }
        try store.close()
        #expect(try LogInspector.verify(storeAt: path).problems.isEmpty)
        let hint = try StoreFiles(storeAt: path).hints[0]
        var bytes = readFile(path + "/" + hint)
        bytes[30] ^= 1
        writeFile(path + "/" + hint, bytes)
        let problems = try LogInspector.verify(storeAt: path).problems
        #expect(problems.count == 1)
        #expect(problems.first?.path == path + "/" + hint)
        #expect(problems.first?.kind == .unusableHint)
        #expect(problems.first?.reason == "checksum mismatch")
        // Open ignores the same hint, for the same reason.
        let reopened = try LogStore(path: path, options: options)
        #expect(reopened.recovery.ignoredHints == [path + "/" + hint])
    }
}
