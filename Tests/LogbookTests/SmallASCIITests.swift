import Foundation
import Testing

@testable import Logbook

/// Short ASCII strings built in the small-string layout are the strings the standard
/// initializer builds, for every length and byte; anything else is left to it.
@Suite struct SmallASCIITests {
    private func made(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { SmallASCII.make($0) }
    }

    @Test func everyLengthAndEveryASCIIByteMatchesTheStandardString() throws {
        #if _pointerBitWidth(_64) && _endian(little) && (arch(x86_64) || arch(arm64))
            for length in 0...15 {
                for first in UInt8(0)...UInt8(127) {
                    let bytes = (0..<length).map { UInt8((Int(first) + $0 * 37) % 128) }
                    let standard = String(decoding: bytes, as: UTF8.self)
                    let fast = try #require(made(bytes))
                    #expect(fast == standard)
                    // The same bits: the same form (small, ASCII), not only equal contents.
                    let bits = unsafeBitCast(fast, to: (UInt64, UInt64).self)
                    let standardBits = unsafeBitCast(standard, to: (UInt64, UInt64).self)
                    #expect(bits == standardBits)
                    #expect(Array(fast.utf8) == bytes)
                    #expect(fast.count == standard.count)
                    #expect(fast.hashValue == standard.hashValue)
                    #expect(fast + "!" == standard + "!")
                }
            }
        #endif
    }

    @Test func longOrNonASCIIBytesAreLeftToTheStandardPath() {
        #expect(made(Array(repeating: 65, count: 16)) == nil)
        #expect(made([0x61, 0xC3, 0xA9]) == nil)
        #expect(made([0x80]) == nil)
        #expect(made([0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0xFF]) == nil)
    }
}
