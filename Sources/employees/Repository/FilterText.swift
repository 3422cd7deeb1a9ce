/// What the app adds to Logbook's string predicates for `--where`: digit separators in numbers
/// (`salary > 1_000_000`, as the app's filters always allowed), and finding where a name
/// stands in a filter, so every error can point at a column.
///
/// Both scans know only quotes and word characters; the grammar is Logbook's.
enum FilterText {
    /// The words of Logbook's predicate grammar that make text an expression, lowercased.
    private static let operatorWords: Set<String> = [
        "and", "or", "not", "contains", "beginswith", "endswith", "like", "matches", "in",
        "between", "any", "all", "some", "none", "truepredicate", "falsepredicate", "nil",
        "null", "true", "false",
    ]

    /// Whether `text` is words to search for rather than a filter: it holds no comparison
    /// (`=`, `<`, `>`, `!`), no parenthesis and none of the grammar's words, so it cannot be an
    /// expression — `mar`, `ann lee`, `jo*`, `"ann lee"`.
    static func isPlainWords(_ text: String) -> Bool {
        guard !text.contains(where: { "=<>!(){}[]$%".contains($0) }) else { return false }
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "\"" || $0 == "*" })
        return !words.isEmpty && !words.contains { operatorWords.contains($0.lowercased()) }
    }

    /// `filter` with the `_` separators of numbers removed and line breaks made spaces (outside
    /// quoted strings), so it is one line; and for each character of the result its 1-based
    /// column in `filter`.
    static func withoutDigitSeparators(_ filter: String) -> (text: String, columns: [Int]) {
        let characters = Array(filter)
        var text = ""
        var columns: [Int] = []
        var quote: Character?
        var index = 0
        func keep(_ at: Int) {
            text.append(characters[at])
            columns.append(at + 1)
        }
        while index < characters.count {
            let c = characters[index]
            if let open = quote {
                if c == "\\" && index + 1 < characters.count {
                    keep(index)
                    index += 1
                } else if c == open {
                    quote = nil
                }
                keep(index)
                index += 1
            } else if c == "'" || c == "\"" {
                quote = c
                keep(index)
                index += 1
            } else if c.isNumber && (index == 0 || !isWordCharacter(characters[index - 1])) {
                while index < characters.count {
                    let d = characters[index]
                    let isSeparator =
                        d == "_" && index + 1 < characters.count && characters[index + 1].isNumber
                    if d.isNumber || d == "." {
                        keep(index)
                    } else if !isSeparator {
                        break
                    }
                    index += 1
                }
            } else {
                text.append(c == "\n" ? " " : c)
                columns.append(index + 1)
                index += 1
            }
        }
        return (text, columns)
    }

    /// The 1-based column where `word` first stands on its own in `filter`, outside quoted
    /// strings; `nil` if it does not.
    static func column(ofWord word: String, in filter: String) -> Int? {
        let characters = Array(filter)
        let target = Array(word)
        var quote: Character?
        var index = 0
        while index < characters.count {
            let c = characters[index]
            if let open = quote {
                if c == "\\" { index += 1 } else if c == open { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if isWordCharacter(c), index == 0 || !isWordCharacter(characters[index - 1]) {
                var end = index
                while end < characters.count, isWordCharacter(characters[end]) { end += 1 }
                if Array(characters[index..<end]) == target { return index + 1 }
                index = end
                continue
            }
            index += 1
        }
        return nil
    }

    /// Letters, digits and the other characters Logbook allows in a key path.
    private static func isWordCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_" || c == "." || c == "$"
    }
}
