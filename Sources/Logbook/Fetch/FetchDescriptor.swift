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
    /// The attributes to decode for the objects the fetch builds (SwiftData's and Core Data's
    /// `propertiesToFetch`); empty for all of them.
    ///
    /// The other attributes of those objects are faults: the first read of one (or the first
    /// change of any attribute, or a key-value read) reads the object's record as the store
    /// holds it then. If that is the state the fetch read, the missing values come from it;
    /// if another context saved the object since, the whole object takes the newer state, so
    /// its values never mix two saves. If the object was deleted since, it becomes deleted
    /// (``ModelObject/isDeleted``) and the missing attributes read as their declared initial
    /// values; ``ModelContext/fulfillFault(of:)`` reports that case as an error. Objects
    /// already registered in the context are returned as they are. Relationships are always
    /// fetched; key paths that are not attributes are ignored. The predicate and sort read
    /// the stored values whatever this lists. Saving a partial object writes its whole record.
    public var propertiesToFetch: [PartialKeyPath<Model>]
    /// Relationships to load with the fetched objects (SwiftData's and Core Data's
    /// prefetching): each is read once for every fetched object during the fetch, so later
    /// reads find the related objects registered. Key paths that are not relationships are
    /// read too, which loads nothing more.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<Model>]

    /// A descriptor with `predicate` and `sortBy`.
    public init(predicate: Predicate<Model>? = nil, sortBy: [SortDescriptor<Model>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
        self.propertiesToFetch = []
        self.relationshipKeyPathsForPrefetching = []
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
