import Testing

@testable import employees

@Suite struct KeyDecoderTests {
    private func decode(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(bytes)
    }

    @Test func arrowsInBothCursorModes() {
        #expect(
            decode(Array("\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}OD".utf8)) == [.up, .down, .right, .left])
    }

    @Test func editingKeys() {
        #expect(
            decode([0x0D, 0x09, 0x7F, 0x03, 0x15]) == [
                .enter, .tab, .backspace, .interrupt, .clearLine,
            ])
        #expect(
            decode(Array("\u{1B}[Z\u{1B}[3~\u{1B}[5~\u{1B}[6~".utf8)) == [
                .backTab, .delete, .pageUp, .pageDown,
            ])
    }

    @Test func loneEscapeAtTheEndOfAChunkIsTheEscapeKey() {
        #expect(decode([0x1B]) == [.escape])
        #expect(decode([0x61, 0x1B]) == [.character("a"), .escape])
    }

    @Test func utf8SplitAcrossReadsIsJoined() {
        var decoder = KeyDecoder()
        let bytes = Array("é".utf8)
        #expect(decoder.decode([bytes[0]]) == [])
        #expect(decoder.decode([bytes[1], 0x62]) == [.character("é"), .character("b")])
    }

    @Test func unknownSequencesAreIgnoredNotMisread() {
        #expect(decode(Array("\u{1B}[99~x".utf8)) == [.unknown, .character("x")])
    }
}
