extension ModelContext {
    /// The objects relationship `r` of `owner` reaches: for a to-many relationship, the
    /// destination objects whose inverse to-one points at `owner` (seeing pending changes), in
    /// identifier order; for a to-one relationship, its target if any.
    /// - Throws: fetch errors (a damaged record, the engine).
    func relatedObjects(of owner: ModelBacking, relationship r: Int) throws -> [AnyObject] {
        let relationship = owner.binding.entity.relationships[r]
        let destination = try container.binding(named: relationship.destination)
        if !relationship.isToMany {
            guard
                case .integer(let key) = owner.binding.read(
                    owner.object, owner.binding.relationshipSlots[r]),
                let target = try objectReference(
                    for: PersistentIdentifier(
                        entityName: destination.entity.name, primaryKey: UInt64(bitPattern: key)))
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
                .value(.integer(Int64(bitPattern: owner.primaryKey))), caseInsensitive: false,
                diacriticInsensitive: false))
        return try fetchObjects(plan)
    }

    /// The to-many relationship whose wrapper has `slot` (see `Relationship.slot`).
    func relatedObjects(of owner: ModelBacking, slot: Int) throws -> [AnyObject] {
        let r = -(slot + 2)
        guard r >= 0, r < owner.binding.entity.relationships.count else { return [] }
        return try relatedObjects(of: owner, relationship: r)
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
    func setMembers(_ members: [AnyObject], of owner: ModelBacking, slot: Int) {
        let r = -(slot + 2)
        guard r >= 0, r < owner.binding.entity.relationships.count else { return }
        setMembers(members, of: owner, relationship: r)
    }

    func setMembers(_ members: [AnyObject], of owner: ModelBacking, relationship r: Int) {
        let relationship = owner.binding.entity.relationships[r]
        guard let destination = try? container.binding(named: relationship.destination),
            let inverse = relationship.inverse,
            let inverseIndex = destination.entity.relationships.firstIndex(where: {
                $0.name == inverse
            })
        else { return }
        let current = (try? relatedObjects(of: owner, relationship: r)) ?? []
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
    func setToOne(_ object: AnyObject, _ binding: EntityBinding, _ r: Int, target: ModelBacking?) {
        binding.backing(of: object)?.willChange()
        if binding.layout != nil {
            binding.relationshipFields[r].setTarget(object, target?.object)
        } else {
            let key =
                target.map { AttributeValue.integer(Int64(bitPattern: $0.primaryKey)) } ?? .null
            binding.write(object, binding.relationshipSlots[r], key)
        }
    }

    /// After `object` is registered: inserts the objects its relationships were given before
    /// (and points their inverse at it).
    func registerRelated(_ object: AnyObject, _ backing: ModelBacking) {
        let binding = backing.binding
        guard binding.layout != nil else { return }
        for (r, field) in binding.relationshipFields.enumerated() {
            if field.isToMany {
                let members = field.takeEarlyMembers(object)
                for member in members { insertAny(member) }
                if !members.isEmpty { setMembers(members, of: backing, relationship: r) }
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
    func applyDeleteRules(_ backing: ModelBacking) {
        let binding = backing.binding
        for (r, relationship) in binding.entity.relationships.enumerated() {
            switch relationship.deleteRule {
            case .cascade:
                for object in (try? relatedObjects(of: backing, relationship: r)) ?? [] {
                    if let model = object as? any ModelObject { delete(model) }
                }
            case .nullify:
                guard relationship.isToMany, let inverse = relationship.inverse,
                    let destination = try? container.binding(named: relationship.destination),
                    let inverseIndex = destination.entity.relationships.firstIndex(where: {
                        $0.name == inverse
                    })
                else { continue }
                for object in (try? relatedObjects(of: backing, relationship: r)) ?? [] {
                    setToOne(object, destination, inverseIndex, target: nil)
                }
            case .deny:
                continue
            }
        }
    }

    /// Throws if a deleted object has a `.deny` relationship that still reaches an object.
    func checkDenyRules() throws {
        for backing in deleted.values {
            for (r, relationship) in backing.binding.entity.relationships.enumerated()
            where relationship.deleteRule == .deny {
                let remaining = try relatedObjects(of: backing, relationship: r).filter {
                    ($0 as? any ModelObject)?.isDeleted != true
                }
                if !remaining.isEmpty {
                    throw LogbookError.deleteDenied(
                        entity: backing.binding.entity.name, relationship: relationship.name,
                        object: backing.identifier.description)
                }
            }
        }
    }
}
