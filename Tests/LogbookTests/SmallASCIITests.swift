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

    /// Read in place from a larger buffer (two word loads from the string's start when 16 bytes
    /// lie there, else from 16 bytes before its end): only the string's bytes count, whatever
    /// lies around them (here non-ASCII bytes, which a mask or shift that kept too many would
    /// see), at every length and start, and near either end of the buffer.
    @Test func bytesReadInPlaceIgnoreWhatLiesAroundThem() throws {
        #if _pointerBitWidth(_64) && _endian(little) && (arch(x86_64) || arch(arm64))
            for length in 0...15 {
                for start in 0..<24 {
                    let string = (0..<length).map { UInt8(0x61 + ($0 + start) % 26) }
                    let buffer =
                        Array(repeating: UInt8(0xFF), count: start) + string
                        + Array(repeating: UInt8(0xFF), count: 20)
                    for tail in [20, 0, 3] {
                        let bytes = Array(buffer.prefix(start + length + tail))
                        let fast = try #require(
                            bytes.withUnsafeBytes {
                                SmallASCII.make($0, start: start, count: length)
                            })
                        let standard = String(decoding: string, as: UTF8.self)
                        #expect(fast == standard)
                        #expect(
                            unsafeBitCast(fast, to: (UInt64, UInt64).self)
                                == unsafeBitCast(standard, to: (UInt64, UInt64).self))
                    }
                }
            }
            let nonASCII: [UInt8] = [0x41, 0xC3, 0xA9] + Array(repeating: 0x41, count: 20)
            #expect(nonASCII.withUnsafeBytes { SmallASCII.make($0, start: 0, count: 3) } == nil)
            #expect(nonASCII.withUnsafeBytes { SmallASCII.make($0, start: 1, count: 2) } == nil)
            #expect(nonASCII.withUnsafeBytes { SmallASCII.make($0, start: 3, count: 16) } == nil)
        #endif
    }

    @Test func longOrNonASCIIBytesAreLeftToTheStandardPath() {
        #expect(made(Array(repeating: 65, count: 16)) == nil)
        #expect(made([0x61, 0xC3, 0xA9]) == nil)
        #expect(made([0x80]) == nil)
        #expect(made([0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0xFF]) == nil)
    }
}
