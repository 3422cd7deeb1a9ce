/// The entities of a store, with the version number under which they are stored.
///
/// Build one by hand for dynamic use (`Schema([Entity(name: "Employee", attributes: …)])`), let
/// ``ModelContainer`` derive it from model classes, or read the one a store holds with
/// ``Schema/stored(in:)``. A value type, `Sendable`.
public struct Schema: Sendable, Hashable {
    /// The entities, in stored order.
    public private(set) var entities: [Entity]
    /// The stored version this schema has (0 until it is written into a store).
    public internal(set) var version: UInt32
    private var indexByName: [String: Int]
    /// The model classes the schema was made from (`Schema(_:)` of classes).
    private var classes: ModelClasses?

    /// A schema of `entities`.
    public init(_ entities: [Entity], version: UInt32 = 0) {
        self.entities = entities
        self.version = version
        var index: [String: Int] = [:]
        for (i, entity) in entities.enumerated() where index[entity.name] == nil {
            index[entity.name] = i
        }
        self.indexByName = index
    }

    /// The schema of model classes, as SwiftData's `Schema([Employee.self, Company.self])`:
    /// their entities with relationships resolved between them. Pass it to
    /// `ModelContainer(for: schema, configurations: [config])`, which opens the store for the classes.
    /// A class that cannot be reflected leaves the schema without entities and makes that
    /// container throw the error.
    public init(_ types: [any PersistentModel.Type]) {
        let entities: [Entity]
        let failure: LogbookError?
        do {
            entities = try ModelLayout.entities(resolving: types.map { try ModelLayout.of($0) })
            failure = nil
        } catch {
            entities = []
            failure = error as? LogbookError ?? .invalidSchema("\(error)")
        }
        self.init(entities)
        classes = ModelClasses(types: types, failure: failure)
    }

    /// The classes of a schema made from classes, or `nil`.
    /// - Throws: the error reflecting them met.
    func modelTypes() throws -> [any PersistentModel.Type]? {
        guard let classes else { return nil }
        if let failure = classes.failure { throw failure }
        return classes.types
    }

    /// The entity called `name`, or `nil`.
    public func entity(named name: String) -> Entity? {
        indexByName[name].map { entities[$0] }
    }

    /// The position of the entity called `name`, or `nil`.
    public func entityIndex(_ name: String) -> Int? { indexByName[name] }

    /// A 64-bit FNV-1a hash of the encoded entities (names, types, flags, defaults; not the
    /// version): equal schemas have equal hashes.
    public var fingerprint: UInt64 { SchemaCodec.fingerprint(of: self) }

    /// Checks names: non-empty, unique, entities not prefixed `logbook.`, at least one attribute.
    /// - Throws: ``LogbookError/invalidSchema(_:)``.
    public func validate() throws {
        var seen = Set<String>()
        for entity in entities {
            if entity.name.isEmpty {
                throw LogbookError.invalidSchema("an entity has an empty name")
            }
            if entity.name.hasPrefix(Keyspaces.reservedPrefix) {
                throw LogbookError.invalidSchema(
                    "entity name \"\(entity.name)\" uses the reserved prefix "
                        + "\"\(Keyspaces.reservedPrefix)\"")
            }
            if !seen.insert(entity.name).inserted {
                throw LogbookError.invalidSchema("two entities are named \"\(entity.name)\"")
            }
            if entity.attributes.isEmpty {
                throw LogbookError.invalidSchema("entity \"\(entity.name)\" has no attributes")
            }
            var names = Set<String>()
            for attribute in entity.attributes {
                if attribute.name.isEmpty {
                    throw LogbookError.invalidSchema(
                        "an attribute of \(entity.name) has an empty name")
                }
                if !names.insert(attribute.name).inserted {
                    throw LogbookError.invalidSchema(
                        "\(entity.name) has two attributes named \"\(attribute.name)\"")
                }
                if attribute.isSearchable && attribute.type != .string {
                    throw LogbookError.invalidSchema(
                        "\(entity.name).\(attribute.name) is searchable, but only String attributes can be (it holds \(attribute.type))"
                    )
                }
                if let value = attribute.defaultValue, !value.isNull, !attribute.holds(value) {
                    throw LogbookError.typeMismatch(
                        entity: entity.name, attribute: attribute.name,
                        expected: attribute.declaredType,
                        found: value.type?.description ?? "nil")
                }
                try validateType(of: attribute, in: entity)
            }
            for relationship in entity.relationships {
                try validate(relationship, of: entity, names: &names)
            }
            for index in entity.indexes { try validate(index, of: entity) }
        }
        try validateHierarchy()
    }

