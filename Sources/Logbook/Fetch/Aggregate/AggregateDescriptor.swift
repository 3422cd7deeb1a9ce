import Foundation

/// What an aggregate computes over an attribute's values: Core Data's `@count`, `@sum`,
/// `@avg`, `@min` and `@max`.
public enum AggregateOperation: String, Sendable, Hashable, CaseIterable {
    /// The number of objects whose value is not `nil`.
    case count
    /// The sum of a number attribute: exact for integers of every width and for `Decimal` (a
    /// sum that does not fit is the error ``LogbookError/aggregateOverflow(entity:attribute:)``,
    /// never a wrapped or rounded value). The sum of no values is 0.
    case sum
    /// The mean of a number or `Date` attribute (a `Double` for numbers, a `Decimal` for
    /// `Decimal`), or `nil` for no values.
    case average
    /// The smallest value (in the order of indexes and sorts), or `nil` for no values.
    case minimum
    /// The largest value, or `nil` for no values.
    case maximum

    /// The short name in column names: `count`, `sum`, `avg`, `min`, `max`.
    var columnPrefix: String {
        switch self {
        case .count: "count"
        case .sum: "sum"
        case .average: "avg"
        case .minimum: "min"
        case .maximum: "max"
        }
    }
}

/// One value an aggregate computes for each group, over an attribute of `Model`:
/// `.sum(\.salary)`, `.average(\.salary)`, `.maximum(\.hired)`.
public struct AggregateFunction<Model: PersistentModel>: Hashable {
    /// What it computes.
    public let operation: AggregateOperation
    /// The attribute it reads.
    let keyPath: PartialKeyPath<Model>

    /// The number of objects whose value of `keyPath` is not `nil`.
    public static func count(_ keyPath: PartialKeyPath<Model>) -> Self {
        Self(operation: .count, keyPath: keyPath)
    }

    /// The sum of a number attribute.
    public static func sum(_ keyPath: PartialKeyPath<Model>) -> Self {
        Self(operation: .sum, keyPath: keyPath)
    }

    /// The mean of a number or `Date` attribute.
    public static func average(_ keyPath: PartialKeyPath<Model>) -> Self {
        Self(operation: .average, keyPath: keyPath)
    }

    /// The smallest value of an attribute.
    public static func minimum(_ keyPath: PartialKeyPath<Model>) -> Self {
        Self(operation: .minimum, keyPath: keyPath)
    }

    /// The largest value of an attribute.
    public static func maximum(_ keyPath: PartialKeyPath<Model>) -> Self {
        Self(operation: .maximum, keyPath: keyPath)
    }
}

/// The order of an aggregate's groups: by a group key, by the object count, or by a computed
/// value.
public struct AggregateSort<Model: PersistentModel> {
    enum Key {
        case group(PartialKeyPath<Model>)
        case count
        case function(AggregateFunction<Model>)
    }

    let key: Key
    let order: SortOrder

    /// By the value of the group key `keyPath` (one of the descriptor's `groupBy`).
    public static func group(_ keyPath: PartialKeyPath<Model>, order: SortOrder = .forward)
        -> Self
    {
        Self(key: .group(keyPath), order: order)
    }

    /// By the number of objects in each group.
    public static func count(order: SortOrder = .forward) -> Self {
        Self(key: .count, order: order)
    }

    /// By a computed value (one of the descriptor's `functions`).
    public static func value(_ function: AggregateFunction<Model>, order: SortOrder = .forward)
        -> Self
    {
        Self(key: .function(function), order: order)
    }
}

/// Numbers about the objects of a model class, computed without building them: the number of
/// objects and the aggregate functions asked for, over all the objects a predicate selects or
/// for each group of them.
///
/// ```swift
/// var byDesignation = AggregateDescriptor<Employee>(
///     groupBy: [\.designation], computing: [.sum(\.salary), .average(\.salary)])
/// byDesignation.sortBy = [.value(.sum(\.salary), order: .reverse)]
/// for row in try context.aggregate(byDesignation) {
///     print(row[\Employee.designation] ?? "", row.count, row.sum(\Employee.salary) ?? 0)
/// }
/// ```
/// Group keys are attributes, to-one relationships (grouped by the related object) or an
/// attribute through a to-one relationship (`\.company?.name`; objects without the
/// relationship are the group whose key is `nil`). Groups come in the order of their keys unless
/// ``sortBy`` says otherwise. Without group keys there is exactly one row, also when no object
/// matches. A value type.
public struct AggregateDescriptor<Model: PersistentModel> {
    /// Which objects; `nil` for all.
    public var predicate: Predicate<Model>?
    /// The group keys, most significant first; empty for one row over all the objects.
    public var groupBy: [PartialKeyPath<Model>]
    /// What to compute for each group, besides its object count.
    public var functions: [AggregateFunction<Model>]
    /// Which groups to keep, tested on each finished row (SQL's `HAVING`); `nil` for all.
    public var having: ((AggregateRow) throws -> Bool)?
    /// The order of the groups, applied in turn; ties keep the order of their keys.
    public var sortBy: [AggregateSort<Model>]
    /// At most this many groups; `nil` for no limit.
    public var limit: Int?
    /// Skip this many groups of the ordered result first.
    public var offset: Int?
    /// Whether the context's unsaved inserts, changes and deletes count (default `true`), as
    /// they do in fetches.
    public var includePendingChanges: Bool

    /// An aggregate of the objects `predicate` selects, grouped by `groupBy`.
    public init(
        predicate: Predicate<Model>? = nil, groupBy: [PartialKeyPath<Model>] = [],
        computing functions: [AggregateFunction<Model>] = [],
        sortBy: [AggregateSort<Model>] = []
    ) {
        self.predicate = predicate
        self.groupBy = groupBy
        self.functions = functions
        self.having = nil
        self.sortBy = sortBy
        self.limit = nil
        self.offset = nil
        self.includePendingChanges = true
    }
}

/// An aggregate of an entity given by name, for dynamic objects and tools: as
/// ``AggregateDescriptor``, with names where it has key paths.
///
/// Group keys are attribute names, to-one relationship names, or `relationship.attribute`.
/// A row's columns are named by its group keys, then `count`, then `<op>_<attribute>` for each
/// function (`sum_salary`, `avg_salary`, `min_salary`, `max_salary`, `count_salary`): the names
/// ``having`` and ``sortBy`` use.
public struct EntityAggregateDescriptor: Sendable {
    /// The entity's name.
    public var entityName: String
    /// Which objects; `nil` for all.
    public var predicate: StringPredicate?
    /// The group keys, most significant first.
    public var groupBy: [String]
    /// What to compute for each group, besides its object count.
    public var functions: [(operation: AggregateOperation, attribute: String)]
    /// Which groups to keep: a predicate over the row's column names (`count > 10 AND
    /// avg_salary > 50000`); `nil` for all.
    public var having: StringPredicate?
    /// The order of the groups, by column name; ties keep the order of their keys.
    public var sortBy: [(column: String, ascending: Bool)]
    /// At most this many groups; `nil` for no limit.
    public var limit: Int?
    /// Skip this many groups of the ordered result first.
    public var offset: Int?
    /// Whether the context's unsaved inserts, changes and deletes count (default `true`).
    public var includePendingChanges: Bool

    /// An aggregate of `entityName`.
    public init(
        entityName: String, predicate: StringPredicate? = nil, groupBy: [String] = [],
        functions: [(operation: AggregateOperation, attribute: String)] = []
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.groupBy = groupBy
        self.functions = functions
        self.having = nil
        self.sortBy = []
        self.limit = nil
        self.offset = nil
        self.includePendingChanges = true
    }
}
