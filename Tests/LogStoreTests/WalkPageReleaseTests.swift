import Foundation
import TestSupport
import Testing

@testable import LogStore

/// A walk in log order (`forEach(in:)`) drops the mapped pages it has passed from memory, of the
/// segments and of a table mapped from `keys.dir`, and never one a write has made this
/// process's own.
@Suite struct WalkPageReleaseTests {
    private func options() -> LogStoreOptions { .alwaysWritingKeyDirectoryFile }

    /// Byte `j` is `j + 7i + round` (mod 256): made one cycle of 256 bytes at a time (a closure
    /// call per byte of 16 MB was three quarters of this suite's CPU in a debug build).
    private func value(_ i: Int, _ round: Int, count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        let cycle = (0..<min(count, 256)).map { UInt8(truncatingIfNeeded: $0 &+ i &* 7 &+ round) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count + cycle.count <= count { bytes += cycle }
        bytes += cycle.prefix(count - bytes.count)
        return bytes
    }

    #if os(Linux)
        @Test func aWalkKeepsOnlyAFewMegabytesOfTheLogResident() throws {
            let dir = TemporaryDirectory()
            defer { dir.remove() }
            let store = try LogStore(path: dir.path, options: options())
            let keys = 4_000  // 16 MB of values: four release steps
            for i in 0..<keys {
                try store.put(
                    value(i, 0, count: 4096), for: Array("k\(i)".utf8), in: "a",
                    durability: .buffered)
            }
            try store.close()
            let reopened = try LogStore(path: dir.path, options: options())
            defer { try? reopened.close() }
            var seen = 0
            var sum = 0
            var peakKB = 0
            try reopened.forEach(in: "a") { _, value in
                for byte in value { sum &+= Int(byte) }
                seen += 1
                if seen % 500 == 0 {
                    peakKB = max(peakKB, try #require(residentKB(ofFilesUnder: dir.path)))
                }
            }
            #expect(seen == keys)
            #expect(sum != 0)
            // Without the release every value read stays resident (16 MB).
            #expect(peakKB > 0)
            #expect(peakKB <= 2 * WalkPageRelease.step / 1024 + 512, "resident \(peakKB) KB")
        }
    #endif

    @Test func aWalkOverAMappedTableThatWritesChangedKeepsTheWrites() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var model: [String: [UInt8]] = [:]
        let first = try LogStore(path: dir.path, options: options())
        for i in 0..<3_000 {
            let v = value(i, 0, count: 24)
            try first.put(v, for: Array("k\(i)".utf8), in: "a", durability: .buffered)
            model["k\(i)"] = v
        }
        try first.close()
        #expect(FileManager.default.fileExists(atPath: dir.path + "/" + KeyDirectoryFile.name))
        // The table is mapped from keys.dir; these writes change its pages in place (they stay
        // below the load that would grow it into memory of its own).
        let store = try LogStore(path: dir.path, options: options())
        for i in stride(from: 1, to: 3_000, by: 7) {
            try store.delete(Array("k\(i)".utf8), in: "a", durability: .buffered)
            model["k\(i)"] = nil
        }
        for i in Array(stride(from: 0, to: 3_000, by: 3)) + Array(3_000..<3_040) {
            let v = value(i, 1, count: 24)
            try store.put(v, for: Array("k\(i)".utf8), in: "a", durability: .buffered)
            model["k\(i)"] = v
        }
        for _ in 0..<2 {
            var walked: [String: [UInt8]] = [:]
            try store.forEach(in: "a") { key, value in
                walked[String(decoding: key, as: UTF8.self)] = Array(value)
            }
            #expect(walked == model)
            for (key, v) in model {
                #expect(try store.get(Array(key.utf8), in: "a") == v, "\(key)")
            }
            #expect(try store.count(in: "a") == model.count)
        }
        try store.close()
        let reopened = try LogStore(path: dir.path, options: options())
        defer { try? reopened.close() }
        var walked: [String: [UInt8]] = [:]
        try reopened.forEach(in: "a") { key, value in
            walked[String(decoding: key, as: UTF8.self)] = Array(value)
        }
        #expect(walked == model)
    }

    @Test func aReadOnlyWalkOverAMappedTableLeavesLookupsWhole() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let first = try LogStore(path: dir.path, options: options())
        for i in 0..<3_000 {
            try first.put(value(i, 0, count: 24), for: Array("k\(i)".utf8), in: "a")
        }
        try first.close()
        var readOnly = options()
        readOnly.readOnly = true
        let store = try LogStore(path: dir.path, options: readOnly)
        defer { try? store.close() }
        var count = 0
        try store.forEach(in: "a") { _, _ in count += 1 }
        #expect(count == 3_000)
        for i in 0..<3_000 {
            #expect(try store.get(Array("k\(i)".utf8), in: "a") == value(i, 0, count: 24))
        }
    }
}
