import Foundation
import Logbook

/// A worker of the aggregate tests: numbers of both kinds, a date, an optional integer and a
/// company, none of them indexed.
final class Worker: PersistentModel {
    @Attribute var name = ""
    @Attribute var designation = ""
    @Attribute var salary: Int64 = 0
    @Attribute var rating = 0.0
    @Attribute var hired = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var level: Int? = nil
    @Relationship var firm: Firm? = nil

    init() {}
}

/// A worker's company.
final class Firm: PersistentModel {
    @Attribute var name = ""
    @Attribute var city: String? = nil

    init() {}
}

/// The same entity as ``Worker`` (its records read alike) with every attribute indexed, so the
/// aggregate tests run once over scans and once where indexes can answer.
final class IndexedWorker: PersistentModel {
    static var entityName: String { "Worker" }
    @Attribute var name = ""
    @Attribute(.indexed) var designation = ""
    @Attribute(.indexed) var salary: Int64 = 0
    @Attribute(.indexed) var rating = 0.0
    @Attribute(.indexed) var hired = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute(.indexed) var level: Int? = nil
    @Relationship var firm: IndexedFirm? = nil

    static var indexes: [ModelIndex<IndexedWorker>] { [.index(\.designation, \.salary)] }

    init() {}
}

/// ``Firm`` with its name indexed.
final class IndexedFirm: PersistentModel {
    static var entityName: String { "Firm" }
    @Attribute(.indexed) var name = ""
    @Attribute var city: String? = nil

    init() {}
}

/// An article of the search tests: two searchable attributes and some that are not.
final class SearchArticle: PersistentModel {
    @Attribute(.searchable) var title = ""
    @Attribute(.searchable) var body: String? = nil
    @Attribute var year: Int64 = 0
    @Attribute var author = ""

    init() {}

    convenience init(_ title: String, body: String? = nil, year: Int64 = 2000, author: String = "")
    {
        self.init()
        self.title = title
        self.body = body
        self.year = year
        self.author = author
    }
}

/// A note whose text is declared searchable on the class, not on the attribute.
final class SearchNote: PersistentModel {
    @Attribute var text = ""
    @Attribute var pinned = false

    static var indexes: [ModelIndex<SearchNote>] { [.searchable(\.text)] }

    init() {}

    convenience init(_ text: String, pinned: Bool = false) {
        self.init()
        self.text = text
        self.pinned = pinned
    }
}
