import Foundation
import LogStore
import TestSupport
import Testing

/// Simulated power loss under group commit: threads commit at once, so one write and one
/// `fdatasync` carry several commits. At every crash point the store must hold exactly the
/// commits up to some sequence number — all those acknowledged, none half — whether unsynced data
/// survives whole, not at all, or in pieces out of order.
@Suite struct ConcurrentPowerLossTests {
    @Test func groupCommitsSurviveEveryCrashPoint() throws {
        let seed = testSeed("concurrent power loss")
        let scratch = ScratchDirectory("group")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let recorder = RecordingFileSystem(root: root)
        let start = SimulatedDisk(recorder)
        var options = LogStoreOptions()
        options.fileSystem = SlowSyncFileSystem(recorder)  // so commits queue up into groups
        options.segmentSize = 700
        options.autoCompactionDeadFraction = nil
        let store = try LogStore(path: root + "/store", options: options)
        // Sequence → the changes of that commit, filled in as commits return.
        let commits = Locked<[UInt64: [String: [UInt8]]]>([:])
        let threads = 4
        let perThread = 12
        // Threads of their own: a busy dispatch pool could run the writers one after another.
        let writers = (0..<threads).map { t in
            BackgroundThread {
                var rng = SeededGenerator(seed: seed &+ UInt64(t))
                for n in 1...perThread {
                    var batch = WriteBatch()
                    var changes: [String: [UInt8]] = [:]
                    for r in 0..<Int.random(in: 1...3, using: &rng) {
                        let value = (0..<Int.random(in: 1...90, using: &rng)).map { _ in UInt8(n) }
                        batch.put(value, for: Array("t\(t)c\(n)r\(r)".utf8), in: "g")
                        changes["g/t\(t)c\(n)r\(r)"] = value
                    }
                    batch.put([UInt8(n)], for: Array("t\(t)last".utf8), in: "g")
                    changes["g/t\(t)last"] = [UInt8(n)]
                    let sequence = try! store.commit(batch)
                    commits.withLock { $0[sequence] = changes }
                    recorder.acknowledge(sequence)
                }
            }
        }
        for writer in writers { writer.value() }
        try store.close()
        let table = commits.withLock { $0 }
        #expect(table.count == threads * perThread)
        let events = recorder.events
        let syncs = events.filter { if case .syncData = $0 { true } else { false } }.count
        // Writes of commits (a group is one write), not of segment headers.
        let groups = events.filter {
            if case .write(_, let offset, _) = $0 { offset >= 24 } else { false }
        }
        .count
        #expect(groups < threads * perThread, "no commits were written as a group")
        func expected(upTo last: UInt64) -> Contents {
            var contents: Contents = [:]
            for sequence in 1...max(last, 1) where sequence <= last {
                for (key, value) in table[sequence]! { contents[key] = value }
            }
            return contents
        }
        var rng = SeededGenerator(seed: seed)
        var disk = start
        var acknowledged: UInt64 = 0
        var states = 0
        var failures: [String] = []
        var seen: Set<CrashImage> = []
        var i = 0
        var point = 0
        var options2 = LogStoreOptions()
        options2.autoCompactionDeadFraction = nil
        while true {
            while i < events.count && !events[i].isOperation {
                if case .acknowledged(let s) = events[i] { acknowledged = max(acknowledged, s) }
                i += 1
            }
            // Unsynced group writes survive whole, not at all, or in 512-byte pieces out of order.
            for variant in CrashVariant.variants(40, using: &rng) {
                states += 1
                var image = disk.image(variant)
                let key = image
                image.items.append(("#\(acknowledged)", nil))
                guard seen.insert(image).inserted else { continue }
                let target = scratch.child("crash\(seen.count)")
                try FileManager.default.createDirectory(
                    atPath: target, withIntermediateDirectories: false)
                try key.write(to: target)
                do {
                    let (opened, disagreement) = verifyThenOpen(target + "/store") {
                        let store = try openStore(target + "/store", options: options2)
                        return (store, store.recovery)
                    }
                    if let disagreement {
                        failures.append("after \(point) calls, \(variant): \(disagreement)")
                    }
                    let recovered = try opened.get()
                    let last = recovered.lastSequence
                    let found = try contents(of: recovered)
                    if last < acknowledged || (last > 0 && table[last] == nil)
                        || found != expected(upTo: last)
                    {
                        failures.append(
                            "after \(point) calls, \(variant): last \(last), acknowledged \(acknowledged): "
                                + describeDifference(
                                    found,
                                    last > 0 && table[last] != nil ? expected(upTo: last) : [:]))
                    }
                    try recovered.close()
                    if let problem = verifiedRecovered(target + "/store") {
                        failures.append("after \(point) calls, \(variant): \(problem)")
                    }
                } catch {
                    failures.append("after \(point) calls, \(variant): open failed: \(error)")
                }
                try? FileManager.default.removeItem(atPath: target)
            }
            guard i < events.count else { break }
            disk.apply(events[i])
            i += 1
            point += 1
        }
        print(
            "concurrent power loss: \(threads * perThread) commits in \(groups) group writes, \(syncs) fdatasyncs, "
                + "\(point + 1) crash points, \(states) states, \(seen.count) distinct, \(failures.count) failures"
        )
        for failure in failures.prefix(5) { Issue.record("seed \(seed): \(failure)") }
    }

