import Foundation
import TestSupport
import Testing

@testable import Logbook

/// ``IndexEntries/sorted()``: the entries in the order of their bytes (``IndexBytes``), each
/// once, whatever they share: runs of one 8-byte head out of order (an indexed integer's value
/// in its head and next bytes), entries that tie over 16 bytes and differ after, entries that
/// end inside the first 16 bytes or are a prefix of another, and repeats.
@Suite struct IndexEntriesSortTests {
    /// Entries drawn from a few bytes, so that heads, next 8 bytes and whole entries tie often.
    static func entry(using rng: inout SeededGenerator) -> [UInt8] {
        let shape = Int.random(in: 0..<4, using: &rng)
        switch shape {
        case 0:  // an integer field, then a primary key: a head shared by runs of values
            let value = UInt64.random(in: 30_000...200_000, using: &rng)
            let pk = UInt64.random(in: 1...5_000, using: &rng)
            return [0x02] + bytes(value) + bytes(pk)
        case 1:  // 16 bytes alike, then a difference
            return Array(repeating: 0x41, count: 16) + [UInt8.random(in: 0...3, using: &rng)]
                + bytes(UInt64.random(in: 0...3, using: &rng))
        default:  // short entries over two bytes, some a prefix of others, zero bytes included
            let length = Int.random(in: 1...18, using: &rng)
            return (0..<length).map { _ in [0x00, 0x41][Int.random(in: 0...1, using: &rng)] }
        }
    }

    static func bytes(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    @Test(arguments: [2, 70, 3_000, 20_000])
    func sortedIsTheOrderOfTheBytesWithoutRepeats(count: Int) {
        var rng = SeededGenerator(seed: testSeed("index entries sort \(count)"))
        var all: [[UInt8]] = (0..<count).map { _ in Self.entry(using: &rng) }
        // Repeats, and runs already in order, as saves hand them over.
        all += all.prefix(count / 5)
        all += all.prefix(count / 3).sorted { $0.lexicographicallyPrecedes($1) }
        all.shuffle(using: &rng)
        var entries = IndexEntries()
        for entry in all { entry.withUnsafeBytes { entries.append($0) } }

        let sorted = entries.sorted()

        var expected: [[UInt8]] = []
        for entry in all.sorted(by: { $0.lexicographicallyPrecedes($1) })
        where expected.last != entry {
            expected.append(entry)
        }
        var found: [[UInt8]] = []
        sorted.forEach { found.append(Array($0)) }
        #expect(found == expected)
    }
}
