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