    /// Two `.buffered` commits (or one group of commits) are written but not yet synced; the
    /// power fails and the disk keeps the later sectors but not an earlier one — the second
    /// commit whole, the first with a hole. Nothing of them was made durable, so this is a torn
    /// tail: both are cut. (Format version 1 could not tell these bytes from bit rot inside
    /// durable commits and refused to open; version 2's sync marks say how far the segment was
    /// durable — `SyncMarkTests.damageThatAMarkVouchesForIsCorruption` is the other side.)
    @Test
    func unsyncedCommitsSurvivingOutOfOrderAreATornTail() throws {
        let scratch = ScratchDirectory("outoforder")
        defer { scratch.remove() }
        let path = scratch.child("store")
        let store = try openStore(path)
        try store.put([1], for: Array("acknowledged".utf8), in: "a")
        let segment = segmentFiles(path)[0]
        let durableEnd = readFile(segment).count
        try store.put(
            [UInt8](repeating: 2, count: 1_500), for: Array("first".utf8), in: "a",
            durability: .buffered)
        try store.put(
            [UInt8](repeating: 3, count: 1_500), for: Array("second".utf8), in: "a",
            durability: .buffered)
        try store.close()
        // The power loss, before the close: no closing sync mark; the first unsynced sector never
        // reached the disk (zeros), the rest did.
        var bytes = readFile(segment)
        #expect(bytes[bytes.count - 17] == 5)
        bytes.removeLast(25)
        let hole = (durableEnd / 512 + 1) * 512
        for i in durableEnd..<hole { bytes[i] = 0 }
        writeFile(segment, bytes)
        // Hints are written at close, which the power loss came before.
        for name in try FileManager.default.contentsOfDirectory(atPath: path)
        where name.hasSuffix(".hint") {
            try FileManager.default.removeItem(atPath: path + "/" + name)
        }
        let recovered = try openStore(path)
        #expect(try contents(of: recovered) == ["a/acknowledged": [1]])
        #expect(readFile(segment).count == durableEnd)
    }
}

/// Passes every call to `inner`, but takes 2 ms over each `fdatasync`, as a disk would, so that
/// concurrent commits queue behind it and are written as a group.
final class SlowSyncFileSystem: FileSystem, Sendable {
    let inner: any FileSystem
    init(_ inner: any FileSystem) { self.inner = inner }

    func open(_ path: String, create: Bool, readOnly: Bool) throws -> OpenFile {
        try inner.open(path, create: create, readOnly: readOnly)
    }
    func close(_ file: OpenFile) throws { try inner.close(file) }
    func write(_ file: OpenFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try inner.write(file, bytes, at: offset)
    }
    func read(_ file: OpenFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws
        -> Int
    { try inner.read(file, into: buffer, at: offset) }
    func syncData(_ file: OpenFile) throws {
        usleep(2_000)
        try inner.syncData(file)
    }
    func truncate(_ file: OpenFile, to length: Int64) throws {
        try inner.truncate(file, to: length)
    }
    func restrictToOwner(_ file: OpenFile) throws { try inner.restrictToOwner(file) }
    func size(_ file: OpenFile) throws -> Int64 { try inner.size(file) }
    func map(_ file: OpenFile, length: Int) throws -> UnsafeRawPointer {
        try inner.map(file, length: length)
    }
    func unmap(_ pointer: UnsafeRawPointer, length: Int) { inner.unmap(pointer, length: length) }
    func tryLock(_ file: OpenFile) throws -> Bool { try inner.tryLock(file) }
    func rename(_ from: String, to: String) throws { try inner.rename(from, to: to) }
    func remove(_ path: String) throws { try inner.remove(path) }
    func makeDirectory(_ path: String) throws { try inner.makeDirectory(path) }
    func syncDirectory(_ path: String) throws { try inner.syncDirectory(path) }
    func contents(ofDirectory path: String) throws -> [String] {
        try inner.contents(ofDirectory: path)
    }
    func kind(of path: String) -> PathKind { inner.kind(of: path) }
}
