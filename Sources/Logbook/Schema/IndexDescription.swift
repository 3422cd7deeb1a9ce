/// An index over one or more stored fields of an ``Entity``, declared in the schema: fetches
/// use it for equality, ranges, prefixes and sorts on its leading fields, and a unique one
/// makes saves refuse (or merge, see ``UniquePolicy``) two objects with the same values.
///
/// ```swift
/// Entity(name: "Employee", attributes: [...],
///        indexes: [IndexDescription(["designation", "salary"]),
///                  IndexDescription(["firstName", "lastName"], unique: true)])
/// ```
/// A single attribute marked `indexed` or `unique` in its ``AttributeDescription`` needs no
/// declaration here; to-one relationships are indexed without one. A value type.
public struct IndexDescription: Sendable, Hashable, CustomStringConvertible {
    /// The fields, most significant first: attribute names or to-one relationship names.
    public var fields: [String]
    /// Whether no two objects may share the values of all the fields (objects with any of them
    /// `nil` never clash).
    public var isUnique: Bool

    /// An index over `fields`, in order.
    public init(_ fields: [String], unique: Bool = false) {
        self.fields = fields
        self.isUnique = unique
    }

    /// `(designation, salary)`, with `unique` when it is.
    public var description: String {
        "(\(fields.joined(separator: ", ")))" + (isUnique ? " unique" : "")
    }
}

/// What a save does with an inserted object whose unique values another object already has.
public enum UniquePolicy: UInt8, Sendable, Hashable {
    /// The save throws ``LogbookError/uniqueConstraint(entity:attribute:value:object:existing:)``
    /// naming both objects; nothing is written. The default.
    case error = 0
    /// The inserted object's values update the existing object, which keeps its identifier:
    /// the insert becomes a change of that object (SwiftData's upsert). Changed objects that
    /// clash still throw.
    case upsert = 1
}

/// An index of a model class, declared in its `indexes` (no macros needed):
///
/// ```swift
/// final class Employee: PersistentModel {
///     @Attribute var designation = ""
///     @Attribute var salary: Int64 = 0
///     @Attribute var email = ""
///     static var indexes: [ModelIndex<Employee>] {
///         [.index(\.designation, \.salary), .unique(\.email), .searchable(\.name)]
///     }
/// }
/// ```
/// Key paths name `@Attribute` or to-one `@Relationship` properties (`String` attributes for
/// ``searchable(_:)``).
public struct ModelIndex<Model: PersistentModel> {
    let keyPaths: [PartialKeyPath<Model>]
    let isUnique: Bool
    /// Marks the attributes searchable rather than declaring an ordered index.
    let isSearchable: Bool

    /// An index over the properties, most significant first.
    public static func index(_ keyPaths: PartialKeyPath<Model>...) -> ModelIndex {
        ModelIndex(keyPaths: keyPaths, isUnique: false, isSearchable: false)
    }

    /// A unique constraint (and its index) over the properties together.
    public static func unique(_ keyPaths: PartialKeyPath<Model>...) -> ModelIndex {
        ModelIndex(keyPaths: keyPaths, isUnique: true, isSearchable: false)
    }

    /// The `String` attributes in the entity's full-text index, as `@Attribute(.searchable)`
    /// marks them one by one.
    public static func searchable(_ keyPaths: PartialKeyPath<Model>...) -> ModelIndex {
        ModelIndex(keyPaths: keyPaths, isUnique: false, isSearchable: true)
    }
}
