import Foundation

/// What to fetch of a model class: which objects (a Foundation `#Predicate`), in what order
/// (`SortDescriptor`s, applied in turn), and which slice.
///
/// ```swift
/// var descriptor = FetchDescriptor<Employee>(
///     predicate: #Predicate { $0.designation == "Engineer" },
///     sortBy: [SortDescriptor(\.salary, order: .reverse), SortDescriptor(\.name)])
/// descriptor.fetchLimit = 10
/// ```
/// Objects that compare equal under every sort descriptor keep identifier order, so results
/// are deterministic. A value type.
public struct FetchDescriptor<Model: PersistentModel> {
    /// Which objects; `nil` for all.
    public var predicate: Predicate<Model>?
    /// The order; empty for identifier order (insertion order).
    public var sortBy: [SortDescriptor<Model>]
    /// At most this many objects; `nil` for no limit.
    public var fetchLimit: Int?
    /// Skip this many objects of the ordered result first.
    public var fetchOffset: Int?
    /// Whether the context's unsaved inserts, changes and deletes count (default `true`).
    public var includePendingChanges: Bool

    /// A descriptor with `predicate` and `sortBy`.
    public init(predicate: Predicate<Model>? = nil, sortBy: [SortDescriptor<Model>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
    }
}

/// A fetch by entity name, for dynamic objects: a string predicate in the Core Data format
/// (see ``StringPredicate``) and sort keys by attribute name.
public struct EntityFetchDescriptor: Sendable {
    /// The entity's name.
    public var entityName: String
    /// Which objects; `nil` for all.
    public var predicate: StringPredicate?
    /// Attribute names with their direction, applied in turn.
    public var sortBy: [(key: String, ascending: Bool)]
    /// At most this many objects; `nil` for no limit.
    public var fetchLimit: Int?
    /// Skip this many objects of the ordered result first.
    public var fetchOffset: Int?
    /// Whether the context's unsaved inserts, changes and deletes count (default `true`).
    public var includePendingChanges: Bool

    /// A descriptor for `entityName`.
    public init(
        entityName: String, predicate: StringPredicate? = nil,
        sortBy: [(key: String, ascending: Bool)] = []
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
    }
}