    /// An array or set has one member, its element; a composite's fields are named after it
    /// and follow it; a dotted name is a composite's field.
    private func validateType(of attribute: AttributeDescription, in entity: Entity) throws {
        let what = "\(entity.name).\(attribute.name)"
        func check(_ d: AttributeDescription, depth: Int) throws {
            guard depth < SchemaCodec.maxDepth else {
                throw LogbookError.invalidSchema(
                    "\(what) nests types over \(SchemaCodec.maxDepth) deep")
            }
            switch d.type {
            case .array, .set:
                guard d.members.count == 1 else {
                    throw LogbookError.invalidSchema(
                        "\(what) is a collection whose description has \(d.members.count) members; give it one, its element"
                    )
                }
            case .composite: break
            default:
                guard d.members.isEmpty else {
                    throw LogbookError.invalidSchema("\(what) is a \(d.type) with members")
                }
            }
            for member in d.members { try check(member, depth: depth + 1) }
        }
        try check(attribute, depth: 0)
        if let dot = attribute.name.lastIndex(of: ".") {
            let owner = String(attribute.name[..<dot])
            guard let i = entity.attributeIndex(owner), entity.attributes[i].type == .composite,
                i < entity.attributeIndex(attribute.name) ?? 0
            else {
                throw LogbookError.invalidSchema(
                    "\(what) is named as a field of \(owner), which is not a composite attribute before it"
                )
            }
        }
    }

    private func validate(_ index: IndexDescription, of entity: Entity) throws {
        guard !index.fields.isEmpty else {
            throw LogbookError.invalidSchema("an index of \(entity.name) names no fields")
        }
        guard Set(index.fields).count == index.fields.count else {
            throw LogbookError.invalidSchema(
                "the index \(index) of \(entity.name) names a field twice")
        }
        for field in index.fields
        where entity.attributeIndex(field) == nil
            && entity.relationship(named: field).map({ $0.isToMany }) != false
        {
            throw LogbookError.invalidSchema(
                "the index \(index) of \(entity.name) names \"\(field)\", which is neither an attribute nor a to-one relationship"
            )
        }
    }

    private func validate(
        _ relationship: RelationshipDescription, of entity: Entity, names: inout Set<String>
    ) throws {
        let what = "\(entity.name).\(relationship.name)"
        if !names.insert(relationship.name).inserted {
            throw LogbookError.invalidSchema(
                "\(entity.name) has two properties named \"\(relationship.name)\"")
        }
        guard let destination = self.entity(named: relationship.destination) else {
            throw LogbookError.invalidSchema(
                "\(what) reaches \(relationship.destination), which is not in the schema")
        }
        guard let inverseName = relationship.inverse else {
            if relationship.isToMany || relationship.storesLinks {
                throw LogbookError.invalidSchema(
                    "\(what) is to-many, so it needs an inverse to-one relationship on \(destination.name)"
                )
            }
            return
        }
        // A sub-entity inherits its superentity's relationships, inverses included.
        guard let inverse = destination.relationship(named: inverseName),
            inverse.destination == entity.name
                || ancestorNames(of: entity.name).contains(inverse.destination)
        else {
            throw LogbookError.invalidSchema(
                "\(what) names the inverse \(destination.name).\(inverseName), which does not reach \(entity.name)"
            )
        }
        if !relationship.isToMany && !inverse.isToMany {
            throw LogbookError.invalidSchema(
                "\(what) and its inverse are both to-one; one-to-many and many-to-many are supported, one-to-one is not"
            )
        }
        if relationship.isToMany && inverse.isToMany {
            if destination.name == entity.name && inverseName == relationship.name {
                throw LogbookError.invalidSchema(
                    "\(what) is to-many and names itself as its inverse")
            }
            if relationship.storesLinks == inverse.storesLinks {
                throw LogbookError.invalidSchema(
                    "\(what) and its inverse are many-to-many, so exactly one of them must store the links"
                )
            }
        } else if relationship.storesLinks {
            throw LogbookError.invalidSchema(
                "\(what) stores links, which only one side of a many-to-many relationship does")
        }
    }
}

/// The model classes of a ``Schema``, compared by identity.
private struct ModelClasses: @unchecked Sendable, Hashable {  // metatypes never change
    let types: [any PersistentModel.Type]
    let failure: LogbookError?

    static func == (a: Self, b: Self) -> Bool {
        a.types.map(ObjectIdentifier.init) == b.types.map(ObjectIdentifier.init)
    }

    func hash(into hasher: inout Hasher) {
        for type in types { hasher.combine(ObjectIdentifier(type)) }
    }
}
