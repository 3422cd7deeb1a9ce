import Foundation

/// Bytes of a string, for terse tests.
public func b(_ string: String) -> [UInt8] { Array(string.utf8) }

/// A small, seeded random number generator (SplitMix64) so randomized tests can be replayed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that yields the same numbers for the same seed.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    /// `count` random bytes, eight from each number (a byte at a time is slow in debug builds).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < count {
                var word = next()
                let length = min(8, count - offset)
                withUnsafeBytes(of: &word) {
                    raw.baseAddress!.advanced(by: offset).copyMemory(
                        from: $0.baseAddress!, byteCount: length)
                }
                offset += length
            }
        }
        return bytes
    }
}

/// The seed for a randomized test: `LOGBOOK_SEED` if set, else a fresh one. Printed either way,
/// so a failure can be replayed with `LOGBOOK_SEED=<seed> swift test --filter <test>`.
public func testSeed(_ name: String) -> UInt64 {
    let seed =
        ProcessInfo.processInfo.environment["LOGBOOK_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 0...UInt64.max)
    print("\(name): seed \(seed) (replay with LOGBOOK_SEED=\(seed))")
    return seed
}

/// Reads a whole file.
public func readFile(_ path: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}

/// The lines of a file (split at `\n`, empty lines dropped), found with `memchr`: a test
/// reading tens of MiB of a tool's output does not split it a byte or a character at a time
/// in an unoptimized build.
public func readLines(_ path: String) -> [Substring] {
    let bytes = readFile(path)
    var lines: [Substring] = []
    bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        var start = 0
        while start < buffer.count {
            let found = memchr(base + start, 0x0A, buffer.count - start)
            let end =
                found.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
                ?? buffer.count
            if end > start {
                lines.append(
                    Substring(
                        String(
                            decoding: UnsafeBufferPointer(start: base + start, count: end - start),
                            as: UTF8.self)))
            }
            start = end + 1
        }
    }
    return lines
}

/// Whether the files at `a` and `b` hold the same bytes from `offset` on, compared with
/// `memcmp`: `==` of two arrays of tens of MiB goes a byte at a time, seconds in an unoptimized
/// build (and a failed `#expect` of them would be diffed for ever).
public func sameFileBytes(_ a: String, _ b: String, from offset: Int = 0) -> Bool {
    let (first, second) = (readFile(a), readFile(b))
    guard first.count == second.count else { return false }
    guard first.count > offset else { return true }
    return first.withUnsafeBytes { x in
        second.withUnsafeBytes { y in
            memcmp(x.baseAddress! + offset, y.baseAddress! + offset, x.count - offset) == 0
        }
    }
}

/// Writes a whole file (replacing it).
public func writeFile(_ path: String, _ bytes: [UInt8]) {
    try? Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Paths of the segment files of the store at `path`, in replay order.
public func segmentFiles(_ path: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.filter { $0.hasSuffix(".seg") }.sorted().map { "\(path)/\($0)" }
}

/// The little-endian CRC32C of `bytes`, as stored in frame and file headers.
package func crcBytes(_ bytes: [UInt8]) -> [UInt8] {
    let crc = CRC32CReference.checksum(bytes)
    return [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
}

/// Makes the 24-byte file header at the start of `bytes` (FORMAT.md, "File header") check
/// again after a test changed its fields: its CRC (bytes 20..<24) becomes that of bytes 0..<20.
package func resealFileHeader(_ bytes: inout [UInt8]) {
    bytes.replaceSubrange(20..<24, with: crcBytes(Array(bytes[0..<20])))
}

/// A bit-at-a-time CRC32C, independent of the library's, for tests that forge frames.
package enum CRC32CReference {
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }
}
