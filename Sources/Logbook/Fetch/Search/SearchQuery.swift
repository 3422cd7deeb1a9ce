import Foundation

/// A search's text, parsed: items that must all match an object (FORMAT.md Part 2, "Text
/// index", for the terms).
///
/// - Words separated by white space are items: `ann lee` finds objects with both terms.
/// - A word that ends in `*` matches every term that starts with it: `ann*` finds "Ann",
///   "Anna" and "Annette".
/// - Text in double quotes is a phrase: its terms next to each other, in order (`"ann lee"`).
///   A word whose text is several terms (`o'brien`, `北京`) is a phrase too. Inside quotes,
///   `*` after a word makes its last term a prefix (`"ann le*"`).
/// - The terms are those ``TextTokenizer`` makes, so case and diacritics do not matter.
///
/// A text without terms (empty, or punctuation only) matches nothing. A value type.
struct SearchQuery: Hashable, Sendable {
    /// One term of an item: its bytes, and whether it matches every term it starts.
    struct Part: Hashable, Sendable {
        var term: [UInt8]
        var isPrefix: Bool
    }

    /// Each item is one part (a term or a prefix) or several, next to each other (a phrase).
    var items: [[Part]]

    init(_ text: String) {
        var items: [[Part]] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            if scalar == "\"" {
                var end = i + 1
                while end < scalars.count && scalars[end] != "\"" { end += 1 }
                let phrase = Self.parts(of: scalars[(i + 1)..<end])
                if !phrase.isEmpty { items.append(phrase) }
                i = end + 1
            } else if scalar.properties.isWhitespace {
                i += 1
            } else {
                var end = i
                while end < scalars.count && scalars[end] != "\""
                    && !scalars[end].properties.isWhitespace
                {
                    end += 1
                }
                let word = Self.parts(of: scalars[i..<end])
                if !word.isEmpty { items.append(word) }
                i = end
            }
        }
        self.items = items
    }

    /// The parts of `text`: each white-space-separated word's terms, the last a prefix when
    /// the word ends in `*`.
    private static func parts(of text: ArraySlice<Unicode.Scalar>) -> [Part] {
        var parts: [Part] = []
        var word = String.UnicodeScalarView()
        func flush() {
            guard !word.isEmpty else { return }
            let isPrefix = word.last == "*"
            let before = parts.count
            TextTokenizer.forEachTerm(in: String(word), from: 0) { term, _ in
                parts.append(Part(term: Array(term), isPrefix: false))
            }
            if isPrefix && parts.count > before { parts[parts.count - 1].isPrefix = true }
            word = String.UnicodeScalarView()
        }
        for scalar in text {
            if scalar.properties.isWhitespace { flush() } else { word.append(scalar) }
        }
        flush()
        return parts
    }

    /// Whether the text has no terms (it matches nothing).
    var isEmpty: Bool { items.isEmpty }
}

/// The relevance of an object to a search: BM25 with k1 = 1.2 and b = 0.75, summed over the
/// search's items.
///
/// For an item that occurs `tf` times in an object of `length` terms, among `documents`
/// objects of `averageLength` terms of which `containing` hold it:
/// `idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × length / averageLength))`, with
/// `idf = ln(1 + (documents − containing + 0.5) / (containing + 0.5))` (never negative).
/// A phrase occurs where its terms stand in order; a prefix wherever a term it starts does.
enum BM25 {
    static let k1 = 1.2
    static let b = 0.75

    /// The inverse document frequency of an item `containing` of `documents` objects hold.
    static func idf(documents: Int, containing: Int) -> Double {
        let n = Double(documents)
        let df = Double(containing)
        return log(1 + (n - df + 0.5) / (df + 0.5))
    }

    /// One item's part of an object's score.
    static func score(frequency: Int, length: Int, averageLength: Double, idf: Double)
        -> Double
    {
        let tf = Double(frequency)
        let norm = averageLength > 0 ? Double(length) / averageLength : 1
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * norm))
    }
}
