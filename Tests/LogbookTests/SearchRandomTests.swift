import Foundation
import Logbook
import TestSupport
import Testing

/// Search against ``SearchReference`` (the same rules, written plainly over a list of
/// documents) on a random corpus in many scripts and spellings: every query's matches, order
/// and scores agree, through saves, pending changes, reopens that read the text sidecar, and
/// batch updates.
@Suite struct SearchRandomTests {
    /// Words in several spellings of the same terms (case, accents, compatibility forms) and in
    /// scripts with and without spaces.
    static let words = [
        "José", "jose", "JOSÉ", "Müller", "muller", "MÜLLER", "Straße", "STRASSE", "Łódź", "lodz",
        "Ærøskøbing", "Ann", "anna", "Annette", "lee", "Lee-Smith", "O'Brien", "ﬁle", "Ｆｕｌｌ",
        "Σοφία", "ΣΟΦΙΑ", "Пётр", "петр", "Москва", "北京", "大学", "東京タワー", "ひらがな",
        "서울", "مُحَمَّد", "محمد", "שָׁלוֹם", "שלום", "กรุงเทพ", "x1", "2024", "r2d2", "café",
        "Café", "naïve", "İstanbul", "istanbul", "😀", "—", "a", "b", "c", "engineer",
    ]

    private static func text(_ rng: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...6, using: &rng)).map { _ in words.randomElement(using: &rng)! }
            .joined(separator: Bool.random(using: &rng) ? " " : ", ")
    }

    private static func query(_ rng: inout SeededGenerator, _ documents: [String]) -> String {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            return words.randomElement(using: &rng)!
        case 1:
            let word = words.randomElement(using: &rng)!
            return String(word.prefix(Int.random(in: 1...max(word.count, 1), using: &rng))) + "*"
        case 2:
            // Two words in a row of a stored text, as a phrase.
            let parts = (documents.randomElement(using: &rng) ?? "").split(separator: " ")
            guard parts.count >= 2 else { return "\"\(words.randomElement(using: &rng)!)\"" }
            let i = Int.random(in: 0..<(parts.count - 1), using: &rng)
            return "\"\(parts[i]) \(parts[i + 1])\""
        case 3:
            return "\(words.randomElement(using: &rng)!) \(words.randomElement(using: &rng)!)"
        default:
            return "\(words.randomElement(using: &rng)!)* \"\(words.randomElement(using: &rng)!)\""
        }
    }

    @Test func searchAgreesWithThePlainImplementation() throws {
        let seed = testSeed("searchAgreesWithThePlainImplementation")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container: ModelContainer? = try fixture.open([SearchArticle.self])
        var context = ModelContext(container!)
        var checked = 0
        var matched = 0
        for step in 0..<60 {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0, 1, 2:
                for _ in 0..<Int.random(in: 1...12, using: &rng) {
                    context.insert(
                        SearchArticle(
                            Self.text(&rng), body: Bool.random(using: &rng) ? Self.text(&rng) : nil,
                            year: Int64.random(in: 1990...2030, using: &rng)))
                }
            case 3:
                for article in try context.fetch(FetchDescriptor<SearchArticle>()).shuffled(
                    using: &rng
                )
                .prefix(4) {
                    article.title = Self.text(&rng)
                    if Bool.random(using: &rng) { article.body = nil }
                }
            case 4:
                for article in try context.fetch(FetchDescriptor<SearchArticle>()).shuffled(
                    using: &rng
                )
                .prefix(2) {
                    context.delete(article)
                }
            case 5:
                let year = Int64.random(in: 1990...2030, using: &rng)
                let replacement = Self.text(&rng)
                try context.update(model: SearchArticle.self, where: #Predicate { $0.year < year })
                {
                    $0.body = replacement
                }
            case 6:
                try context.save()
                if Bool.random(using: &rng) {
                    try container!.close()
                    context = ModelContext(try fixture.open([SearchArticle.self]))
                    container = context.container
                    #expect(container!.textIndexesReadFromSidecar, "step \(step)")
                }
            default:
                try context.save()
            }
            // Every object as a save would leave it: the context's view of the store.
            let all = try context.fetch(FetchDescriptor<SearchArticle>())
            let documents = all.map {
                SearchReference.Document(
                    id: Int($0.persistentModelID.primaryKey), fields: [$0.title, $0.body])
            }
            let texts = all.map(\.title)
            for _ in 0..<8 {
                let query = Self.query(&rng, texts)
                let expected = SearchReference.search(query, in: documents)
                let found = try context.searchMatches(SearchDescriptor<SearchArticle>(query))
                checked += 1
                if !expected.isEmpty { matched += 1 }
                #expect(
                    found.map { Int($0.id.primaryKey) } == expected.map(\.id),
                    "seed \(seed), step \(step), query \(query)")
                for (a, b) in zip(found, expected) where abs(a.score - b.score) > 1e-9 * b.score {
                    Issue.record(
                        "seed \(seed), query \(query): score \(a.score), expected \(b.score)")
                    break
                }
            }
        }
        try container?.close()
        print("search: \(checked) queries, \(matched) with matches")
        #expect(matched > checked / 4)
    }

    @Test func theTokenizerAgreesWithThePlainOneOnRandomText() throws {
        let seed = testSeed("theTokenizerAgreesWithThePlainOneOnRandomText")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchNote.self])
        let context = ModelContext(container)
        // Random scalars of many blocks, with marks and punctuation: each stored text must be
        // found by each of its terms as the plain tokenizer spells them.
        let ranges: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0xC0...0x24F, 0x300...0x36F, 0x370...0x3FF, 0x400...0x4FF, 0x590...0x5FF,
            0x600...0x6FF, 0xE00...0xE7F, 0x1E00...0x1EFF, 0x3040...0x30FF, 0x4E00...0x4E80,
            0xAC00...0xAC40, 0xFB00...0xFB06, 0xFF01...0xFF5E,
        ]
        var texts: [String] = []
        for _ in 0..<200 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...24, using: &rng) {
                let range = ranges.randomElement(using: &rng)!
                if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &rng)) {
                    text.append(scalar)
                }
            }
            texts.append(String(text))
            context.insert(SearchNote(String(text)))
        }
        try context.save()
        let notes = try context.fetch(FetchDescriptor<SearchNote>())
        let documents = notes.map {
            SearchReference.Document(id: Int($0.persistentModelID.primaryKey), fields: [$0.text])
        }
        for text in texts.prefix(60) {
            for term in SearchReference.terms(text).prefix(3) {
                // Quoted, so the term is one item whatever it holds.
                let query = "\"\(term)\""
                let expected = SearchReference.search(query, in: documents).map(\.id)
                let found = try context.searchMatches(SearchDescriptor<SearchNote>(query))
                    .map { Int($0.id.primaryKey) }
                #expect(
                    found == expected,
                    "seed \(seed), term \(term.debugDescription) of \(text.debugDescription)")
                #expect(!found.isEmpty, "seed \(seed), term \(term.debugDescription)")
            }
        }
    }
}
