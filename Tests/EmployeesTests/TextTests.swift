import Testing

@testable import employees

/// Terminal widths of text, and the text field's cursor.
@Suite struct TextTests {
    @Test(arguments: [
        ("Ann", 3), ("李小龙", 6), ("Zoë", 3), ("e\u{301}", 1), ("👍", 2), ("👍🏽", 2),
        ("👩‍💻", 2), ("🇩🇪", 2), ("❤️", 2), ("1️⃣", 2), ("ｶ", 1), ("ＡＢ", 4), ("한글", 4),
        ("\u{200B}", 0), ("…", 1), ("", 0),
    ])
    func displayWidth(_ text: String, _ width: Int) {
        #expect(text.displayWidth == width)
    }

    @Test func fittingCutsAndPadsByColumns() {
        #expect("李小龙".fitted(to: 6) == "李小龙")
        #expect("李小龙".fitted(to: 8) == "李小龙  ")
        #expect("李小龙".fitted(to: 5) == "李小…")
        #expect("a李小龙".fitted(to: 5) == "a李… ", "a wide character never straddles the edge")
        #expect("李小龙".fitted(to: 4) == "李… ")
        #expect("Ann Lee".fitted(to: 4) == "Ann…")
        #expect("x".fitted(to: 0) == "")
        #expect("42".alignedRight(to: 5) == "   42")
        #expect(String.spread("李", "9", width: 6) == "李   9")
    }

    @Test func textFieldEditsAtTheCursor() {
        var field = TextField("Ann")
        #expect(field.cursor == 3)
        for key in [Key.left, .left, .character("x"), .home, .character(">"), .end, .right] {
            _ = field.handle(key)
        }
        #expect(field.text == ">Axnn" && field.cursor == 5)
        for key in [Key.home, .delete, .right, .backspace, .backspace] { _ = field.handle(key) }
        #expect(field.text == "xnn" && field.cursor == 0)
        _ = field.handle(.clearLine)
        #expect(field.text == "" && field.cursor == 0)
        #expect(field.handle(.up) == false, "keys it does not use are left to the form")
    }

    @Test func aCombiningMarkJoinsTheCharacterBeforeTheCursor() {
        var field = TextField("Zoe")
        _ = field.handle(.character("\u{301}"))
        #expect(field.text == "Zoé" && field.cursor == 3)
        _ = field.handle(.backspace)
        #expect(field.text == "Zo")
        var emoji = TextField()
        for scalar in ["👍", "\u{1F3FD}", "!"] { _ = emoji.handle(.character(Character(scalar))) }
        #expect(emoji.text == "👍🏽!" && emoji.cursor == 2)
    }

    @Test func ctrlAAndCtrlEAreHomeAndEnd() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x01, 0x05]) == [.home, .end])
    }
}
