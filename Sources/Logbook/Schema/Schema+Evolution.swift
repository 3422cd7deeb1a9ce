extension Schema {
    /// The schema to store when a store holding `self` is opened with `requested` — a
    /// lightweight migration, which rewrites no record: the stored entities in their order, each
    /// with its attributes as `requested` has them (renamed through `originalName`, widened,
    /// made optional, or required with a default), the ones `requested` dropped removed and its
    /// new ones appended; then the requested new entities. Entities `requested` leaves out are
    /// kept, with their objects. Also returns the renames, to store with the new version.
    /// - Throws: ``LogbookError/incompatibleSchema(entity:attribute:reason:)`` for what a
    ///   lightweight migration cannot do: a type changed other than by widening, an optional
    ///   attribute made required without a default, a new required attribute without a default,
    ///   a relationship's destination or cardinality changed, a superentity lost or changed (an
    ///   entity without one may gain one: then the caller renumbers its objects).
    func migrated(to requested: Schema) throws -> (schema: Schema, renames: [FieldRename]) {
        var result: [Entity] = []
        var renames: [FieldRename] = []
        for old in entities {
            guard let new = requested.entity(named: old.name) else {
                result.append(old)
                continue
            }
            // An entity without a superentity may gain one (joining a hierarchy: the open
            // gives its objects new keys, ``ContainerCore/joinHierarchies``); one never loses
            // or changes its superentity.
            guard old.superentity == new.superentity || old.superentity == nil else {
                throw LogbookError.incompatibleSchema(
                    entity: old.name, attribute: "",
                    reason:
                        "its superentity changed from \(old.superentity ?? "none") to \(new.superentity ?? "none"), and its objects' primary keys were not drawn from the new hierarchy's sequence"
                )
            }
            var merged = new
            merged.attributes = []
            var taken = Set<String>()
            for oldAttribute in old.attributes {
                guard let newAttribute = Self.successor(of: oldAttribute.name, in: new.attributes)
                else { continue }  // removed: its values stay in older records
                try Self.checkLightweight(oldAttribute, becoming: newAttribute, of: old.name)
                if newAttribute.name != oldAttribute.name {
                    renames.append(
                        FieldRename(
                            entity: old.name, from: oldAttribute.name, to: newAttribute.name))
                }
                taken.insert(newAttribute.name)
                merged.attributes.append(newAttribute)
            }
            for attribute in new.attributes where !taken.contains(attribute.name) {
                if !attribute.isOptional && attribute.defaultValue == nil {
                    throw LogbookError.incompatibleSchema(
                        entity: old.name, attribute: attribute.name,
                        reason: "a new required attribute needs a default value")
                }
                merged.attributes.append(attribute)
            }
            merged.relationships = []
            var takenRelationships = Set<String>()
            for relationship in old.relationships {
                guard let changed = Self.successor(of: relationship.name, in: new.relationships)
                else { continue }
                if changed.destination != relationship.destination
                    || changed.isToMany != relationship.isToMany
                    || changed.storesLinks != relationship.storesLinks
                {
                    throw LogbookError.incompatibleSchema(
                        entity: old.name, attribute: relationship.name,
                        reason:
                            "the relationship's destination or cardinality changed (from \(relationship.destination)\(relationship.isToMany ? " to-many" : "")\(relationship.storesLinks ? " storing links" : "") to \(changed.destination)\(changed.isToMany ? " to-many" : "")\(changed.storesLinks ? " storing links" : ""))"
                    )
                }
                if changed.name != relationship.name {
                    renames.append(
                        FieldRename(entity: old.name, from: relationship.name, to: changed.name))
                }
                takenRelationships.insert(changed.name)
                merged.relationships.append(changed)
            }
            merged.relationships += new.relationships.filter {
                !takenRelationships.contains($0.name)
            }
            result.append(merged)
        }
        for entity in requested.entities where self.entity(named: entity.name) == nil {
            result.append(entity)
        }
        return (Schema(result, version: version), renames)
    }

    /// Whether this schema, stored after `older` with `renames`, renamed, removed, widened or
    /// made required a field of it: what a Logbook that reads schema formats 1 to 3 only would
    /// misread in records of `older` (it knew only added fields and entities).
    func changesFields(of older: Schema, renames: [FieldRename]) -> Bool {
        guard renames.isEmpty else { return true }
        for old in older.entities {
            guard let new = entity(named: old.name) else { continue }
            for attribute in old.attributes {
                guard let now = new.attributes.first(where: { $0.name == attribute.name }),
                    now.storesSameValues(as: attribute),
                    now.isOptional || !attribute.isOptional
                else { return true }
            }
            for relationship in old.relationships
            where !new.relationships.contains(where: { $0.name == relationship.name }) {
                return true
            }
        }
        return false
    }

    /// The description in `candidates` of what was called `name`: the one of that name, else
    /// the one whose `originalName` it is.
    private static func successor<Field: RenamableField>(of name: String, in candidates: [Field])
        -> Field?
    {
        candidates.first { $0.name == name } ?? candidates.first { $0.originalName == name }
    }

    /// Refuses a change of `old` into `new` that stored values cannot follow without a
    /// custom stage.
    private static func checkLightweight(
        _ old: AttributeDescription, becoming new: AttributeDescription, of entity: String
    ) throws {
        if !new.storesSameValues(as: old) && !old.type.widens(to: new.type) {
            throw LogbookError.incompatibleSchema(
                entity: entity, attribute: old.name,
                reason:
                    "its type changed from \(old.declaredType) to \(new.declaredType), which is not a widening; convert its values in a custom migration stage"
            )
        }
        if old.isOptional && !new.isOptional && new.defaultValue == nil {
            throw LogbookError.incompatibleSchema(
                entity: entity, attribute: old.name,
                reason: "it became required without a default value for the objects that have none")
        }
    }
}

/// An attribute or relationship, found by its name or its `originalName`.
private protocol RenamableField {
    var name: String { get }
    var originalName: String? { get }
}

extension AttributeDescription: RenamableField {}
extension RelationshipDescription: RenamableField {}

extension AttributeType {
    /// Whether every value of this type is a value of `wider` (read as it): a smaller integer
    /// to a larger one or to `Double`, `Float` to `Double`. `Int64` to `Double` rounds integers
    /// beyond 2⁵³, as Swift's `Double(_:)` does.
    func widens(to wider: AttributeType) -> Bool {
        switch (self, wider) {
        case (.int8, .int16), (.int8, .int32), (.int8, .integer),
            (.int16, .int32), (.int16, .integer), (.int32, .integer),
            (.uint8, .uint16), (.uint8, .uint32), (.uint8, .uint64), (.uint8, .int16),
            (.uint8, .int32), (.uint8, .integer),
            (.uint16, .uint32), (.uint16, .uint64), (.uint16, .int32), (.uint16, .integer),
            (.uint32, .uint64), (.uint32, .integer):
            return true
        case (.int8, .double), (.int16, .double), (.int32, .double), (.integer, .double),
            (.uint8, .double), (.uint16, .double), (.uint32, .double), (.float, .double):
            return true
        default:
            return false
        }
    }
}
