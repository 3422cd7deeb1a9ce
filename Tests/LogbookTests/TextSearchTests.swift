import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Full-text search as an app uses it: `@Attribute(.searchable)`, folding, prefixes, phrases,
/// ranking, limits, predicates, pending changes, the dynamic API, and the text sidecar.
@MainActor @Suite struct TextSearchTests {
    private func titles(_ articles: [SearchArticle]) -> [String] { articles.map(\.title) }

    @Test func caseAndDiacriticsAreFolded() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        context.insert(SearchArticle("José Müller"))
        context.insert(SearchArticle("Straße in Łódź"))
        context.insert(SearchArticle("Ærøskøbing"))
        try context.save()
        for query in ["jose", "JOSÉ", "muller", "Müller", "MUELLER muller"] {
            let found = try context.search(SearchDescriptor<SearchArticle>(query))
            #expect(
                titles(found) == (query.hasPrefix("MUELLER") ? [] : ["José Müller"]),
                "query \(query)")
        }
        #expect(
            titles(try context.search(SearchDescriptor<SearchArticle>("strasse"))) == ["Straße in Łódź"])
        #expect(titles(try context.search(SearchDescriptor<SearchArticle>("lodz"))) == ["Straße in Łódź"])
        #expect(
            titles(try context.search(SearchDescriptor<SearchArticle>("aeroskobing"))) == ["Ærøskøbing"])
    }

    @Test func prefixesAndPhrases() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        for title in ["Ann Lee", "Anna Leeds", "Lee Ann", "Annette Lee-Smith", "Bob"] {
            context.insert(SearchArticle(title))
        }
        try context.save()
        #expect(
            Set(titles(try context.search(SearchDescriptor<SearchArticle>("ann*"))))
                == ["Ann Lee", "Anna Leeds", "Lee Ann", "Annette Lee-Smith"])
        #expect(titles(try context.search(SearchDescriptor<SearchArticle>("\"ann lee\""))) == ["Ann Lee"])
        #expect(
            Set(titles(try context.search(SearchDescriptor<SearchArticle>("ann lee"))))
                == ["Ann Lee", "Lee Ann"])
        #expect(
            Set(titles(try context.search(SearchDescriptor<SearchArticle>("\"ann* lee\""))))
                == ["Ann Lee", "Annette Lee-Smith"])
        #expect(
            titles(try context.search(SearchDescriptor<SearchArticle>("lee-smith"))) == [
                "Annette Lee-Smith"
            ])
        #expect(try context.search(SearchDescriptor<SearchArticle>("")).isEmpty)
        #expect(try context.search(SearchDescriptor<SearchArticle>("*  !!")).isEmpty)
    }

    @Test func chineseIsMatchedCharacterByCharacter() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        context.insert(SearchArticle("北京大学"))
        context.insert(SearchArticle("京北"))
        context.insert(SearchArticle("東京タワー"))
        try context.save()
        #expect(titles(try context.search(SearchDescriptor<SearchArticle>("北京"))) == ["北京大学"])
        #expect(
            Set(titles(try context.search(SearchDescriptor<SearchArticle>("北 京")))) == ["北京大学", "京北"])
        #expect(titles(try context.search(SearchDescriptor<SearchArticle>("京タ"))) == ["東京タワー"])
    }

    @Test func resultsAreRankedAndLimited() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        context.insert(SearchArticle("swift", body: "a long text about many other things and swift"))
        context.insert(SearchArticle("swift swift", body: "swift"))
        context.insert(SearchArticle("swift"))
        context.insert(SearchArticle("nothing here"))
        try context.save()
        let matches = try context.searchMatches(SearchDescriptor<SearchArticle>("swift"))
        #expect(matches.count == 3)
        #expect(matches.map(\.score) == matches.map(\.score).sorted(by: >))
        let ranked = try context.search(SearchDescriptor<SearchArticle>("swift"))
        #expect(ranked.first?.title == "swift swift")
        #expect(ranked.last?.body?.hasPrefix("a long text") == true)
        let best = try context.search(SearchDescriptor<SearchArticle>("swift", limit: 1))
        #expect(best.map(\.title) == ["swift swift"])
        #expect(try context.search(SearchDescriptor<SearchArticle>("swift", limit: 0)).isEmpty)
    }

    @Test func aPredicateNarrowsTheResults() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        for year in Int64(2000)..<2010 {
            context.insert(
                SearchArticle("report \(year)", year: year, author: year % 2 == 0 ? "Ann" : "Bob"))
        }
        try context.save()
        let recent = try context.search(
            SearchDescriptor<SearchArticle>(
                "report", predicate: #Predicate { $0.year >= 2005 && $0.author == "Ann" }))
        #expect(Set(recent.map(\.year)) == [2006, 2008])
        let limited = try context.search(
            SearchDescriptor<SearchArticle>("report", predicate: #Predicate { $0.year >= 2005 }, limit: 2)
        )
        #expect(limited.count == 2)
        #expect(limited.allSatisfy { $0.year >= 2005 })
        // A predicate only objects answer (a computed value) is tested on the objects.
        let computed = try context.search(
            SearchDescriptor<SearchArticle>(
                "report", predicate: #Predicate { $0.title.contains("2003") }))
        #expect(computed.map(\.year) == [2003])
    }

    @Test func pendingChangesAreSearchedAsIfSaved() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        let kept = SearchArticle("alpha beta")
        let changed = SearchArticle("alpha gamma")
        let deleted = SearchArticle("alpha delta")
        for article in [kept, changed, deleted] { context.insert(article) }
        try context.save()
        changed.title = "omega"
        context.delete(deleted)
        context.insert(SearchArticle("alpha epsilon"))
        let found = titles(try context.search(SearchDescriptor<SearchArticle>("alpha")))
        #expect(Set(found) == ["alpha beta", "alpha epsilon"])
        // Leaving them out finds the stored objects (registered ones come as they are, with
        // their pending values, as fetches return them).
        var stored = SearchDescriptor<SearchArticle>("alpha")
        stored.includePendingChanges = false
        #expect(
            Set(try context.searchMatches(stored).map(\.id))
                == Set([kept, changed, deleted].map(\.persistentModelID)))
        // The scores are those the saved state gives.
        let before = try context.searchMatches(SearchDescriptor<SearchArticle>("alpha"))
        try context.save()
        let after = try ModelContext(container).searchMatches(SearchDescriptor<SearchArticle>("alpha"))
        #expect(before.map(\.id) == after.map(\.id))
        for (a, b) in zip(before, after) { #expect(abs(a.score - b.score) < 1e-12) }
    }

    @Test func aClassLevelDeclarationAndTheDynamicAPI() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchNote.self])
        let context = ModelContext(container)
        context.insert(SearchNote("Buy milk", pinned: true))
        context.insert(SearchNote("Call Müller about milk"))
        try context.save()
        #expect(container.schema.entity(named: "SearchNote")?.attributes.first?.isSearchable == true)
        let typed = try context.search(
            SearchDescriptor<SearchNote>("milk", predicate: #Predicate { $0.pinned }))
        #expect(typed.map(\.text) == ["Buy milk"])
        let dynamic = try context.search(
            EntitySearchDescriptor(
                entityName: "SearchNote", text: "muller milk", predicate: StringPredicate("pinned == NO"))
        )
        #expect(dynamic.count == 1)
        #expect(try dynamic.first?.value(forKey: "text") as? String == "Call Müller about milk")
    }

    @Test func batchUpdatesAndDeletesKeepTheIndexInStep() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        for i in 0..<20 { context.insert(SearchArticle("draft \(i)", year: Int64(2000 + i))) }
        try context.save()
        try context.update(model: SearchArticle.self, where: #Predicate { $0.year < 2005 }) {
            $0.title = "final version"
        }
        try context.delete(model: SearchArticle.self, where: #Predicate { $0.year >= 2015 })
        let fresh = ModelContext(container)
        #expect(try fresh.searchMatches(SearchDescriptor<SearchArticle>("final")).count == 5)
        #expect(try fresh.searchMatches(SearchDescriptor<SearchArticle>("draft")).count == 10)
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
        var container = try fixture.open([SearchArticle.self])
        var context = ModelContext(container)
        for i in 0..<300 { context.insert(SearchArticle("article \(i)", body: "word\(i % 7) common")) }
        try context.save()
        #expect(try container.textIndexProblems().isEmpty)
        try container.close()
        container = try fixture.open([SearchArticle.self])
        #expect(container.textIndexesReadFromSidecar)
        #expect(try container.textIndexProblems().isEmpty)
        context = ModelContext(container)
        #expect(try context.searchMatches(SearchDescriptor<SearchArticle>("word3")).count == 43)
        try container.close()
    }

    @Test func aStaleSidecarIsIgnoredAndTheIndexBuilt() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try fixture.open([SearchArticle.self])
        var context = ModelContext(container)
        context.insert(SearchArticle("first"))
        try context.save()
        try container.close()
        let sidecar = fixture.url.path + "/logbook-text.sidecar"
        let old = readFile(sidecar)
        #expect(!old.isEmpty)
        container = try fixture.open([SearchArticle.self])
        context = ModelContext(container)
        context.insert(SearchArticle("second"))
        try context.save()
        try container.close()
        writeFile(sidecar, old)
        container = try fixture.open([SearchArticle.self])
        defer { try? container.close() }
        #expect(!container.textIndexesReadFromSidecar)
        #expect(try container.textIndexProblems().isEmpty)
        #expect(try ModelContext(container).search(SearchDescriptor<SearchArticle>("second")).count == 1)
    }

    @Test func aDamagedSidecarChunkIsRebuiltFromTheRecords() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try fixture.open([SearchArticle.self])
        let context = ModelContext(container)
        for i in 0..<50 { context.insert(SearchArticle("title \(i)", body: "text\(i)")) }
        try context.save()
        try container.close()
        let sidecar = fixture.url.path + "/logbook-text.sidecar"
        var bytes = readFile(sidecar)
        // A byte of the first chunk (the contents start at file offset 32, chunks at 32 more).
        // Opening maps the file and checks each chunk before its first use, not the whole file.
        bytes[70] ^= 0x40
        writeFile(sidecar, bytes)
        container = try fixture.open([SearchArticle.self])
        defer { try? container.close() }
        let found = try ModelContext(container).searchMatches(SearchDescriptor<SearchArticle>("title"))
        #expect(found.count == 50)
        #expect(container.textIndexSidecarNote?.contains("damaged") == true)
        #expect(try container.textIndexProblems().isEmpty)
    }
}
