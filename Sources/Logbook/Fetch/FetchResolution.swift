extension ModelContext {
    /// The plan with everything only a context can answer turned into tests on the entity's
    /// own stored fields, so a record can be tested (or an index used) alone:
    ///
    /// - A comparison through a to-one relationship (`company.name == "Acme"`) becomes
    ///   membership of the relationship's key in the destination objects that satisfy it,
    ///   found by a fetch of the destination (with the same pending changes, through its
    ///   indexes where it has them). When the comparison holds for a missing object
    ///   (`company.name != "Acme"`), it is the complement: not one of those that fail it.
    /// - A relationship compared with an object (`company == %@`) becomes a comparison of its
    ///   key; with `nil`, one that also counts keys of objects deleted in this context.
    /// - `persistentModelID` comparisons become sets of primary keys.
    /// - A predicate only objects answer is evaluated on this context's objects (a fresh
    ///   context's when pending changes are left out), and its stored matches become a set of
    ///   primary keys; pending objects are tested as they are.
    /// - Throws: errors of the destination fetches and of the predicate.
    func resolved(_ plan: FetchPlan) throws -> FetchPlan {
        var plan = plan
        switch plan.matcher {
        case .filter(let node):
            plan.matcher = .filter(
                try resolve(node, plan.binding, includePending: plan.includePendingChanges))
        case .registeredObject(let test):
            plan.matcher = .filter(.identifierIn(try storedMatches(plan, test)))
            plan.pendingTest = test
        case .all, .object:
            break
        }
        return plan
    }

    private func resolve(_ node: FilterNode, _ binding: EntityBinding, includePending: Bool)
        throws -> FilterNode
    {
        switch node {
        case .constant, .keyIn, .identifierIn, .linkCount:
            return node
        case .reachesAny(let r, _, let inner):
            return try reachingAny(r, inner, binding, includePending: includePending)
        case .reachCount(let r, _, let op, let count):
            return try reachingCount(r, op, count, binding, includePending: includePending)
        case .and(let a, let b):
            return .and(
                try resolve(a, binding, includePending: includePending),
                try resolve(b, binding, includePending: includePending))
        case .or(let a, let b):
            return .or(
                try resolve(a, binding, includePending: includePending),
                try resolve(b, binding, includePending: includePending))
        case .not(let a):
            return .not(try resolve(a, binding, includePending: includePending))
        case .related(let slot, let destination, let inner, let whenMissing):
            let target = try core.binding(named: destination)
            var sub = FetchPlan(binding: target)
            // Holding for a missing object: the complement of the objects that fail it.
            sub.matcher = .filter(whenMissing ? .not(inner) : inner)
            sub.includePendingChanges = includePending
            let keys = Set(try execute(sub, keepRecords: false).candidates.map(\.primaryKey))
            return whenMissing ? .not(.keyIn(slot, keys)) : .keyIn(slot, keys)
        case .compare(let l, let op, let r, let c, let d):
            return try resolveComparison(
                node, l, op, r, caseInsensitive: c, diacriticInsensitive: d, binding,
                includePending: includePending)
        case .between:
            return node
        }
    }

    private func resolveComparison(
        _ node: FilterNode, _ l: FilterOperand, _ op: FilterOperator, _ r: FilterOperand,
        caseInsensitive: Bool, diacriticInsensitive: Bool, _ binding: EntityBinding,
        includePending: Bool
    ) throws -> FilterNode {
        // The object's own identifier.
        if case .primaryKey = l { return identifiers(op, r, binding) ?? node }
        if case .primaryKey = r { return identifiers(op, l, binding) ?? node }
        // A to-one relationship's key against an object, a list of them, or nil.
        let (field, other): (Int, FilterOperand)
        switch (l, r) {
        case (.attribute(let i), _): (field, other) = (i, r)
        case (_, .attribute(let i)): (field, other) = (i, l)
        default: return node
        }
        guard let relationship = binding.relationshipSlots.firstIndex(of: field),
            relationship >= 0
        else { return node }
        let destination = binding.entity.relationships[relationship].destination
        let deleted = includePending ? deletedKeys(of: destination) : []
        switch other {
        case .identifier(let id):
            guard op == .equal || op == .notEqual else { return node }
            // An object not inserted, of another entity or deleted here: reached by nothing.
            guard let id, id.entityName == destination, !deleted.contains(id.primaryKey) else {
                return .constant(op == .notEqual)
            }
            return .compare(
                .attribute(field), op, .value(.integer(Int64(bitPattern: id.primaryKey))),
                caseInsensitive: false, diacriticInsensitive: false)
        case .identifiers(let ids):
            guard op == .in else { return node }
            return .keyIn(
                field,
                Set(
                    ids.filter { $0.entityName == destination && !deleted.contains($0.primaryKey) }
                        .map(\.primaryKey)))
        case .value(.null) where !deleted.isEmpty:
            // A key of an object deleted here reads as nil.
            switch op {
            case .equal: return .or(node, .keyIn(field, deleted))
            case .notEqual: return .and(node, .not(.keyIn(field, deleted)))
            default: return node
            }
        default:
            return node
        }
    }

    /// `reachesAny`: the objects whose to-many relationship `r` reaches a destination object
    /// matching `inner`. Found by a fetch of the destination; then, where the relationship is
    /// stored here, the link index answers which objects hold those links; where it is derived,
    /// the matching objects' inverse fields name the objects.
    private func reachingAny(
        _ r: Int, _ inner: FilterNode, _ binding: EntityBinding, includePending: Bool
    ) throws -> FilterNode {
        let relationship = binding.entity.relationships[r]
        let destination = try core.binding(named: relationship.destination)
        var sub = FetchPlan(binding: destination)
        sub.matcher = .filter(inner)
        sub.includePendingChanges = includePending
        if relationship.isStored {
            let keys = Set(try execute(sub, keepRecords: false).candidates.map(\.primaryKey))
            return .keyIn(binding.relationshipSlots[r], keys)
        }
        guard let back = inverseIndex(of: relationship, in: destination) else {
            return .constant(false)
        }
        var owners = Set<UInt64>()
        for object in try fetchObjects(sub) {
            owners.formUnion(
                Self.reachedKeys(destination.read(object, destination.relationshipSlots[back])))
        }
        return .identifierIn(owners)
    }

    /// `reachCount`: a count of links where the relationship is stored here; where it is
    /// derived, the objects whose count passes, from one fetch of every destination object.
    private func reachingCount(
        _ r: Int, _ op: FilterOperator, _ count: Int, _ binding: EntityBinding,
        includePending: Bool
    ) throws -> FilterNode {
        let relationship = binding.entity.relationships[r]
        if relationship.isStored { return .linkCount(binding.relationshipSlots[r], op, count) }
        let destination = try core.binding(named: relationship.destination)
        guard let back = inverseIndex(of: relationship, in: destination) else {
            return .constant(false)
        }
        var sub = FetchPlan(binding: destination)
        sub.matcher = .all
        sub.includePendingChanges = includePending
        var counts: [UInt64: Int] = [:]
        for object in try fetchObjects(sub) {
            for key in Self.reachedKeys(
                destination.read(object, destination.relationshipSlots[back]))
            {
                counts[key, default: 0] += 1
            }
        }
        func passes(_ n: Int) -> Bool {
            let test = FilterNode.compare(
                .value(.integer(Int64(n))), op, .value(.integer(Int64(count))),
                caseInsensitive: false, diacriticInsensitive: false)
            return (try? test.evaluate(ArrayFilterValues(values: [], entity: binding.entity)))
                ?? false
        }
        // Objects no destination reaches have the count 0.
        if passes(0) { return .not(.identifierIn(Set(counts.filter { !passes($0.value) }.keys))) }
        return .identifierIn(Set(counts.filter { passes($0.value) }.keys))
    }

    /// The keys a stored relationship field holds: a to-one's key, or a list of links.
    private static func reachedKeys(_ value: AttributeValue) -> [UInt64] {
        if case .integer(let key) = value { return [UInt64(bitPattern: key)] }
        return LinkList.keys(value) ?? []
    }

    /// A comparison of the object's identifier with `other`, as a set of primary keys.
    private func identifiers(_ op: FilterOperator, _ other: FilterOperand, _ binding: EntityBinding)
        -> FilterNode?
    {
        let name = binding.entity.name
        switch (op, other) {
        case (.equal, .identifier(let id)), (.notEqual, .identifier(let id)):
            let keys: Set<UInt64> =
                id.flatMap { $0.entityName == name ? [$0.primaryKey] : nil } ?? []
            return op == .equal ? .identifierIn(keys) : .not(.identifierIn(keys))
        case (.in, .identifiers(let ids)):
            return .identifierIn(Set(ids.filter { $0.entityName == name }.map(\.primaryKey)))
        case (.in, .list(let values)):
            return .identifierIn(
                Set(
                    values.compactMap {
                        if case .integer(let k) = $0 { UInt64(bitPattern: k) } else { nil }
                    }))
        default:
            return nil
        }
    }

    /// Primary keys of objects of `entity` whose deletion is pending in this context.
    private func deletedKeys(of entity: String) -> Set<UInt64> {
        guard let binding = try? core.binding(named: entity) else { return [] }
        let entity32 = Int32(binding.index)
        var keys = Set<UInt64>()
        for e in table.deleted
        where table[e].state == .deleted && table[e].entity == entity32 {
            keys.insert(table[e].primaryKey)
        }
        return keys
    }

    /// The primary keys of the stored objects the predicate `test` accepts, evaluated on the
    /// objects of a context: this one (so related objects show its pending changes), or a
    /// fresh one when pending changes are left out. Objects of stored records that this
    /// context changed or deleted are left to the pending test. Objects it builds and that do
    /// not match are let go as the context prunes.
    private func storedMatches(_ plan: FetchPlan, _ test: (AnyObject) throws -> Bool) throws
        -> Set<UInt64>
    {
        let context = plan.includePendingChanges ? self : ModelContext(mainOf: core)
        let binding = plan.binding
        var skip = Set<UInt64>()
        if plan.includePendingChanges {
            let entity32 = Int32(binding.index)
            for e in table.changed
            where table[e].isChanged && table[e].entity == entity32 {
                skip.insert(table[e].primaryKey)
            }
            for e in table.deleted
            where table[e].state == .deleted
                && table[e].entity == entity32
            {
                skip.insert(table[e].primaryKey)
            }
        }
        var matched = Set<UInt64>()
        let generation = core.saveGeneration
        try wrapStoreErrors {
            try core.store.forEach(in: binding.keyspace) { key, value in
                guard let pk = Keyspaces.primaryKey(ofObjectKey: key), !skip.contains(pk) else {
                    return
                }
                let object: AnyObject
                if let known = context.registered(binding.index, pk) {
                    guard known.state == .persisted else { return }
                    object = known.object
                } else {
                    object = binding.makeObject()
                    let version = try binding.load(value, into: object, primaryKey: pk)
                    context.table.add(
                        object, binding, primaryKey: pk, state: .persisted, version: version,
                        generation: generation)
                }
                if try test(object) { matched.insert(pk) }
            }
        }
        return matched
    }
}
