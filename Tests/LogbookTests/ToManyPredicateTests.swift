import Foundation
import Logbook
import TestSupport
import Testing

/// Predicates over to-many relationships (`contains`, `contains(where:)`, `allSatisfy`,
/// `count`, `isEmpty`; Foundation's `#Predicate` accepts all five), on both sides of a
/// many-to-many and on the to-many side of a one-to-many, against a plain Swift filter of the
/// same objects, with pending changes and without.
@MainActor @Suite struct ToManyPredicateTests {
    /// Articles a0…a29 (which store the links) and tags t0…t7, linked at random; saved, then a
    /// few pending edits from both sides.
    private func populate(_ context: ModelContext, seed: UInt64) throws -> ([Article], [Topic]) {
        var rng = SeededGenerator(seed: seed)
        let tags = (0..<8).map { Topic(label: "t\($0)") }
        let articles = (0..<30).map { Article(title: "a\($0)") }
        for tag in tags { context.insert(tag) }
        for article in articles {
            context.insert(article)
            article.tags = tags.filter { _ in Int.random(in: 0..<4, using: &rng) == 0 }
        }
        try context.save()
        articles[0].tags = [tags[1], tags[2]]
        tags[3].articles = [articles[5], articles[6]]
        return (articles, tags)
    }

    private func titles(_ articles: [Article]) -> [String] { articles.map(\.title).sorted() }
    private func labels(_ tags: [Topic]) -> [String] { tags.map(\.label).sorted() }

    @Test func everyToManyTestMatchesAPlainFilterOnBothSides() throws {
        let seed = testSeed("ToManyPredicateTests")
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self, Topic.self, Note.self])
        let context = container.mainContext
        let (articles, tags) = try populate(context, seed: seed)
        let swift = tags[3]
        let post = articles[5]
        for pending in [true, false] {
            if !pending { try context.save() }
            func articles(_ predicate: Predicate<Article>) throws -> [String] {
                titles(try context.fetch(FetchDescriptor(predicate: predicate)))
            }
            func tags(_ predicate: Predicate<Topic>) throws -> [String] {
                labels(try context.fetch(FetchDescriptor(predicate: predicate)))
            }
            let all = try context.fetch(FetchDescriptor<Article>())
            let allTopics = try context.fetch(FetchDescriptor<Topic>())
            let note = "seed \(seed), pending \(pending)"
            // The side that stores the links.
            #expect(
                try articles(#Predicate { $0.tags.contains(swift) })
                    == titles(all.filter { $0.tags.contains(swift) }), "\(note)")
            #expect(
                try articles(#Predicate { $0.tags.contains { $0.label == "t1" } })
                    == titles(all.filter { $0.tags.contains { $0.label == "t1" } }), "\(note)")
            #expect(
                try articles(#Predicate { $0.tags.allSatisfy { $0.label < "t4" } })
                    == titles(all.filter { $0.tags.allSatisfy { $0.label < "t4" } }), "\(note)")
            #expect(
                try articles(#Predicate { $0.tags.count >= 2 })
                    == titles(all.filter { $0.tags.count >= 2 }), "\(note)")
            #expect(
                try articles(#Predicate { $0.tags.isEmpty })
                    == titles(all.filter { $0.tags.isEmpty }), "\(note)")
            #expect(
                try articles(#Predicate { !$0.tags.isEmpty && $0.title != "a1" })
                    == titles(all.filter { !$0.tags.isEmpty && $0.title != "a1" }), "\(note)")
            // The derived side.
            #expect(
                try tags(#Predicate { $0.articles.contains(post) })
                    == labels(allTopics.filter { $0.articles.contains(post) }), "\(note)")
            #expect(
                try tags(#Predicate { $0.articles.contains { $0.title == "a7" } })
                    == labels(allTopics.filter { $0.articles.contains { $0.title == "a7" } }),
                "\(note)")
            #expect(
                try tags(#Predicate { $0.articles.allSatisfy { $0.title < "a2" } })
                    == labels(allTopics.filter { $0.articles.allSatisfy { $0.title < "a2" } }),
                "\(note)")
            #expect(
                try tags(#Predicate { $0.articles.count < 8 })
                    == labels(allTopics.filter { $0.articles.count < 8 }), "\(note)")
            #expect(
                try tags(#Predicate { 8 <= $0.articles.count })
                    == labels(allTopics.filter { 8 <= $0.articles.count }), "\(note)")
        }
    }

    @Test func containsReadsTheLinkIndex() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self, Topic.self, Note.self])
        let context = container.mainContext
        let (_, tags) = try populate(context, seed: 7)
        try context.save()
        let swift = tags[3]
        let fresh = ModelContext(container)
        let explanation = try fresh.explain(
            FetchDescriptor<Article>(predicate: #Predicate { $0.tags.contains(swift) }))
        #expect(explanation.indexes == ["Article(tags)"], "\(explanation)")
        #expect(explanation.recordsRead == explanation.results, "\(explanation)")
    }

    @Test func oneToManyTestsMatchAPlainFilter() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Company.self, StaffedEmployee.self])
        let context = container.mainContext
        let acme = Company(name: "Acme")
        let initech = Company(name: "Initech")
        let empty = Company(name: "Empty")
        for company in [acme, initech, empty] { context.insert(company) }
        context.insert(StaffedEmployee(name: "Ann", salary: 50, company: acme))
        context.insert(StaffedEmployee(name: "Bob", salary: 5, company: acme))
        context.insert(StaffedEmployee(name: "Cid", salary: 7, company: initech))
        let all = try context.fetch(FetchDescriptor<Company>())
        func companies(_ predicate: Predicate<Company>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate)).map(\.name).sorted()
        }
        #expect(try companies(#Predicate { $0.employees.contains { $0.salary > 10 } }) == ["Acme"])
        #expect(
            try companies(#Predicate { $0.employees.allSatisfy { $0.salary < 10 } })
                == ["Empty", "Initech"])
        #expect(try companies(#Predicate { $0.employees.count == 2 }) == ["Acme"])
        #expect(try companies(#Predicate { $0.employees.isEmpty }) == ["Empty"])
        #expect(all.count == 3)
    }
}
