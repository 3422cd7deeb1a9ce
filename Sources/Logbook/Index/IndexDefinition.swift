/// One index of an entity, resolved to stored field positions: what the planner, the save's
/// uniqueness check and index upkeep work with. Immutable.
struct IndexDefinition: Sendable, Hashable {
    /// The entity's binding index.
    let entity: Int
    let entityName: String
    /// Stored field positions (attributes, then to-one keys; ``Entity/storedFields``), most
    /// significant first.
    let fields: [Int]
    /// Their names and types.
    let names: [String]
    let types: [AttributeType]
    /// Their whole types (an array's element…).
    let shapes: [ValueShape]
    let isUnique: Bool
    /// Whether this is the index of the links of a many-to-many's storing side: one entry per
    /// link (the destination's key as an integer, then the object's primary key), none for an
    /// object without links. Only membership terms (``FilterNode/keyIn(_:_:)``) read it.
    let isLinks: Bool
    /// Whether the index stands for a whole composite (its marker, then its fields): then only
    /// an absent composite (a `null` first field) is left out of a unique constraint, and a
    /// `null` field of a present one is a value like any other.
    let wholeComposite: Bool
    /// `Employee(designation, salary)`.
    let name: String

    init(
        entity: Int, entityName: String, fields: [Int], names: [String], types: [AttributeType],
        shapes: [ValueShape], isUnique: Bool, wholeComposite: Bool = false, isLinks: Bool = false
    ) {
        self.entity = entity
        self.entityName = entityName
        self.fields = fields
        self.names = names
        self.types = types
        self.shapes = shapes
        self.wholeComposite = wholeComposite
        self.isUnique = isUnique
        self.isLinks = isLinks
        name = "\(entityName)(\(names.joined(separator: ", ")))"
    }

    /// The indexes of `entity` (binding `index`): one per attribute marked indexed or unique,
    /// one per declared index, one per to-one relationship; duplicates merged (unique if any
    /// of them is); then one per storing side of a many-to-many (``isLinks``). A composite
    /// attribute in an index stands for itself and its fields, in stored order (so a unique
    /// composite is a compound unique constraint over its whole value).
    static func all(of entity: Entity, binding index: Int) -> [IndexDefinition] {
        let stored = entity.storedFields
        var declared: [(fields: [Int], unique: Bool)] = []
        var whole = Set<[Int]>()
        func add(_ fields: [Int], unique: Bool) {
            func parts(_ field: Int) -> [Int] {
                field < entity.attributes.count ? entity.compositeFields(of: field) : []
            }
            let fields = fields.flatMap { [$0] + parts($0) }
            if fields.count > 1, fields.count == 1 + parts(fields[0]).count {
                whole.insert(fields)
            }
            if let i = declared.firstIndex(where: { $0.fields == fields }) {
                declared[i].unique = declared[i].unique || unique
            } else {
                declared.append((fields, unique))
            }
        }
        for (i, attribute) in entity.attributes.enumerated()
        where attribute.isIndexed || attribute.isUnique {
            add([i], unique: attribute.isUnique)
        }
        for description in entity.indexes {
            // Invariant: the schema was validated, so every field is stored.
            let fields = description.fields.compactMap { stored.attributeIndex($0) }
            if fields.count == description.fields.count {
                add(fields, unique: description.isUnique)
            }
        }
        for relationship in entity.storedRelationships where !relationship.isToMany {
            if let slot = stored.attributeIndex(relationship.name) { add([slot], unique: false) }
        }
        let links = entity.storedRelationships.filter(\.isToMany).compactMap { relationship in
            stored.attributeIndex(relationship.name).map {
                IndexDefinition(
                    entity: index, entityName: entity.name, fields: [$0],
                    names: [relationship.name], types: [.integer], shapes: [.scalar(.integer)],
                    isUnique: false, isLinks: true)
            }
        }
        return declared.map { fields, unique in
            IndexDefinition(
                entity: index, entityName: entity.name, fields: fields,
                names: fields.map { stored.attributes[$0].name },
                types: fields.map { stored.attributes[$0].type },
                shapes: fields.map { ValueShape(stored.attributes[$0]) }, isUnique: unique,
                wholeComposite: whole.contains(fields))
        } + links
    }
}

/// An index as ``ModelContainer/indexStatistics()`` reports it. A value type.
public struct IndexStatistics: Sendable, Hashable, CustomStringConvertible {
    /// The entity.
    public let entity: String
    /// The fields, most significant first.
    public let fields: [String]
    /// Whether it enforces a unique constraint.
    public let isUnique: Bool
    /// Entries: one per object of the entity.
    public let entries: Int
    /// Bytes of memory the index takes.
    public let memoryBytes: Int

    /// Memory per entry (0 for an empty index).
    public var bytesPerEntry: Double { entries == 0 ? 0 : Double(memoryBytes) / Double(entries) }

    /// `Employee(designation, salary): 1000000 entries, 23.1 MB`.
    public var description: String {
        "\(entity)(\(fields.joined(separator: ", ")))\(isUnique ? " unique" : ""): "
            + "\(entries) entries, \(memoryBytes) bytes"
    }
}
