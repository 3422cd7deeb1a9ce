import TestSupport
import Testing

@testable import Logbook

/// `ASCIIScan`'s word-at-a-time answers equal a byte loop's, at every length and alignment,
/// and with the byte that decides anywhere in a word.
@Suite struct ASCIIScanTests {
    private func reference(_ bytes: [UInt8], from start: Int) -> Int? {
        (start..<bytes.count).first { bytes[$0] == 0x22 || bytes[$0] == 0x5C || bytes[$0] < 0x20 }
    }

    @Test func randomBytesGiveTheByteLoopsAnswers() {
        var rng = SeededGenerator(seed: testSeed("ASCIIScan"))
        // Mostly plain text, with now and then one of the bytes that decide.
        let special: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x21, 0x5B, 0x5D, 0x7F, 0x80, 0xFF]
        for _ in 0..<3_000 {
            let count = Int.random(in: 0..<40, using: &rng)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0x23...0x5B, using: &rng) }
            for _ in 0..<Int.random(in: 0...2, using: &rng) where count > 0 {
                bytes[Int.random(in: 0..<count, using: &rng)] = special.randomElement(using: &rng)!
            }
            let start = Int.random(in: 0...count, using: &rng)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(
                    ASCIIScan.firstQuoteBackslashOrControl(in: buffer, from: start)
                        == reference(bytes, from: start), "\(bytes) from \(start)")
                #expect(ASCIIScan.isASCII(buffer) == bytes.allSatisfy { $0 < 0x80 }, "\(bytes)")
                #expect(
                    ASCIIScan.isPrintableASCII(buffer)
                        == bytes.allSatisfy { (0x20...0x7E).contains($0) }, "\(bytes)")
                #expect(
                    ASCIIScan.firstIndex(of: 0x22, in: buffer) == bytes.firstIndex(of: 0x22),
                    "\(bytes)")
            }
        }
    }

    @Test func everyDecidingByteIsFoundInEveryPlaceOfAWord() {
        for byte: UInt8 in [0x22, 0x5C, 0x00, 0x01, 0x0A, 0x1F] {
            for place in 0..<17 {
                var bytes = [UInt8](repeating: 0x61, count: 17)
                bytes[place] = byte
                bytes.withUnsafeBufferPointer { buffer in
                    #expect(ASCIIScan.firstQuoteBackslashOrControl(in: buffer, from: 0) == place)
                }
            }
        }
        // Printable ASCII ends at a byte below space or above `~`, wherever in a word it is,
        // and not at either end of the range.
        // Every length: short texts are read as one word, longer ones end with a word that
        // overlaps the one before.
        for byte: UInt8 in [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xFF] {
            for count in 1...17 {
                for place in 0..<count {
                    var bytes = [UInt8](repeating: 0x61, count: count)
                    bytes[place] = byte
                    bytes.withUnsafeBufferPointer { buffer in
                        #expect(
                            !ASCIIScan.isPrintableASCII(buffer), "\(byte) at \(place) of \(count)")
                    }
                }
            }
        }
        for byte: UInt8 in [0x20, 0x21, 0x7D, 0x7E] {
            [UInt8](repeating: byte, count: 17).withUnsafeBufferPointer { buffer in
                #expect(ASCIIScan.isPrintableASCII(buffer), "\(byte)")
            }
        }
        // Bytes of 0x80 and up, and the neighbours of the deciding ones, are plain.
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        plain.withUnsafeBufferPointer { buffer in
            #expect(ASCIIScan.firstQuoteBackslashOrControl(in: buffer, from: 0) == nil)
            #expect(!ASCIIScan.isASCII(buffer))
        }
    }
}
