/// One attribute of an ``Entity``: its name, type, whether it may be `nil`, its default, and
/// options.
///
/// A non-optional attribute without a default must be given a value before the object is
/// saved. A composite attribute (a `Codable` struct) is an attribute of type
/// ``AttributeType/composite`` followed by one attribute per field, named `address.city`. A
/// value type, `Sendable`.
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name, as used by key-value access and string predicates.
    public var name: String
    /// The type of its values.
    public var type: AttributeType
    /// The name of the Swift type the attribute was declared with when the type does not say
    /// it: an enum's (stored as its raw value's type) or a composite's (`"Status"`,
    /// `"Address"`); `nil` otherwise.
    public var typeName: String?
    /// For an array or set, one member: its element (named `element`). For a composite inside
    /// an array or set, its fields in order. Empty otherwise (an entity's composite attribute
    /// has its fields as attributes of their own).
    public var members: [AttributeDescription]
    /// Whether the attribute may hold `nil`.
    public var isOptional: Bool
    /// The value of a new object, and of objects stored before the attribute existed.
    /// `nil` means none (`null` for optionals).
    public var defaultValue: AttributeValue?
    /// Whether fetches may use an index on this attribute (recorded in the schema).
    public var isIndexed: Bool
    /// Whether two objects of the entity may not share a value (checked at save).
    public var isUnique: Bool
    /// The name the attribute had in the stored schema, when it was renamed
    /// (`@Attribute(originalName:)`): opening the store renames it, keeping its values. Not
    /// stored in the schema record (FORMAT.md Part 2, "Renames").
    public var originalName: String?
    /// Whether the entity's full-text index holds the attribute's words (a `String` only;
    /// recorded in the schema).
    public var isSearchable: Bool

    /// Describes an attribute.
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = false,
        defaultValue: AttributeValue? = nil, indexed: Bool = false, unique: Bool = false,
        searchable: Bool = false, typeName: String? = nil, members: [AttributeDescription] = [],
        originalName: String? = nil
    ) {
        self.name = name
        self.originalName = originalName
        self.type = type
        self.isOptional = optional
        self.defaultValue = defaultValue
        self.isIndexed = indexed
        self.isUnique = unique
        self.isSearchable = searchable
        self.typeName = typeName
        self.members = members
    }

    /// Describes the elements of an array or set attribute: its one member.
    public static func element(
        _ type: AttributeType, optional: Bool = false, typeName: String? = nil,
        members: [AttributeDescription] = []
    ) -> AttributeDescription {
        AttributeDescription(
            "element", type, optional: optional, typeName: typeName, members: members)
    }

    /// The type as declared in Swift: `String`, `Int32`, `Status`, `[String]`, `Set<Status>`,
    /// `Address`, with `?` for an optional (`[Tag?]?`).
    public var declaredType: String {
        var text: String
        switch type {
        case .array: text = "[" + (members.first?.declaredType ?? "?") + "]"
        case .set: text = "Set<" + (members.first?.declaredType ?? "?") + ">"
        default: text = typeName ?? type.description
        }
        if isOptional { text += "?" }
        return text
    }

    /// The value a new object starts with: the default, else `null`.
    var initialValue: AttributeValue { defaultValue ?? .null }

    /// Whether values of this attribute and of `other` have the same bytes: the same type and
    /// the same members (names, types, optionality), whatever the names of the types.
    func storesSameValues(as other: AttributeDescription) -> Bool {
        type == other.type && members.count == other.members.count
            && zip(members, other.members).allSatisfy {
                $0.name == $1.name && $0.isOptional == $1.isOptional && $0.storesSameValues(as: $1)
            }
    }

    /// Whether the schema records more than format 2 can hold for it: a type added by
    /// format 3, a type name or members.
    var needsTypeDetail: Bool {
        type.rawValue > AttributeType.uuid.rawValue || typeName != nil || !members.isEmpty
    }
}

/// An entity: a named kind of object with ordered attributes. Its records live in the
/// keyspace of the same name.
public struct Entity: Sendable, Hashable {
    /// The entity's name (also its keyspace). Must not be empty nor start with `logbook.`.
    public var name: String
    /// Attributes in stored order.
    public var attributes: [AttributeDescription]
    /// Relationships; the stored ones (``RelationshipDescription/isStored``) follow the
    /// attributes in records, in this order.
    public var relationships: [RelationshipDescription]
    /// Indexes beyond the single attributes marked `indexed` or `unique`: compound ones, in
    /// declaration order.
    public var indexes: [IndexDescription]
    /// What a save does with an insert that repeats another object's unique values.
    public var uniquePolicy: UniquePolicy
    /// The entity this one inherits from (its class's nearest superclass among the schema's
    /// classes), or `nil`. A sub-entity stores its superentity's attributes and relationships
    /// first, under the same names; a fetch of the superentity returns its objects too, and
    /// the primary keys of a hierarchy are one sequence.
    public var superentity: String?

    /// Describes an entity.
    public init(
        name: String, attributes: [AttributeDescription],
        relationships: [RelationshipDescription] = [], indexes: [IndexDescription] = [],
        uniquePolicy: UniquePolicy = .error, superentity: String? = nil
    ) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.indexes = indexes
        self.uniquePolicy = uniquePolicy
        self.superentity = superentity
    }

    /// The relationship called `name`, or `nil`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }

    /// The relationships records store (to-one keys, and the links of the storing side of a
    /// many-to-many), in stored order.
    var storedRelationships: [RelationshipDescription] { relationships.filter(\.isStored) }

    /// What a record stores: the attributes, then each stored relationship named after it: a
    /// to-one as an optional integer (the destination's primary key), the storing side of a
    /// many-to-many as optional data (``LinkList``).
    var storedFields: Entity {
        Entity(
            name: name,
            attributes: attributes
                + storedRelationships.map {
                    AttributeDescription($0.name, $0.isToMany ? .data : .integer, optional: true)
                }
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

    /// The positions of the fields of the composite attribute at `index` (the attributes named
    /// `<its name>.<field>`, nested composites' fields too), in stored order; empty for another
    /// attribute.
    /// - Complexity: O(attributes).
    public func compositeFields(of index: Int) -> [Int] {
        guard attributes[index].type == .composite else { return [] }
        let prefix = attributes[index].name + "."
        return attributes.indices.filter { attributes[$0].name.hasPrefix(prefix) }
    }

    /// The position of the composite attribute the attribute at `index` is a field of (the
    /// innermost, for a field of a nested composite), or `nil` for a top-level attribute.
    func enclosingComposite(of index: Int) -> Int? {
        var name = attributes[index].name[...]
        while let dot = name.lastIndex(of: ".") {
            name = name[..<dot]
            if let i = attributes.firstIndex(where: { $0.name == name }),
                attributes[i].type == .composite
            {
                return i
            }
        }
        return nil
    }
}
