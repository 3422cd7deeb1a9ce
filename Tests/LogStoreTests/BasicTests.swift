import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct BasicTests {
    @Test func putGetOverwriteDelete() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"))
        #expect(try store.get(b("k"), in: "a") == nil)
        let s1 = try store.put(b("v1"), for: b("k"), in: "a")
        #expect(try store.get(b("k"), in: "a") == b("v1"))
        let s2 = try store.put(b("v2"), for: b("k"), in: "a")
        #expect(s2 == s1 + 1)
        #expect(try store.get(b("k"), in: "a") == b("v2"))
        #expect(try store.get(b("k"), in: "b") == nil)
        try store.delete(b("k"), in: "a")
        #expect(try store.get(b("k"), in: "a") == nil)
        #expect(try store.count(in: "a") == 0)
        try store.close()
    }

    @Test func reopenSeesTheSameData() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        do {
            let store = try LogStore(path: path)
            for i in 0..<1000 {
                try store.put(
                    b("value \(i)"), for: b("key \(i)"), in: i % 2 == 0 ? "even" : "odd",
                    durability: .buffered)
            }
            try store.delete(b("key 10"), in: "even")
            try store.close()
        }
        let store = try LogStore(path: path)
        #expect(store.recovery.isClean)
        #expect(try store.count(in: "even") == 499)
        #expect(try store.count(in: "odd") == 500)
        #expect(try store.get(b("key 11"), in: "odd") == b("value 11"))
        #expect(try store.get(b("key 10"), in: "even") == nil)
        #expect(try store.keyspaces() == ["even", "odd"])
        #expect(store.lastSequence == 1001)
    }

    @Test func keyspaceIterationSeesOnlyItsKeys() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"))
        var batch = WriteBatch()
        for i in 0..<100 { batch.put(b("a\(i)"), for: b("\(i)"), in: "A") }
        for i in 0..<5 { batch.put(b("b\(i)"), for: b("\(i)"), in: "B") }
        try store.commit(batch)
        var seen: [String: String] = [:]
        try store.forEach(in: "B") { k, v in
            seen[String(decoding: k, as: UTF8.self)] = String(decoding: v, as: UTF8.self)
        }
        #expect(seen == ["0": "b0", "1": "b1", "2": "b2", "3": "b3", "4": "b4"])
        #expect(try store.keys(in: "A").count == 100)
        #expect(try store.keys(in: "missing").isEmpty)
    }

    @Test func largeValuesRoundTrip() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var rng = SeededGenerator(seed: 7)
        let big = rng.bytes(17 << 20)
        do {
            let store = try LogStore(path: path)
            try store.put(big, for: b("big"), in: "blobs")
            #expect(try store.get(b("big"), in: "blobs") == big)
        }
        let store = try LogStore(path: path)
        #expect(try store.get(b("big"), in: "blobs") == big)
    }

    @Test func emptyKeysAndValuesAreAllowed() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        do {
            let store = try LogStore(path: path)
            try store.put([], for: [], in: "k")
            try store.put([], for: b("x"), in: "k")
        }
        let store = try LogStore(path: path)
        #expect(try store.get([], in: "k") == [])
        #expect(try store.get(b("x"), in: "k") == [])
        #expect(try store.count(in: "k") == 2)
    }

    @Test func limitsAreInvalidArguments() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"))
        #expect(throws: LogStoreError.self) { try store.put(b("v"), for: b("k"), in: "") }
        let longKey = [UInt8](repeating: 1, count: 70_000)
        do {
            try store.put(b("v"), for: longKey, in: "a")
            Issue.record("a 70,000-byte key was accepted")
        } catch let error as LogStoreError {
            guard case .invalidArgument = error else {
                Issue.record("wrong error \(error)")
                return
            }
        }
        // The store is still usable.
        try store.put(b("v"), for: b("k"), in: "a")
        #expect(try store.get(b("k"), in: "a") == b("v"))
    }

    @Test func closedStoreThrows() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"))
        try store.close()
        try store.close()
        #expect(throws: LogStoreError.closed) { try store.get(b("k"), in: "a") }
        #expect(throws: LogStoreError.closed) { try store.put(b("v"), for: b("k"), in: "a") }
    }

    /// Reads that name one keyspace after another, with short and long names, names that
    /// differ only in their last byte, and names no keyspace has, each see their own keyspace.
    @Test func readsThatSwitchKeyspacesSeeTheirOwnKeys() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"))
        let long = String(repeating: "employees-of-company-", count: 3)
        let names = ["a", "b", long + "1", long + "2"]
        var batch = WriteBatch()
        for name in names { batch.put(b("in \(name)"), for: b("k"), in: name) }
        try store.commit(batch)
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            // A fresh copy of the name each time, as a caller building names would pass.
            let pick = names[Int.random(in: 0..<names.count, using: &rng)]
            let name = String(decoding: Array(pick.utf8), as: UTF8.self)
            #expect(try store.get(b("k"), in: name) == b("in \(pick)"))
            #expect(try store.contains(b("k"), in: name))
            let missing = ["", "c", long, long + "3"][Int.random(in: 0..<4, using: &rng)]
            #expect(try store.get(b("k"), in: missing) == nil)
            #expect(try !store.contains(b("k"), in: missing))
        }
    }

    /// The in-place read a caller in another module uses: what `body` returns, `nil` without
    /// calling it for a key or keyspace that is not there, and the errors of `body` and of a
    /// closed store.
    @Test func withValueReadsInPlace() throws {
        struct BodyFailed: Error {}
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"))
        try store.put(b("salary 2000000"), for: b("e1"), in: "a")
        let read = { (key: String, keyspace: String) throws -> String? in
            try b(key).withUnsafeBytes { key in
                try store.withValue(forKey: key, in: keyspace) {
                    String(decoding: $0, as: UTF8.self)
                }
            }
        }
        #expect(try read("e1", "a") == "salary 2000000")
        var calls = 0
        let absent = try b("e2").withUnsafeBytes { key in
            try store.withValue(forKey: key, in: "a") { _ -> Int in
                calls += 1
                return calls
            }
        }
        let otherKeyspace = try b("e1").withUnsafeBytes { key in
            try store.withValue(forKey: key, in: "b") { _ -> Int in
                calls += 1
                return calls
            }
        }
        #expect(absent == nil && otherKeyspace == nil && calls == 0)
        #expect(throws: BodyFailed.self) {
            try b("e1").withUnsafeBytes { key in
                try store.withValue(forKey: key, in: "a") { _ in throw BodyFailed() }
            }
        }
        #expect(try read("e1", "a") == "salary 2000000")  // the lock was let go
        try store.close()
        #expect(throws: LogStoreError.closed) { try read("e1", "a") }
    }

    @Test func readOnlyOpenRefusesWritesAndNeedsNoLock() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let writer = try LogStore(path: path)
        try writer.put(b("v"), for: b("k"), in: "a")
        var options = LogStoreOptions()
        options.readOnly = true
        let reader = try LogStore(path: path, options: options)
        #expect(try reader.get(b("k"), in: "a") == b("v"))
        #expect(throws: LogStoreError.readOnly(path: path)) {
            try reader.put(b("v"), for: b("k"), in: "a")
        }
    }

    @Test func secondWriterInProcessIsLocked() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let first = try LogStore(path: path)
        #expect(throws: LogStoreError.locked(path: path)) { _ = try LogStore(path: path) }
        try first.close()
        _ = try LogStore(path: path)
    }

    @Test func filesAreOwnerOnly() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        let store = try LogStore(path: path)
        try store.put(b("v"), for: b("k"), in: "a")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        for file in segmentFiles(path) + [path + "/LOCK"] {
            let mode =
                try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
    }

    @Test func pathThatIsAFileOrSymlinkIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        writeFile(dir.child("file"), [1, 2, 3])
        #expect(throws: LogStoreError.self) { _ = try LogStore(path: dir.child("file")) }
        try FileManager.default.createDirectory(
            atPath: dir.child("real"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: dir.child("link"), withDestinationPath: dir.child("real"))
        #expect(throws: LogStoreError.self) { _ = try LogStore(path: dir.child("link")) }
    }

    @Test func segmentsRollAtTheConfiguredSize() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        var options = LogStoreOptions()
        options.segmentSize = 4096
        options.durability = .buffered
        do {
            let store = try LogStore(path: path, options: options)
            for i in 0..<500 {
                try store.put(
                    [UInt8](repeating: UInt8(i % 251), count: 100), for: b("\(i)"), in: "a")
            }
            #expect(try store.stats().segments > 5)
        }
        #expect(segmentFiles(path).count > 5)
        let store = try LogStore(path: path, options: options)
        #expect(try store.count(in: "a") == 500)
        #expect(
            try store.get(b("499"), in: "a") == [UInt8](repeating: UInt8(499 % 251), count: 100))
    }
}

@Suite struct IterationOrderTests {
    @Test func forEachVisitsRecordsInLogOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var options = LogStoreOptions()
        options.segmentSize = 4096
        let store = try LogStore(path: dir.child("s"), options: options)
        var rng = SeededGenerator(seed: 5)
        let keys = (0..<3000).map { _ in "k\(UInt64.random(in: 0...UInt64.max, using: &rng))" }
        for key in keys {
            try store.put(Array(key.utf8), for: Array(key.utf8), in: "k", durability: .buffered)
        }
        // Rewrite the first hundred: they move to the end of the log.
        for key in keys.prefix(100) {
            try store.put(Array(key.utf8), for: Array(key.utf8), in: "k", durability: .buffered)
        }
        var seen: [String] = []
        try store.forEach(in: "k") { key, _ in seen.append(String(decoding: key, as: UTF8.self)) }
        #expect(seen == Array(keys.dropFirst(100)) + Array(keys.prefix(100)))
    }
}
