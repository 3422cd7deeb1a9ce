import Foundation

/// A full-text search of a model class's searchable attributes (`@Attribute(.searchable)`):
/// the words to find (see the query syntax below), an optional predicate the results must also
/// satisfy, and how many of the best to return.
///
/// ```swift
/// let found = try context.search(SearchDescriptor<Employee>(
///     "jose mul*", predicate: #Predicate { $0.salary > 50_000 }, limit: 20))
/// ```
/// Results come best first, ranked by BM25 over the object's searchable attributes together,
/// ties in identifier order. Every word must match; `ann*` matches the terms that start with
/// "ann"; `"ann lee"` (in double quotes) matches the two words next to each other. Case and
/// diacritics are ignored ("jose" finds "José", "muller" finds "Müller"); text in Chinese or
/// Japanese is matched character by character, so `北京` finds its two characters in a row.
/// A value type.
public struct SearchDescriptor<Model: PersistentModel> {
    /// The words to find.
    public var text: String
    /// What the results must also satisfy; `nil` for nothing more.
    public var predicate: Predicate<Model>?
    /// At most this many results (the best ones); `nil` for all.
    public var limit: Int?
    /// Whether the context's unsaved inserts, changes and deletes count (default `true`): they
    /// are searched, and ranked, as they would be once saved.
    public var includePendingChanges: Bool

    /// A search for `text`.
    public init(_ text: String, predicate: Predicate<Model>? = nil, limit: Int? = nil) {
        self.text = text
        self.predicate = predicate
        self.limit = limit
        self.includePendingChanges = true
    }
}

/// A full-text search of an entity given by name, for dynamic objects and tools: as
/// ``SearchDescriptor``, with a string predicate (see ``StringPredicate``).
public struct EntitySearchDescriptor: Sendable {
    /// The entity's name.
    public var entityName: String
    /// The words to find (the syntax of ``SearchDescriptor``).
    public var text: String
    /// What the results must also satisfy; `nil` for nothing more.
    public var predicate: StringPredicate?
    /// At most this many results (the best ones); `nil` for all.
    public var limit: Int?
    /// Whether the context's unsaved inserts, changes and deletes count (default `true`).
    public var includePendingChanges: Bool

    /// A search of `entityName` for `text`.
    public init(
        entityName: String, text: String, predicate: StringPredicate? = nil, limit: Int? = nil
    ) {
        self.entityName = entityName
        self.text = text
        self.predicate = predicate
        self.limit = limit
        self.includePendingChanges = true
    }
}

/// One result of a search: the object's identifier and its relevance (BM25; higher is better).
public struct SearchMatch: Sendable, Hashable, CustomStringConvertible {
    /// The object.
    public let id: PersistentIdentifier
    /// Its score: a sum over the search's words, each more for rarer words and for words that
    /// occur more often in the object, less for longer objects.
    public let score: Double

    /// `Employee/3 (2.0794)`.
    public var description: String {
        "\(id) (\((score * 10_000).rounded() / 10_000))"
    }
}
