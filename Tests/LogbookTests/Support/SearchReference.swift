import Foundation

/// The search of FORMAT.md Part 2 ("Text index") written plainly, with Swift strings and a
/// list of documents: what the library's text index and ranking must agree with.
enum SearchReference {
    /// The terms of `text`, by the rules of the format written one character at a time.
    static func terms(_ text: String) -> [String] {
        var terms: [String] = []
        var current = ""
        var standalone = false
        func flush() {
            if !current.isEmpty { terms.append(fold(current)) }
            current = ""
            standalone = false
        }
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter,
                .otherLetter:
                if isHanOrKana(scalar) {
                    flush()
                    current.unicodeScalars.append(scalar)
                    standalone = true
                } else {
                    if standalone { flush() }
                    current.unicodeScalars.append(scalar)
                }
            case .decimalNumber, .letterNumber, .otherNumber:
                if standalone { flush() }
                current.unicodeScalars.append(scalar)
            case .nonspacingMark, .spacingMark, .enclosingMark:
                if !current.isEmpty && !isDiacritic(scalar) {
                    current.unicodeScalars.append(scalar)
                }
            default:
                flush()
            }
        }
        flush()
        return terms.filter { !$0.isEmpty }
    }

    private static func fold(_ term: String) -> String {
        var spelled = ""
        for scalar in term.unicodeScalars {
            switch scalar {
            case "ø", "Ø": spelled += "o"
            case "æ", "Æ": spelled += "ae"
            case "œ", "Œ": spelled += "oe"
            case "ł", "Ł": spelled += "l"
            case "đ", "Đ", "ð", "Ð": spelled += "d"
            case "þ", "Þ": spelled += "th"
            case "ħ", "Ħ": spelled += "h"
            case "ŧ", "Ŧ": spelled += "t"
            default: spelled.unicodeScalars.append(scalar)
            }
        }
        var folded = ""
        for scalar in spelled.unicodeScalars {
            let once = String(scalar).lowercased().uppercased().lowercased()
            folded.unicodeScalars.append(
                contentsOf: once.unicodeScalars.filter { !isDiacritic($0) })
        }
        var bytes = Array(folded.utf8)
        if bytes.count > 128 {
            var end = 128
            while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
            bytes = Array(bytes[0..<end])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isHanOrKana(_ scalar: Unicode.Scalar) -> Bool {
        (0x3040...0x30FF).contains(scalar.value) || (0x31F0...0x31FF).contains(scalar.value)
            || (0xFF66...0xFF9F).contains(scalar.value) || scalar.properties.isIdeographic
    }

    private static func isDiacritic(_ scalar: Unicode.Scalar) -> Bool {
        let ranges: [ClosedRange<UInt32>] = [
            0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
            0x0591...0x05BD, 0x05BF...0x05BF, 0x05C1...0x05C2, 0x05C4...0x05C5, 0x05C7...0x05C7,
            0x0610...0x061A, 0x064B...0x065F, 0x0670...0x0670,
        ]
        return ranges.contains { $0.contains(scalar.value) }
    }

    /// A document: its terms with their positions (fields one apart).
    struct Document {
        var id: Int
        var terms: [(term: String, position: Int)] = []

        init(id: Int, fields: [String?]) {
            self.id = id
            var position = 0
            for field in fields {
                for term in field.map(SearchReference.terms) ?? [] {
                    terms.append((term, position))
                    position += 1
                }
                position += 1
            }
        }

        /// How often a query item (terms in a row, each exact or a prefix) occurs.
        func frequency(_ item: [(term: String, prefix: Bool)]) -> Int {
            var count = 0
            for start in terms.indices where start + item.count <= terms.count {
                let matches = item.enumerated().allSatisfy { k, part in
                    let t = terms[start + k]
                    return t.position == terms[start].position + k
                        && (part.prefix
                            ? t.term.utf8.starts(with: part.term.utf8) : t.term == part.term)
                }
                if matches { count += 1 }
            }
            return count
        }
    }

    /// The query's items: words (`*` at the end for a prefix), "quoted phrases".
    static func items(_ query: String) -> [[(term: String, prefix: Bool)]] {
        var items: [[(term: String, prefix: Bool)]] = []
        func parts(_ text: Substring) -> [(term: String, prefix: Bool)] {
            var parts: [(term: String, prefix: Bool)] = []
            for word in text.split(whereSeparator: { $0.isWhitespace }) {
                let found = terms(String(word))
                parts += found.map { ($0, false) }
                if word.hasSuffix("*"), !found.isEmpty { parts[parts.count - 1].prefix = true }
            }
            return parts
        }
        var rest = Substring(query)
        while let quote = rest.firstIndex(of: "\"") {
            for word in rest[..<quote].split(whereSeparator: { $0.isWhitespace }) {
                let p = parts(word)
                if !p.isEmpty { items.append(p) }
            }
            let after = rest[rest.index(after: quote)...]
            let close = after.firstIndex(of: "\"") ?? after.endIndex
            let p = parts(after[..<close])
            if !p.isEmpty { items.append(p) }
            rest = close == after.endIndex ? "" : after[after.index(after: close)...]
        }
        for word in rest.split(whereSeparator: { $0.isWhitespace }) {
            let p = parts(word)
            if !p.isEmpty { items.append(p) }
        }
        return items
    }

    /// The ids matching `query` in `documents`, best first, with BM25 scores.
    static func search(_ query: String, in documents: [Document]) -> [(id: Int, score: Double)] {
        let items = items(query)
        guard !items.isEmpty else { return [] }
        let n = Double(documents.count)
        let average =
            documents.isEmpty
            ? 0 : Double(documents.reduce(0) { $0 + $1.terms.count }) / n
        let frequencies = documents.map { document in items.map { document.frequency($0) } }
        let idf = items.indices.map { i -> Double in
            let df = Double(frequencies.filter { $0[i] > 0 }.count)
            return log(1 + (n - df + 0.5) / (df + 0.5))
        }
        var results: [(id: Int, score: Double)] = []
        for (d, document) in documents.enumerated() where frequencies[d].allSatisfy({ $0 > 0 }) {
            var score = 0.0
            for i in items.indices {
                let tf = Double(frequencies[d][i])
                let norm = average > 0 ? Double(document.terms.count) / average : 1
                score += idf[i] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * norm))
            }
            results.append((document.id, score))
        }
        return results.sorted { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
    }
}
