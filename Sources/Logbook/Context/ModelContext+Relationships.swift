extension ModelContext {
    /// The objects relationship `r` of `owner` (registered here as entry `e`) reaches: for a
    /// to-one relationship, its target; for the storing side of a many-to-many, the linked
    /// objects that exist; for a derived to-many, the destination objects whose inverse (a
    /// to-one, or the storing side of a many-to-many) reaches `owner`, seeing pending changes,
    /// in identifier order (an index lookup of the inverse's field).
    /// - Throws: fetch errors (a damaged record, the engine).
    func relatedObjects(of owner: AnyObject, _ e: Int32, relationship r: Int) throws -> [AnyObject]
    {
        let entry = table[e]
        let binding = core.bindings[Int(entry.entity)]
        let relationship = binding.entity.relationships[r]
        let destination = try core.binding(named: relationship.destination)
        if relationship.isStored {
            let value = binding.read(owner, binding.relationshipSlots[r])
            if relationship.isToMany {
                return try (LinkList.keys(value) ?? []).compactMap {
                    try hierarchyObject(destination, $0)
                }.filter { ($0 as? any ModelObject)?.isDeleted != true }
            }
            guard case .integer(let key) = value,
                let target = try hierarchyObject(destination, UInt64(bitPattern: key))
            else { return [] }
            return [target]
        }
        // The destination's objects, then each sub-entity's (they inherit the inverse).
        var found: [AnyObject] = []
        for target in [destination] + core.descendants[destination.index].map({ core.bindings[$0] })
        {
            guard let inverseIndex = inverseIndex(of: relationship, in: target) else { continue }
            var plan = FetchPlan(binding: target)
            plan.matcher = .filter(
                .keyIn(target.relationshipSlots[inverseIndex], [entry.primaryKey]))
            found += try fetchObjects(plan)
        }
        return found
    }

    /// The entity of `object` (registered here) and the position of `relationship`'s inverse
    /// among its relationships: `destination`'s, or a sub-entity's for an object of one.
    func inverseSide(
        of relationship: RelationshipDescription, for object: AnyObject,
        destination: EntityBinding
    ) -> (binding: EntityBinding, index: Int)? {
        var binding = destination
        if let registered = (object as? any ModelObject)?.registered, registered.table === table {
            binding = registered.binding
        }
        return inverseIndex(of: relationship, in: binding).map { (binding, $0) }
    }

    /// The position of `relationship`'s inverse among `destination`'s relationships.
    func inverseIndex(of relationship: RelationshipDescription, in destination: EntityBinding)
        -> Int?
    {
        guard let inverse = relationship.inverse else { return nil }
        return destination.entity.relationships.firstIndex { $0.name == inverse }
    }

    /// The to-many relationship whose wrapper has `slot` (see `Relationship.slot`).
    func relatedObjects(of owner: AnyObject, _ e: Int32, slot: Int) throws -> [AnyObject] {
        guard let r = relationshipIndex(e, slot: slot) else { return [] }
        return try relatedObjects(of: owner, e, relationship: r)
    }

    private func relationshipIndex(_ e: Int32, slot: Int) -> Int? {
        let binding = core.bindings[Int(table[e].entity)]
        if slot >= 0 { return binding.relationshipSlots.firstIndex(of: slot) }
        let r = -(slot + 2)
        return r >= 0 && r < binding.entity.relationships.count ? r : nil
    }

    /// The object of `Model` with primary key `key`, or `nil`.
    func relatedTarget<Model: PersistentModel>(key: UInt64, as type: Model.Type) -> Model? {
        guard key != 0, let binding = try? core.binding(named: Model.entityName) else {
            return nil
        }
        return (try? hierarchyObject(binding, key)) as? Model
    }

    /// The live object `pk` of `binding`'s entity or of one of its sub-entities (a
    /// relationship to a superentity holds a key of its hierarchy's one sequence), or `nil`.
    func hierarchyObject(_ binding: EntityBinding, _ pk: UInt64) throws -> AnyObject? {
        if let found = try object(binding, pk) { return found }
        for sub in core.descendants[binding.index] {
            if let found = try object(core.bindings[sub], pk) { return found }
        }
        return nil
    }

    /// Makes `members` exactly the objects the to-many relationship at `slot` of `owner`
    /// reaches, by setting or clearing their inverse to-one.
    func setMembers(_ members: [AnyObject], of owner: AnyObject, _ e: Int32, slot: Int) {
        guard let r = relationshipIndex(e, slot: slot) else { return }
        setMembers(members, of: owner, e, relationship: r)
    }

    func setMembers(_ members: [AnyObject], of owner: AnyObject, _ e: Int32, relationship r: Int) {
        let binding = core.bindings[Int(table[e].entity)]
        let relationship = binding.entity.relationships[r]
        if relationship.storesLinks {
            table.willChange(e, slot: binding.relationshipSlots[r], object: owner)
            if binding.layout != nil {
                binding.relationshipFields[r].setMembers(owner, members)
            } else {
                binding.write(
                    owner, binding.relationshipSlots[r], LinkList.value(keys(of: members)))
            }
            return
        }
        guard let destination = try? core.binding(named: relationship.destination) else { return }
        let current = (try? relatedObjects(of: owner, e, relationship: r)) ?? []
        let wanted = Set(members.map(ObjectIdentifier.init))
        let present = Set(current.map(ObjectIdentifier.init))
        for object in current where !wanted.contains(ObjectIdentifier(object)) {
            if let side = inverseSide(of: relationship, for: object, destination: destination) {
                unlink(object, side.binding, side.index, from: owner)
            }
        }
        for object in members where !present.contains(ObjectIdentifier(object)) {
            if let side = inverseSide(of: relationship, for: object, destination: destination) {
                link(object, side.binding, side.index, to: owner)
            }
        }
    }

    /// Points relationship `r` of `object` at `target`: sets a to-one, or adds `target` to the
    /// links of the storing side of a many-to-many.
    func link(_ object: AnyObject, _ binding: EntityBinding, _ r: Int, to target: AnyObject) {
        guard binding.entity.relationships[r].isToMany else {
            setToOne(object, binding, r, target: target)
            return
        }
        editLinks(object, binding, r) { $0.formUnion(keys(of: [target])) }
    }

    /// Undoes ``link(_:_:_:to:)``: clears a to-one, or removes `target` from the links.
    func unlink(_ object: AnyObject, _ binding: EntityBinding, _ r: Int, from target: AnyObject) {
        guard binding.entity.relationships[r].isToMany else {
            setToOne(object, binding, r, target: nil)
            return
        }
        editLinks(object, binding, r) { $0.subtract(keys(of: [target])) }
    }

    /// Changes the links of the storing side `r` of a many-to-many of `object` as stored
    /// (links to objects deleted since included, so a rollback restores them), marking the
    /// object changed.
    private func editLinks(
        _ object: AnyObject, _ binding: EntityBinding, _ r: Int, _ edit: (inout Set<UInt64>) -> Void
    ) {
        guard let (owner, e) = binding.registration(of: object), owner === table else { return }
        let slot = binding.relationshipSlots[r]
        let before = Set(LinkList.keys(binding.read(object, slot)) ?? [])
        var after = before
        edit(&after)
        guard after != before else { return }
        table.willChange(e, slot: slot, object: object)
        binding.write(object, slot, LinkList.value(after))
    }

    /// The primary keys of registered objects (temporary ones left out).
    private func keys(of objects: [AnyObject]) -> [UInt64] {
        objects.compactMap { ($0 as? any ModelObject)?.persistentModelID }.filter {
            !$0.isTemporary
        }.map(\.primaryKey)
    }

    /// Points the to-one relationship `r` of `object` at `target` (`nil` clears it), marking
    /// the object changed.
    func setToOne(_ object: AnyObject, _ binding: EntityBinding, _ r: Int, target: AnyObject?) {
        let slot = binding.relationshipSlots[r]
        if let (owner, e) = binding.registration(of: object), owner === table {
            table.willChange(e, slot: slot, object: object)
        }
        if binding.layout != nil {
            binding.relationshipFields[r].setTarget(object, target)
        } else {
            let key =
                target.flatMap { ($0 as? any ModelObject)?.persistentModelID }.flatMap {
                    $0.isTemporary ? nil : AttributeValue.integer(Int64(bitPattern: $0.primaryKey))
                } ?? .null
            binding.write(object, slot, key)
        }
    }

    /// After `object` is registered as entry `e`: inserts the objects its relationships were
    /// given before (and points their inverse at it).
    func registerRelated(_ object: AnyObject, _ binding: EntityBinding, _ e: Int32) {
        guard binding.layout != nil else { return }
        for (r, field) in binding.relationshipFields.enumerated() {
            if field.isToMany {
                let members = field.takeEarlyMembers(object)
                for member in members { insertAny(member) }
                if !members.isEmpty { setMembers(members, of: object, e, relationship: r) }
            } else if let target = field.loadedTarget(object) {
                insertAny(target)
            }
        }
    }

    /// Inserts an object of any model class in the container (nothing if it is registered).
    func insertAny(_ object: AnyObject) {
        guard let model = object as? any PersistentModel else { return }
        insertOpened(model)
    }

    private func insertOpened<Model: PersistentModel>(_ model: Model) { insert(model) }

    /// Applies the delete rules of a deleted object's relationships.
    func applyDeleteRules(_ object: AnyObject, _ binding: EntityBinding, _ e: Int32) {
        for (r, relationship) in binding.entity.relationships.enumerated() {
            switch relationship.deleteRule {
            case .cascade:
                for related in (try? relatedObjects(of: object, e, relationship: r)) ?? [] {
                    if let model = related as? any ModelObject { delete(model) }
                }
            case .nullify:
                // A stored relationship goes with the record; a derived one is stored in the
                // related objects, which must let go of this one.
                guard !relationship.isStored,
                    let destination = try? core.binding(named: relationship.destination)
                else { continue }
                for related in (try? relatedObjects(of: object, e, relationship: r)) ?? [] {
                    if let side = inverseSide(
                        of: relationship, for: related, destination: destination)
                    {
                        unlink(related, side.binding, side.index, from: object)
                    }
                }
            case .deny:
                continue
            }
        }
    }

    /// Throws if a deleted object has a `.deny` relationship that still reaches an object.
    func checkDenyRules() throws {
        // Most schemas have no `.deny` rule: then no deleted object is looked at.
        guard core.bindings.contains(where: \.hasDenyRule) else { return }
        for e in table.deleted where table[e].state == .deleted {
            let entry = table[e]
            let binding = core.bindings[Int(entry.entity)]
            guard let object = table.objects[Int(e)] else { continue }
            for (r, relationship) in binding.entity.relationships.enumerated()
            where relationship.deleteRule == .deny {
                let remaining = try relatedObjects(of: object, e, relationship: r).filter {
                    ($0 as? any ModelObject)?.isDeleted != true
                }
                if !remaining.isEmpty {
                    throw LogbookError.deleteDenied(
                        entity: binding.entity.name, relationship: relationship.name,
                        object: PersistentIdentifier(
                            entityName: binding.entity.name, primaryKey: entry.primaryKey
                        ).description)
                }
            }
        }
    }
}
