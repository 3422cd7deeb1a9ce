import CCRC32C
import Testing

@Suite struct CRC32CTests {
    @Test func standardCheckValue() {
        let bytes = Array("123456789".utf8)
        #expect(logbook_crc32c_extend(0, bytes, bytes.count) == 0xE306_9283)
        #expect(logbook_crc32c_extend_portable(0, bytes, bytes.count) == 0xE306_9283)
    }

    @Test func hardwareAndPortableAgreeOnEveryLengthAndAlignment() {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes.withUnsafeBytes { raw in
            for start in 0..<9 {
                for length in 0..<(raw.count - start) {
                    let p = raw.baseAddress! + start
                    #expect(
                        logbook_crc32c_extend(0, p, length)
                            == logbook_crc32c_extend_portable(0, p, length))
                }
            }
        }
    }

    /// Inputs of three 4 KiB lanes or more run as three chains joined by a table
    /// (crc32c_lane_shift.h): the same CRC as the portable code, at every length around whole
    /// multiples of three lanes, from every alignment, and extending a CRC of earlier bytes.
    @Test func threeChainsAgreeWithPortableOnLongInputs() {
        var rng = SystemRandomNumberGenerator()
        let lanes = 3 * 4096
        let bytes = (0..<(lanes * 4 + 64)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes.withUnsafeBytes { raw in
            var lengths: [Int] = []
            for whole in 1...3 {
                for delta in [-9, -8, -1, 0, 1, 7, 8, 15] { lengths.append(whole * lanes + delta) }
            }
            lengths.append(1 << 15)
            for start in [0, 1, 3, 8] {
                for length in lengths {
                    let p = raw.baseAddress! + start
                    #expect(
                        logbook_crc32c_extend(0, p, length)
                            == logbook_crc32c_extend_portable(0, p, length), "length \(length)")
                    #expect(
                        logbook_crc32c_extend(0x1234_5678, p, length)
                            == logbook_crc32c_extend_portable(0x1234_5678, p, length))
                }
            }
        }
    }

    /// The four-at-a-time block CRCs of the key directory file equal one CRC per block, for
    /// every count of whole blocks and a short last block.
    @Test func blockCRCsEqualOneCallPerBlock() {
        var rng = SystemRandomNumberGenerator()
        let block = 64
        let bytes = (0..<(block * 9 + 40)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes.withUnsafeBytes { raw in
            for length in [0, 8, block, block * 3, block * 4, block * 4 + 8, block * 8, raw.count] {
                let blocks = (length + block - 1) / block
                var out = [UInt32](repeating: 0, count: max(blocks, 1))
                logbook_crc32c_blocks(raw.baseAddress, length, block, &out)
                for i in 0..<blocks {
                    let n = min(block, length - i * block)
                    #expect(out[i] == logbook_crc32c_extend(0, raw.baseAddress! + i * block, n))
                }
            }
        }
    }

    @Test func extendingInPiecesEqualsOneCall() {
        let bytes = Array("The quick brown fox jumps over the lazy dog".utf8)
        let whole = logbook_crc32c_extend(0, bytes, bytes.count)
        let first = logbook_crc32c_extend(0, bytes, 10)
        let rest = bytes.withUnsafeBytes {
            logbook_crc32c_extend(first, $0.baseAddress! + 10, bytes.count - 10)
        }
        #expect(whole == rest)
    }
}
