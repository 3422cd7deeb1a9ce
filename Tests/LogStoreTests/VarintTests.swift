import LogStore
import Testing

/// The package's one varint codec (FORMAT.md, "Conventions").
@Suite struct VarintTests {
    private func decode(_ bytes: [UInt8]) -> (value: UInt64?, offset: Int) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            let value = Varint.read(raw, &offset)
            return (value, offset)
        }
    }

    @Test(arguments: [
        UInt64(0), 1, 127, 128, 300, 16_383, 16_384, UInt64(UInt32.max), 1 << 62, 1 << 63,
        UInt64.max,
    ])
    func valuesSurviveARoundTrip(_ value: UInt64) {
        var bytes: [UInt8] = []
        Varint.append(value, to: &bytes)
        #expect(bytes.count == Varint.size(value))
        #expect(bytes.count <= Varint.maxSize)
        let decoded = decode(bytes)
        #expect(decoded.value == value)
        #expect(decoded.offset == bytes.count)
    }

    @Test func theLargestValueTakesTenBytesEndingInOne() {
        var bytes: [UInt8] = []
        Varint.append(.max, to: &bytes)
        #expect(bytes == [UInt8](repeating: 0xFF, count: 9) + [0x01])
    }

    /// A 10th byte may hold only bit 63: anything more overflows 64 bits and is refused, not
    /// wrapped (a reader that wraps would take a huge length for a small one).
    @Test(arguments: [UInt8(0x02), 0x03, 0x7F])
    func tenByteVarintThatOverflowsSixtyFourBitsIsRefused(_ last: UInt8) {
        let bytes = [UInt8](repeating: 0xFF, count: 9) + [last]
        let decoded = decode(bytes)
        #expect(decoded.value == nil)
        #expect(decoded.offset == 0)
    }

    @Test func elevenByteVarintIsRefused() {
        // Ten continuation bytes of zeros, then a terminator: a value of 0, but too long.
        let bytes = [UInt8](repeating: 0x80, count: 10) + [0x00]
        #expect(decode(bytes).value == nil)
    }

    @Test func varintCutShortIsRefusedAndLeavesTheOffset() {
        let decoded = decode([0x80, 0x80])
        #expect(decoded.value == nil)
        #expect(decoded.offset == 0)
    }

    @Test func longerEncodingsThanNeededAreAccepted() {
        // FORMAT.md allows them: 1 written in three bytes.
        #expect(decode([0x81, 0x80, 0x00]).value == 1)
    }
}
