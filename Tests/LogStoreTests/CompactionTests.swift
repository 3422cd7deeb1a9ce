import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct CompactionTests {
    /// Writes puts, overwrites and deletes across many small segments; returns the expected
    /// contents, starting from `model` (the store's contents before).
    private func fill(
        _ store: LogStore, seed: UInt64 = 3, operations: Int = 3000,
        startingFrom model: [String: [UInt8]] = [:]
    ) throws -> [String: [UInt8]] {
        var rng = SeededGenerator(seed: seed)
        var model = model
        for _ in 0..<operations {
            let key = "key\(Int.random(in: 0..<300, using: &rng))"
            if Int.random(in: 0..<4, using: &rng) == 0 {
                try store.delete(Array(key.utf8), in: "k", durability: .buffered)
                model[key] = nil
            } else {
                let value = [UInt8](
                    repeating: UInt8.random(in: 0...255, using: &rng),
                    count: Int.random(in: 1..<80, using: &rng))
                try store.put(value, for: Array(key.utf8), in: "k", durability: .buffered)
                model[key] = value
            }
        }
        return model
    }

    private func options(_ fs: FaultInjectingFileSystem? = nil) -> LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.autoCompactionDeadFraction = nil
        if let fs { options.fileSystem = fs }
        return options
    }

    private func directorySize(_ path: String) -> Int {
        segmentFiles(path).reduce(0) { $0 + readFile($1).count }
    }

    @Test func compactionKeepsLiveDataAndReclaimsTheRest() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        let model = try fill(store)
        let before = directorySize(path)
        let report = try store.compact()
        #expect(report.segmentsCompacted > 10)
        #expect(try CommitHistory.contents(of: store) == model)
        let after = directorySize(path)
        #expect(after < before / 3)
        let stats = try store.stats()
        #expect(stats.lastCompaction == report)
        // Live data plus at most one segment of slack.
        #expect(stats.fileBytes <= stats.liveBytes + 4096 * 2)
        try store.close()
        let reopened = try LogStore(path: path, options: options())
        #expect(reopened.recovery.isClean)
        #expect(try CommitHistory.contents(of: reopened) == model)
        // And it goes on working.
        try reopened.put(b("new"), for: b("new"), in: "k")
        #expect(try reopened.get(b("new"), in: "k") == b("new"))
    }

    @Test func compactingTwiceAndAfterMoreWritesStaysCorrect() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        var model = try fill(store, seed: 1)
        try store.compact()
        #expect(try CommitHistory.contents(of: store) == model)
        try store.compact()
        #expect(try CommitHistory.contents(of: store) == model)
        // More puts, overwrites and deletes, some of keys the compactions moved.
        model = try fill(store, seed: 2, operations: 500, startingFrom: model)
        #expect(try CommitHistory.contents(of: store) == model)
        try store.compact()
        #expect(try CommitHistory.contents(of: store) == model)
        try store.close()
        let reopened = try LogStore(path: path, options: options())
        #expect(try CommitHistory.contents(of: reopened) == model)
    }

    @Test func writesAndReadsGoOnDuringCompaction() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path, options: options())
        _ = try fill(store)
        let finalValues = (0..<300).map { [UInt8](repeating: UInt8($0 % 256), count: 20 + $0 % 7) }
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            switch worker {
            case 0:
                _ = try? store.compact()
            case 1:
                for (i, value) in finalValues.enumerated() {
                    _ = try? store.put(
                        value, for: Array("key\(i)".utf8), in: "k", durability: .buffered)
                }
            default:
                for i in 0..<2000 { _ = try? store.get(Array("key\(i % 300)".utf8), in: "k") }
            }
        }
        for (i, value) in finalValues.enumerated() {
            #expect(try store.get(Array("key\(i)".utf8), in: "k") == value)
        }
        try store.compact()
        try store.close()
        let reopened = try LogStore(path: path, options: options())
        #expect(try reopened.count(in: "k") == 300)
        for (i, value) in finalValues.enumerated() {
            #expect(try reopened.get(Array("key\(i)".utf8), in: "k") == value)
        }
    }

    /// Stops compaction at each step by failing the call that starts it, then reopens: no key
    /// lost, none resurrected.
    @Test(arguments: [
        ("fdatasync", ".seg.tmp", 0), ("rename", ".seg.tmp", 0), ("rename", ".seg.tmp", 1),
        ("fsync-directory", "", 0),
        ("unlink", ".seg", 0), ("unlink", ".seg", 1), ("unlink", ".seg", 5),
    ])
    func interruptedCompactionLosesNothing(operation: String, suffix: String, skip: Int) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        var model: [String: [UInt8]] = [:]
        do {
            var opts = options(fs)
            opts.segmentSize = 1024  // several output files
            let store = try LogStore(path: path, options: opts)
            model = try fill(store, seed: 9)
            fs.inject(.error(EIO), on: operation, pathSuffix: suffix, skip: skip)
            #expect(throws: LogStoreError.self) { try store.compact() }
            fs.heal()
            // The store is still right in memory.
            #expect(try CommitHistory.contents(of: store) == model)
        }
        let reopened = try LogStore(path: path, options: options())
        #expect(try CommitHistory.contents(of: reopened) == model, "\(operation) \(suffix) \(skip)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: path).allSatisfy {
                !$0.hasSuffix(".tmp")
            })
        // A later compaction finishes the job.
        try reopened.compact()
        #expect(try CommitHistory.contents(of: reopened) == model)
    }

    @Test func deletedKeysStayDeletedAfterAPartialCompactionAndRestart() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let fs = FaultInjectingFileSystem()
        do {
            let store = try LogStore(path: path, options: options(fs))
            for i in 0..<200 {
                try store.put(
                    [UInt8](repeating: 1, count: 60), for: b("k\(i)"), in: "k",
                    durability: .buffered)
            }
            for i in 0..<200 where i % 2 == 0 {
                try store.delete(b("k\(i)"), in: "k", durability: .buffered)
            }
            // Crash after the first old segment is removed: the remaining ones still hold the
            // tombstones and the new segments hold no deleted key.
            fs.inject(.error(EIO), on: "unlink", pathSuffix: ".seg", skip: 1)
            #expect(throws: LogStoreError.self) { try store.compact() }
        }
        let reopened = try LogStore(path: path, options: options())
        #expect(try reopened.count(in: "k") == 100)
        for i in 0..<200 { #expect(try reopened.contains(b("k\(i)"), in: "k") == (i % 2 == 1)) }
    }

    @Test func readOnlyStoreCannotCompact() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        try LogStore(path: path).close()
        var opts = LogStoreOptions()
        opts.readOnly = true
        #expect(throws: LogStoreError.readOnly(path: path)) {
            try LogStore(path: path, options: opts).compact()
        }
    }
}

