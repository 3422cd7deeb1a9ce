/// What deleting an object does to the objects a relationship reaches.
public enum DeleteRule: UInt8, Sendable, Hashable {
    /// Related objects stay; their reference to the deleted object is cleared. The default.
    case nullify = 0
    /// Related objects are deleted too.
    case cascade = 1
    /// The save throws ``LogbookError/deleteDenied(entity:relationship:object:)`` while any
    /// related object remains.
    case deny = 2
}

/// A relationship of an ``Entity``: to one object or to many of the `destination` entity.
///
/// A to-one relationship is stored in the object's record (the destination's primary key).
/// A to-many relationship needs an `inverse`. When the inverse is to-one, the to-many side is
/// not stored: `Company.employees` is every Employee whose `company` is that company. When the
/// inverse is to-many too (many-to-many), exactly one side of the pair keeps the links in its
/// records (``storesLinks``) and the other is derived from them. A value type.
public struct RelationshipDescription: Sendable, Hashable {
    /// The relationship's name (distinct from the entity's attribute names).
    public var name: String
    /// The entity it reaches.
    public var destination: String
    /// Whether it reaches many objects.
    public var isToMany: Bool
    /// The name of the inverse relationship on `destination` (required for to-many).
    public var inverse: String?
    /// What deleting an object of this entity does to the objects this relationship reaches.
    public var deleteRule: DeleteRule
    /// The name the relationship had in the stored schema, when it was renamed: opening the store
    /// renames it, keeping what it reaches. Not stored in the schema record (FORMAT.md Part 2,
    /// "Renames").
    public var originalName: String?
    /// For a many-to-many relationship: whether this side keeps the links in its records
    /// (the other side is derived from them). Exactly one side of each pair does.
    public var storesLinks: Bool

    /// Whether records of the entity store this relationship, after the attributes: a to-one
    /// as its destination's primary key, the storing side of a many-to-many as its links.
    public var isStored: Bool { !isToMany || storesLinks }

    /// Describes a relationship.
    public init(
        _ name: String, destination: String, toMany: Bool = false, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, storesLinks: Bool = false, originalName: String? = nil
    ) {
        self.originalName = originalName
        self.name = name
        self.destination = destination
        self.isToMany = toMany
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.storesLinks = storesLinks
    }
}
