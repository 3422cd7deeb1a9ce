import LogStore

extension ModelContext {
    /// The result of a fetch whose predicate is `attribute == constant` on an attribute with a
    /// unique index of its own (one index search and one record read), or
    /// `persistentModelID == id` (one record read): no planning, no sort or slice step, as
    /// there is at most one object. `nil` for another shape, or when something only the
    /// general path answers is involved: pending changes in this context, a limit of 0 or an
    /// offset, attributes left out, the entity's indexes unavailable, a temporary identifier,
    /// more than one entry for the value (a store whose constraint is not kept).
    ///
    /// Called before the plan is resolved (``resolved(_:)``): resolving leaves an attribute
    /// compared with a constant as it is, and makes `persistentModelID == id` a set of one
    /// primary key, which is what this reads.
    func uniqueLookup(_ plan: FetchPlan, explaining: Bool) throws -> (
        objects: [AnyObject], explanation: FetchExplanation
    )? {
        guard case .filter(let node) = plan.matcher, plan.objectOrder == nil,
            plan.fetchedFields == nil, plan.offset ?? 0 == 0, plan.limit ?? 1 > 0,
            !plan.includePendingChanges || !table.hasPendingChanges
        else { return nil }
        let field: Int
        let value: AttributeValue
        switch node {
        case .compare(.attribute(let f), .equal, .value(let v), false, false),
            .compare(.value(let v), .equal, .attribute(let f), false, false):
            (field, value) = (f, v)
        case .compare(.primaryKey, .equal, .identifier(let id), _, _),
            .compare(.identifier(let id), .equal, .primaryKey, _, _):
            return try identifierLookup(plan, id, explaining: explaining)
        default:
            return nil
        }
        let binding = plan.binding
        let definitions = core.indexes.definitions[binding.index]
        // An attribute, not a to-one key (which resolving may rewrite).
        // The key is encoded into the context's reused buffer (no allocation a lookup).
        planCache.keyBytes.removeAll(keepingCapacity: true)
        guard !value.isNull, field < binding.entity.attributes.count,
            let d = definitions.firstIndex(where: { $0.isUnique && $0.fields == [field] }),
            ColumnConstraints.encode(
                value, as: definitions[d].types[0], appendingTo: &planCache.keyBytes)
        else { return nil }
        let cache = planCache
        // The entry and the record from one state, as every index access reads them.
        let probe = try core.indexes.withView(
            of: binding.index, keyspace: binding.keyspace, in: core.store
        ) { indexes, view -> (found: OrderedIndex.Lookup, view: LogStore.KeyspaceView) in
            (indexes.map { cache.keyBytes.withUnsafeBytes($0[d].onlyEntry(of:)) } ?? .several, view)
        }
        var explanation = FetchExplanation()
        if explaining {
            explanation.access = .index
            explanation.indexes = [definitions[d].name]
        }
        switch probe.found {
        case .several: return nil
        case .none: return ([], explanation)
        case .one(let pk):
            explanation.entriesVisited = 1
            return try read(pk, binding, probe.view, explanation)
        }
    }

    /// A fetch whose predicate is `persistentModelID == id`: one record read.
    private func identifierLookup(
        _ plan: FetchPlan, _ id: PersistentIdentifier?, explaining: Bool
    ) throws -> (objects: [AnyObject], explanation: FetchExplanation)? {
        let binding = plan.binding
        var explanation = FetchExplanation()
        if explaining { explanation.access = .identifiers }
        // An object of another entity, or none: nothing matches. A temporary identifier is
        // left to the general path.
        guard let id else { return ([], explanation) }
        guard !id.isTemporary else { return nil }
        guard id.entityName == binding.entity.name else { return ([], explanation) }
        let view = try wrapStoreErrors { try core.store.view(of: binding.keyspace) }
        return try read(id.primaryKey, binding, view, explanation)
    }

    /// Object `pk` of `binding` read through `view`, as a fetch returns it; no result if the
    /// view has no such record.
    private func read(
        _ pk: UInt64, _ binding: EntityBinding, _ view: LogStore.KeyspaceView,
        _ explanation: FetchExplanation
    ) throws -> (objects: [AnyObject], explanation: FetchExplanation) {
        var explanation = explanation
        explanation.candidates = 1
        let generation = core.saveGeneration
        let object = try Keyspaces.withObjectKey(pk) { recordKey in
            try view.withValue(forKey: recordKey) { record in
                // One object: registered at once (deferring costs a list of one, made and
                // emptied by the next look-up).
                try fetchedObject(record, pk, binding, generation: generation, deferIndexing: false)
            }
        }
        guard let object else { return ([], explanation) }
        explanation.recordsRead = 1
        explanation.results = 1
        return ([object.object], explanation)
    }
}

extension OrderedIndex {
    /// What an index holds under one value.
    enum Lookup {
        case none
        case one(primaryKey: UInt64)
        case several
    }

    /// The primary key of the one entry whose value bytes are `value` (a whole entry's value
    /// part: every field encoded), or whether there is none or more than one.
    func onlyEntry(of value: UnsafeRawBufferPointer) -> Lookup {
        var found = Lookup.none
        forEach(from: lowerBound(value), to: end) { entry in
            guard entry.count == value.count + 8, IndexBytes.hasPrefix(entry, value) else {
                return false
            }
            if case .one = found {
                found = .several
                return false
            }
            found = .one(primaryKey: IndexKey.primaryKey(entry))
            return true
        }
        return found
    }
}
