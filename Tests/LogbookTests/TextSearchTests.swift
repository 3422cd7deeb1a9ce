import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Full-text search as an app uses it: `@Attribute(.searchable)`, folding, prefixes, phrases,
/// ranking, limits, predicates, pending changes, the dynamic API, and the text sidecar.
@MainActor @Suite struct TextSearchTests {
    private func titles(_ articles: [Article]) -> [String] { articles.map(\.title) }

    @Test func caseAndDiacriticsAreFolded() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self])
        let context = ModelContext(container)
        context.insert(Article("José Müller"))
        context.insert(Article("Straße in Łódź"))
        context.insert(Article("Ærøskøbing"))
        try context.save()
        for query in ["jose", "JOSÉ", "muller", "Müller", "MUELLER muller"] {
            let found = try context.search(SearchDescriptor<Article>(query))
            #expect(
                titles(found) == (query.hasPrefix("MUELLER") ? [] : ["José Müller"]),
                "query \(query)")
        }
        #expect(
            titles(try context.search(SearchDescriptor<Article>("strasse"))) == ["Straße in Łódź"])
        #expect(titles(try context.search(SearchDescriptor<Article>("lodz"))) == ["Straße in Łódź"])
        #expect(
            titles(try context.search(SearchDescriptor<Article>("aeroskobing"))) == ["Ærøskøbing"])
    }

    @Test func prefixesAndPhrases() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self])
        let context = ModelContext(container)
        for title in ["Ann Lee", "Anna Leeds", "Lee Ann", "Annette Lee-Smith", "Bob"] {
            context.insert(Article(title))
        }
        try context.save()
        #expect(
            Set(titles(try context.search(SearchDescriptor<Article>("ann*"))))
                == ["Ann Lee", "Anna Leeds", "Lee Ann", "Annette Lee-Smith"])
        #expect(titles(try context.search(SearchDescriptor<Article>("\"ann lee\""))) == ["Ann Lee"])
        #expect(
            Set(titles(try context.search(SearchDescriptor<Article>("ann lee"))))
                == ["Ann Lee", "Lee Ann"])
        #expect(
            Set(titles(try context.search(SearchDescriptor<Article>("\"ann* lee\""))))
                == ["Ann Lee", "Annette Lee-Smith"])
        #expect(
            titles(try context.search(SearchDescriptor<Article>("lee-smith"))) == [
                "Annette Lee-Smith"
            ])
        #expect(try context.search(SearchDescriptor<Article>("")).isEmpty)
        #expect(try context.search(SearchDescriptor<Article>("*  !!")).isEmpty)
    }

    @Test func chineseIsMatchedCharacterByCharacter() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self])
        let context = ModelContext(container)
        context.insert(Article("北京大学"))
        context.insert(Article("京北"))
        context.insert(Article("東京タワー"))
        try context.save()
        #expect(titles(try context.search(SearchDescriptor<Article>("北京"))) == ["北京大学"])
        #expect(
            Set(titles(try context.search(SearchDescriptor<Article>("北 京")))) == ["北京大学", "京北"])
        #expect(titles(try context.search(SearchDescriptor<Article>("京タ"))) == ["東京タワー"])
    }

    @Test func resultsAreRankedAndLimited() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self])
        let context = ModelContext(container)
        context.insert(Article("swift", body: "a long text about many other things and swift"))
        context.insert(Article("swift swift", body: "swift"))
        context.insert(Article("swift"))
        context.insert(Article("nothing here"))
        try context.save()
        let matches = try context.searchMatches(SearchDescriptor<Article>("swift"))
        #expect(matches.count == 3)
        #expect(matches.map(\.score) == matches.map(\.score).sorted(by: >))
        let ranked = try context.search(SearchDescriptor<Article>("swift"))
        #expect(ranked.first?.title == "swift swift")
        #expect(ranked.last?.body?.hasPrefix("a long text") == true)
        let best = try context.search(SearchDescriptor<Article>("swift", limit: 1))
        #expect(best.map(\.title) == ["swift swift"])
        #expect(try context.search(SearchDescriptor<Article>("swift", limit: 0)).isEmpty)
    }

    @Test func aPredicateNarrowsTheResults() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self])
        let context = ModelContext(container)
        for year in Int64(2000)..<2010 {
            context.insert(
                Article("report \(year)", year: year, author: year % 2 == 0 ? "Ann" : "Bob"))
        }
        try context.save()
        let recent = try context.search(
            SearchDescriptor<Article>(
                "report", predicate: #Predicate { $0.year >= 2005 && $0.author == "Ann" }))
        #expect(Set(recent.map(\.year)) == [2006, 2008])
        let limited = try context.search(
            SearchDescriptor<Article>("report", predicate: #Predicate { $0.year >= 2005 }, limit: 2)
        )
        #expect(limited.count == 2)
        #expect(limited.allSatisfy { $0.year >= 2005 })
        // A predicate only objects answer (a computed value) is tested on the objects.
        let computed = try context.search(
            SearchDescriptor<Article>(
                "report", predicate: #Predicate { $0.title.contains("2003") }))
        #expect(computed.map(\.year) == [2003])
    }

    @Test func pendingChangesAreSearchedAsIfSaved() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self])
        let context = ModelContext(container)
        let kept = Article("alpha beta")
        let changed = Article("alpha gamma")
        let deleted = Article("alpha delta")
        for article in [kept, changed, deleted] { context.insert(article) }
        try context.save()
        changed.title = "omega"
        context.delete(deleted)
        context.insert(Article("alpha epsilon"))
        let found = titles(try context.search(SearchDescriptor<Article>("alpha")))
        #expect(Set(found) == ["alpha beta", "alpha epsilon"])
        // Leaving them out finds the stored objects (registered ones come as they are, with
        // their pending values, as fetches return them).
        var stored = SearchDescriptor<Article>("alpha")
        stored.includePendingChanges = false
        #expect(
            Set(try context.searchMatches(stored).map(\.id))
                == Set([kept, changed, deleted].map(\.persistentModelID)))
        // The scores are those the saved state gives.
        let before = try context.searchMatches(SearchDescriptor<Article>("alpha"))
        try context.save()
        let after = try ModelContext(container).searchMatches(SearchDescriptor<Article>("alpha"))
        #expect(before.map(\.id) == after.map(\.id))
        for (a, b) in zip(before, after) { #expect(abs(a.score - b.score) < 1e-12) }
    }

    @Test func aClassLevelDeclarationAndTheDynamicAPI() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Note.self])
        let context = ModelContext(container)
        context.insert(Note("Buy milk", pinned: true))
        context.insert(Note("Call Müller about milk"))
        try context.save()
        #expect(container.schema.entity(named: "Note")?.attributes.first?.isSearchable == true)
        let typed = try context.search(
            SearchDescriptor<Note>("milk", predicate: #Predicate { $0.pinned }))
        #expect(typed.map(\.text) == ["Buy milk"])
        let dynamic = try context.search(
            EntitySearchDescriptor(
                entityName: "Note", text: "muller milk", predicate: StringPredicate("pinned == NO"))
        )
        #expect(dynamic.count == 1)
        #expect(try dynamic.first?.value(forKey: "text") as? String == "Call Müller about milk")
    }

    @Test func batchUpdatesAndDeletesKeepTheIndexInStep() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self])
        let context = ModelContext(container)
        for i in 0..<20 { context.insert(Article("draft \(i)", year: Int64(2000 + i))) }
        try context.save()
        try context.update(model: Article.self, where: #Predicate { $0.year < 2005 }) {
            $0.title = "final version"
        }
        try context.delete(model: Article.self, where: #Predicate { $0.year >= 2015 })
        let fresh = ModelContext(container)
        #expect(try fresh.searchMatches(SearchDescriptor<Article>("final")).count == 5)
        #expect(try fresh.searchMatches(SearchDescriptor<Article>("draft")).count == 10)
        #expect(try container.textIndexProblems().isEmpty)
    }

    @Test func anEntityWithoutSearchableAttributesSaysSo() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Worker.self, Firm.self])
        let context = ModelContext(container)
        #expect(throws: LogbookError.notSearchable(entity: "Worker")) {
            try context.search(SearchDescriptor<Worker>("anything"))
        }
    }

    @Test func theTextIndexIsReadFromItsSidecarAfterAClose() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try fixture.open([Article.self])
        var context = ModelContext(container)
        for i in 0..<300 { context.insert(Article("article \(i)", body: "word\(i % 7) common")) }
        try context.save()
        #expect(try container.textIndexProblems().isEmpty)
        try container.close()
        container = try fixture.open([Article.self])
        #expect(container.textIndexesReadFromSidecar)
        #expect(try container.textIndexProblems().isEmpty)
        context = ModelContext(container)
        #expect(try context.searchMatches(SearchDescriptor<Article>("word3")).count == 43)
        try container.close()
    }

    @Test func aStaleSidecarIsIgnoredAndTheIndexBuilt() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try fixture.open([Article.self])
        var context = ModelContext(container)
        context.insert(Article("first"))
        try context.save()
        try container.close()
        let sidecar = fixture.url.path + "/logbook-text.sidecar"
        let old = readFile(sidecar)
        #expect(!old.isEmpty)
        container = try fixture.open([Article.self])
        context = ModelContext(container)
        context.insert(Article("second"))
        try context.save()
        try container.close()
        writeFile(sidecar, old)
        container = try fixture.open([Article.self])
        defer { try? container.close() }
        #expect(!container.textIndexesReadFromSidecar)
        #expect(try container.textIndexProblems().isEmpty)
        #expect(try ModelContext(container).search(SearchDescriptor<Article>("second")).count == 1)
    }

    @Test func aDamagedSidecarChunkIsRebuiltFromTheRecords() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try fixture.open([Article.self])
        let context = ModelContext(container)
        for i in 0..<50 { context.insert(Article("title \(i)", body: "text\(i)")) }
        try context.save()
        try container.close()
        let sidecar = fixture.url.path + "/logbook-text.sidecar"
        var bytes = readFile(sidecar)
        // A byte of the first chunk (the contents start at file offset 32, chunks at 32 more).
        // Opening maps the file and checks each chunk before its first use, not the whole file.
        bytes[70] ^= 0x40
        writeFile(sidecar, bytes)
        container = try fixture.open([Article.self])
        defer { try? container.close() }
        let found = try ModelContext(container).searchMatches(SearchDescriptor<Article>("title"))
        #expect(found.count == 50)
        #expect(container.textIndexSidecarNote?.contains("damaged") == true)
        #expect(try container.textIndexProblems().isEmpty)
    }
}