@Suite struct AutomaticCompactionTests {
    @Test func deadBytesPastTheThresholdStartACompaction() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.autoCompactionDeadFraction = 0.5
        options.autoCompactionMinimumBytes = 16 << 10
        let store = try LogStore(path: dir.child("s"), options: options)
        var compacted = false
        for round in 0..<200 where !compacted {
            for i in 0..<20 {
                try store.put(
                    [UInt8](repeating: UInt8(round % 256), count: 100), for: b("\(i)"), in: "k",
                    durability: .buffered)
            }
            compacted = try store.stats().lastCompaction != nil
        }
        for _ in 0..<100 where !compacted {
            Thread.sleep(forTimeInterval: 0.05)
            compacted = try store.stats().lastCompaction != nil
        }
        #expect(compacted)
        #expect(try store.count(in: "k") == 20)
    }

    @Test func turnedOffItNeverRuns() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.autoCompactionDeadFraction = nil
        options.autoCompactionMinimumBytes = 0
        let store = try LogStore(path: dir.child("s"), options: options)
        for round in 0..<50 {
            for i in 0..<20 {
                try store.put(
                    [UInt8](repeating: UInt8(round), count: 100), for: b("\(i)"), in: "k",
                    durability: .buffered)
            }
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try store.stats().lastCompaction == nil)
    }
}
