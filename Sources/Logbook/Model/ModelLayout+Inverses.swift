extension ModelLayout {
    /// The entities of `layouts` with each relationship's inverse named: from the `inverse:`
    /// key path given in the class, else found when the destination has exactly one
    /// relationship of the other cardinality back to the source.
    /// - Throws: ``LogbookError/invalidSchema(_:)`` for an inverse key path that is not a
    ///   relationship of the destination class, or a destination class not in `layouts`.
    static func entities(resolving layouts: [ModelLayout]) throws -> [Entity] {
        var entities = layouts.map(\.entity)
        // Each class's nearest superclass among the layouts is its entity's superentity.
        for (i, layout) in layouts.enumerated() {
            var next: AnyClass? = _getSuperclass(layout.modelType)
            while let type = next {
                if let parent = layouts.first(where: {
                    ObjectIdentifier($0.modelType) == ObjectIdentifier(type)
                }) {
                    entities[i].superentity = parent.entity.name
                    break
                }
                next = _getSuperclass(type)
            }
        }
        for (i, layout) in layouts.enumerated() {
            let prototype = layout.modelType.init()
            let fields = layout.fields.compactMap { $0 as? any RelationshipAccessor }
            for (r, field) in fields.enumerated() {
                guard let keyPath = field.inverseKeyPath(prototype) else { continue }
                guard
                    let destination = layouts.first(where: { $0.modelType == field.destinationType }
                    )
                else {
                    throw LogbookError.invalidSchema(
                        "\(layout.entity.name).\(field.name) reaches \(field.destinationType), which is not among the container's classes"
                    )
                }
                let binding = try EntityBinding(
                    index: 0, entity: destination.entity,
                    codec: RecordCodec(
                        entity: destination.entity, schemaVersion: 0, history: SchemaHistory()),
                    layout: destination)
                guard let name = KeyPathResolver(binding: binding).fieldName(keyPath),
                    destination.entity.relationship(named: name) != nil
                else {
                    throw LogbookError.invalidSchema(
                        "the inverse given for \(layout.entity.name).\(field.name) is not a relationship of \(destination.entity.name)"
                    )
                }
                entities[i].relationships[r].inverse = name
                if let j = layouts.firstIndex(where: { $0 === destination }),
                    let back = entities[j].relationships.firstIndex(where: { $0.name == name }),
                    entities[j].relationships[back].inverse == nil
                {
                    entities[j].relationships[back].inverse = field.name
                }
            }
        }
        // Pair the rest when there is only one candidate.
        for i in entities.indices {
            for r in entities[i].relationships.indices
            where entities[i].relationships[r].inverse == nil {
                let relationship = entities[i].relationships[r]
                guard let j = entities.firstIndex(where: { $0.name == relationship.destination })
                else { continue }
                let candidates = entities[j].relationships.indices.filter {
                    let other = entities[j].relationships[$0]
                    return other.destination == entities[i].name
                        && other.isToMany != relationship.isToMany
                        && (other.inverse == nil || other.inverse == relationship.name)
                }
                if candidates.count == 1 {
                    entities[i].relationships[r].inverse =
                        entities[j].relationships[candidates[0]].name
                    entities[j].relationships[candidates[0]].inverse = relationship.name
                }
            }
        }
        assignLinkStorage(&entities)
        inheritRelationships(&entities)
        for (i, layout) in layouts.enumerated() {
            entities[i] = try layout.withDeclaredIndexes(entities[i])
        }
        return entities
    }
}

extension ModelLayout {
    /// Gives each sub-entity's inherited relationships their superentity's inverse and link
    /// storage (superentities first), so a change through a subclass reaches the inverse side.
    static func inheritRelationships(_ entities: inout [Entity]) {
        var done = Set(entities.indices.filter { entities[$0].superentity == nil })
        while done.count < entities.count {
            let before = done.count
            for i in entities.indices where !done.contains(i) {
                guard let p = entities.firstIndex(where: { $0.name == entities[i].superentity }),
                    done.contains(p)
                else { continue }
                for r in entities[i].relationships.indices {
                    guard
                        let inherited = entities[p].relationship(
                            named: entities[i].relationships[r].name)
                    else { continue }
                    entities[i].relationships[r].inverse = inherited.inverse
                    entities[i].relationships[r].storesLinks = inherited.storesLinks
                }
                done.insert(i)
            }
            if done.count == before { return }
        }
    }

    /// Picks the side of each many-to-many pair that stores the links: the one whose
    /// `Entity.relationship` name sorts first, so the choice does not depend on the order the
    /// classes are listed in.
    static func assignLinkStorage(_ entities: inout [Entity]) {
        for i in entities.indices {
            for r in entities[i].relationships.indices {
                let relationship = entities[i].relationships[r]
                guard relationship.isToMany, let inverse = relationship.inverse,
                    let j = entities.firstIndex(where: { $0.name == relationship.destination }),
                    let back = entities[j].relationship(named: inverse), back.isToMany
                else { continue }
                entities[i].relationships[r].storesLinks =
                    (entities[i].name, relationship.name) < (entities[j].name, back.name)
            }
        }
    }
}
