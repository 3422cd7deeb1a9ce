extension Schema {
    /// The positions of the entities that inherit from the entity at `index`, directly or not,
    /// in schema order.
    /// - Complexity: O(entities × depth).
    func descendants(of index: Int) -> [Int] {
        let name = entities[index].name
        return entities.indices.filter { i in
            i != index && ancestors(of: i).contains(name)
        }
    }

    /// The names of the superentities of the entity called `name`, nearest first.
    func ancestorNames(of name: String) -> [String] {
        entities.firstIndex { $0.name == name }.map { ancestors(of: $0) } ?? []
    }

    /// The names of the entity's superentities, nearest first.
    func ancestors(of index: Int) -> [String] {
        var names: [String] = []
        var next = entities[index].superentity
        while let name = next, names.count < entities.count,
            let e = entities.firstIndex(where: { $0.name == name })
        {
            names.append(name)
            next = entities[e].superentity
        }
        return names
    }

    /// The position of the entity at the top of `index`'s hierarchy (itself, without a
    /// superentity): its primary keys are drawn from that entity's sequence.
    func hierarchyRoot(of index: Int) -> Int {
        guard let top = ancestors(of: index).last else { return index }
        return entities.firstIndex { $0.name == top } ?? index
    }

    /// A superentity is an entity of the schema, not the entity itself nor one of its
    /// descendants, and the sub-entity has its every attribute and relationship, with the same
    /// types (first, but for attributes a migration appended to either).
    func validateHierarchy() throws {
        for (i, entity) in entities.enumerated() {
            guard let name = entity.superentity else { continue }
            guard let parent = self.entity(named: name) else {
                throw LogbookError.invalidSchema(
                    "the superentity \(name) of \(entity.name) is not an entity of the schema")
            }
            guard !ancestors(of: i).contains(entity.name), name != entity.name else {
                throw LogbookError.invalidSchema("\(entity.name) inherits from itself")
            }
            guard
                parent.attributes.allSatisfy({ a in
                    entity.attributeIndex(a.name).map { entity.attributes[$0].type == a.type }
                        ?? false
                }),
                parent.relationships.allSatisfy({ r in
                    entity.relationship(named: r.name).map {
                        $0.destination == r.destination && $0.isToMany == r.isToMany
                    } ?? false
                })
            else {
                throw LogbookError.invalidSchema(
                    "\(entity.name) inherits from \(name) but lacks some of its attributes or relationships"
                )
            }
        }
    }
}
