extension ModelContext {
    /// The objects relationship `r` of `owner` (registered here as entry `e`) reaches: for a
    /// to-many relationship, the destination objects whose inverse to-one points at `owner`
    /// (seeing pending changes), in identifier order; for a to-one relationship, its target.
    /// - Throws: fetch errors (a damaged record, the engine).
    func relatedObjects(of owner: AnyObject, _ e: Int32, relationship r: Int) throws -> [AnyObject]
    {
        let entry = table.entries[Int(e)]
        let binding = core.bindings[Int(entry.entity)]
        let relationship = binding.entity.relationships[r]
        let destination = try core.binding(named: relationship.destination)
        if !relationship.isToMany {
            guard case .integer(let key) = binding.read(owner, binding.relationshipSlots[r]),
                let target = try object(destination, UInt64(bitPattern: key))
            else { return [] }
            return [target]
        }
        guard let inverse = relationship.inverse,
            let inverseIndex = destination.entity.relationships.firstIndex(where: {
                $0.name == inverse
            })
        else { return [] }
        var plan = FetchPlan(binding: destination)
        plan.matcher = .filter(
            .compare(
                .attribute(destination.relationshipSlots[inverseIndex]), .equal,
                .value(.integer(Int64(bitPattern: entry.primaryKey))), caseInsensitive: false,
                diacriticInsensitive: false))
        return try fetchObjects(plan)
    }

    /// The to-many relationship whose wrapper has `slot` (see `Relationship.slot`).
    func relatedObjects(of owner: AnyObject, _ e: Int32, slot: Int) throws -> [AnyObject] {
        guard let r = relationshipIndex(e, slot: slot) else { return [] }
        return try relatedObjects(of: owner, e, relationship: r)
    }

    private func relationshipIndex(_ e: Int32, slot: Int) -> Int? {
        let r = -(slot + 2)
        let binding = core.bindings[Int(table.entries[Int(e)].entity)]
        return r >= 0 && r < binding.entity.relationships.count ? r : nil
    }

    /// The object of `Model` with primary key `key`, or `nil`.
    func relatedTarget<Model: PersistentModel>(key: UInt64, as type: Model.Type) -> Model? {
        guard key != 0 else { return nil }
        return
            (try? objectReference(
                for: PersistentIdentifier(entityName: Model.entityName, primaryKey: key)))
            as? Model
    }

    /// Makes `members` exactly the objects the to-many relationship at `slot` of `owner`
    /// reaches, by setting or clearing their inverse to-one.
    func setMembers(_ members: [AnyObject], of owner: AnyObject, _ e: Int32, slot: Int) {
        guard let r = relationshipIndex(e, slot: slot) else { return }
        setMembers(members, of: owner, e, relationship: r)
    }

    func setMembers(_ members: [AnyObject], of owner: AnyObject, _ e: Int32, relationship r: Int) {
        let binding = core.bindings[Int(table.entries[Int(e)].entity)]
        let relationship = binding.entity.relationships[r]
        guard let destination = try? core.binding(named: relationship.destination),
            let inverse = relationship.inverse,
            let inverseIndex = destination.entity.relationships.firstIndex(where: {
                $0.name == inverse
            })
        else { return }
        let current = (try? relatedObjects(of: owner, e, relationship: r)) ?? []
        let wanted = Set(members.map(ObjectIdentifier.init))
        let present = Set(current.map(ObjectIdentifier.init))
        for object in current where !wanted.contains(ObjectIdentifier(object)) {
            setToOne(object, destination, inverseIndex, target: nil)
        }
        for object in members where !present.contains(ObjectIdentifier(object)) {
            setToOne(object, destination, inverseIndex, target: owner)
        }
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
                guard relationship.isToMany, let inverse = relationship.inverse,
                    let destination = try? core.binding(named: relationship.destination),
                    let inverseIndex = destination.entity.relationships.firstIndex(where: {
                        $0.name == inverse
                    })
                else { continue }
                for related in (try? relatedObjects(of: object, e, relationship: r)) ?? [] {
                    setToOne(related, destination, inverseIndex, target: nil)
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
        for e in table.deleted where table.entries[Int(e)].state == .deleted {
            let entry = table.entries[Int(e)]
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
