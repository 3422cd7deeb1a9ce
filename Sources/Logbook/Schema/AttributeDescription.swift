/// One attribute of an ``Entity``: its name, type, whether it may be `nil`, its default, and
/// options.
///
/// A non-optional attribute without a default must be given a value before the object is
/// saved. A value type, `Sendable`.
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name, as used by key-value access and string predicates.
    public var name: String
    /// The type of its values.
    public var type: AttributeType
    /// Whether the attribute may hold `nil`.
    public var isOptional: Bool
    /// The value of a new object, and of objects stored before the attribute existed.
    /// `nil` means none (`null` for optionals).
    public var defaultValue: AttributeValue?
    /// Whether fetches may use an index on this attribute (recorded in the schema).
    public var isIndexed: Bool
    /// Whether two objects of the entity may not share a value (checked at save).
    public var isUnique: Bool
    /// Whether the entity's full-text index holds the attribute's words (a `String` only;
    /// recorded in the schema).
    public var isSearchable: Bool

    /// Describes an attribute.
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = false,
        defaultValue: AttributeValue? = nil, indexed: Bool = false, unique: Bool = false,
        searchable: Bool = false
    ) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.defaultValue = defaultValue
        self.isIndexed = indexed
        self.isUnique = unique
        self.isSearchable = searchable
    }

    /// The value a new object starts with: the default, else `null`.
    var initialValue: AttributeValue { defaultValue ?? .null }
}

/// An entity: a named kind of object with ordered attributes. Its records live in the
/// keyspace of the same name.
public struct Entity: Sendable, Hashable {
    /// The entity's name (also its keyspace). Must not be empty nor start with `logbook.`.
    public var name: String
    /// Attributes in stored order.
    public var attributes: [AttributeDescription]
    /// Relationships; to-one ones are stored after the attributes, in this order.
    public var relationships: [RelationshipDescription]
    /// Indexes beyond the single attributes marked `indexed` or `unique`: compound ones, in
    /// declaration order.
    public var indexes: [IndexDescription]
    /// What a save does with an insert that repeats another object's unique values.
    public var uniquePolicy: UniquePolicy

    /// Describes an entity.
    public init(
        name: String, attributes: [AttributeDescription],
        relationships: [RelationshipDescription] = [], indexes: [IndexDescription] = [],
        uniquePolicy: UniquePolicy = .error
    ) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.indexes = indexes
        self.uniquePolicy = uniquePolicy
    }

    /// The relationship called `name`, or `nil`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }

    /// The to-one relationships, in stored order.
    var toOneRelationships: [RelationshipDescription] { relationships.filter { !$0.isToMany } }

    /// What a record stores: the attributes, then each to-one relationship as an optional
    /// integer (the destination's primary key) named after it.
    var storedFields: Entity {
        Entity(
            name: name,
            attributes: attributes
                + toOneRelationships.map { AttributeDescription($0.name, .integer, optional: true) }
        )
    }

    /// The positions of the searchable attributes, in stored order: what the entity's text
    /// index holds (none: it has no text index).
    var searchableAttributes: [Int] { attributes.indices.filter { attributes[$0].isSearchable } }

    /// The position of the attribute called `name`, or `nil`.
    /// - Complexity: O(attributes).
    public func attributeIndex(_ name: String) -> Int? {
        attributes.firstIndex { $0.name == name }
    }
}
