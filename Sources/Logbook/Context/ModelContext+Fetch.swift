import Foundation

extension ModelContext {
    /// The objects of `descriptor`, ordered and sliced. Objects already registered in this
    /// context are returned (uniquing), brought up to the state the fetch read if another
    /// context saved them since (their unsaved edits here kept); the others are built and
    /// registered. The result is one consistent state of the store, whatever other contexts
    /// save meanwhile.
    ///
    /// Only the entity's records are read, each decoded once. A predicate made of attribute
    /// comparisons (`==`, `!=`, `<`, …, `&&`, `||`, `!`) is evaluated on decoded values; other
    /// predicates run on one reused scratch object, and objects are built only for matches.
    /// - Throws: ``LogbookError/unknownEntity(_:)`` for a class outside the container's schema,
    ///   errors the predicate throws, ``LogbookError/corruptRecord(entity:key:reason:)``,
    ///   ``LogbookError/store(_:)``.
    /// - Complexity: O(records of the entity) plus O(m log m) to sort m matches.
    @inlinable
    public func fetch<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws
        -> [Model]
    {
        // Inlined so reading the descriptor's parts for the common shape is specialized in the
        // app (no generic witness calls).
        ObjectArray.reinterpret(
            try erasedFetch(descriptor) ?? fetchAnyObjects(descriptor), as: Model.self)
    }

    /// The objects of `descriptor`, each an instance of `Model`.
    @usableFromInline
    func fetchAnyObjects<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws
        -> [AnyObject]
    {
        let binding = try core.binding(for: Model.self)
        let objects =
            core.descendants[binding.index].isEmpty
            ? try fetchObjects(makePlan(descriptor, binding: binding))
            : try fetchHierarchy(descriptor, of: binding)
        for keyPath in descriptor.relationshipKeyPathsForPrefetching {
            for object in objects { _ = unsafeDowncast(object, to: Model.self)[keyPath: keyPath] }
        }
        return objects
    }

    /// The number of objects `descriptor` would fetch, without building any.
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    public func fetchCount<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws
        -> Int
    {
        let binding = try core.binding(for: Model.self)
        guard core.descendants[binding.index].isEmpty else {
            return try countHierarchy(descriptor, of: binding)
        }
        var plan = try makePlan(descriptor, binding: binding)
        plan.objectOrder = nil
        plan.sortKeys = []
        return try count(plan).count
    }

    /// The identifiers of the objects `descriptor` would fetch, in order, without building them
    /// (unless a sort key is not an attribute, or `Model` has subclasses in the schema).
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    public func fetchIdentifiers<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>)
        throws
        -> [PersistentIdentifier]
    {
        let binding = try core.binding(for: Model.self)
        guard core.descendants[binding.index].isEmpty else {
            return try fetchHierarchy(descriptor, of: binding).compactMap {
                ($0 as? any ModelObject)?.persistentModelID
            }
        }
        let plan = try makePlan(descriptor, binding: binding)
        let name = plan.binding.entity.name
        if plan.objectOrder != nil {
            return try fetchObjects(plan).compactMap { ($0 as? any ModelObject)?.persistentModelID }
        }
        return try execute(plan, keepRecords: false).ordered.map {
            PersistentIdentifier(entityName: name, primaryKey: $0.primaryKey)
        }
    }

    /// The object with identifier `id`: the registered instance if any, else read from the
    /// store and registered. `nil` if there is no such object (or its deletion is pending here).
    /// - Throws: ``LogbookError/entityMismatch(expected:found:)`` if `id` is of another entity
    ///   than `Model`'s or a subclass's, ``LogbookError/unknownEntity(_:)``,
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    /// - Complexity: one hash lookup, or one store read and decode.
    @inlinable
    public func model<Model: PersistentModel>(
        for id: PersistentIdentifier, as type: Model.Type = Model.self
    ) throws
        -> Model?
    {
        try objectReference(for: id, as: Model.self).map { unsafeDowncast($0, to: Model.self) }
    }

    /// The object with identifier `id`, whatever its class — SwiftData's `model(for:)`; cast it
    /// (`as? Employee`) or use ``model(for:as:)``. `nil` if there is no such object (or its
    /// deletion is pending here).
    /// - Throws: ``LogbookError/unknownEntity(_:)``, ``LogbookError/corruptRecord(entity:key:reason:)``,
    ///   ``LogbookError/store(_:)``.
    public func model(for id: PersistentIdentifier) throws -> (any ModelObject)? {
        try object(for: id)
    }

    /// Whether `type` is `base` or one of its subclasses.
    static func isClass(_ type: AnyClass, orSubclassOf base: AnyClass) -> Bool {
        var next: AnyClass? = type
        while let c = next {
            if ObjectIdentifier(c) == ObjectIdentifier(base) { return true }
            next = _getSuperclass(c)
        }
        return false
    }

    /// The object with identifier `id`, checked to be an instance of `type` (or a subclass).
    @usableFromInline
    func objectReference(for id: PersistentIdentifier, as type: any PersistentModel.Type) throws
        -> AnyObject?
    {
        let binding = try binding(named: id.entityName)
        guard let layout = binding.layout, Self.isClass(layout.modelType, orSubclassOf: type) else {
            throw LogbookError.entityMismatch(expected: type.entityName, found: id.entityName)
        }
        return try object(binding, id.primaryKey)
    }

    /// The object with identifier `id`, whatever its entity (a ``ManagedObject`` for entities
    /// without a class). `nil` if there is none.
    /// - Throws: ``LogbookError/unknownEntity(_:)``, ``LogbookError/corruptRecord(entity:key:reason:)``,
    ///   ``LogbookError/store(_:)``.
    public func object(for id: PersistentIdentifier) throws -> (any ModelObject)? {
        try objectReference(for: id) as? any ModelObject
    }

    func objectReference(for id: PersistentIdentifier) throws -> AnyObject? {
        try object(binding(named: id.entityName), id.primaryKey)
    }

    /// The binding of the entity `name`, remembering the last one asked for.
    @inline(__always)
    private func binding(named name: String) throws -> EntityBinding {
        if let last = lastLookupBinding, last.entity.name == name { return last }
        let binding = try core.binding(named: name)
        lastLookupBinding = binding
        return binding
    }

    /// The live object `pk` of `binding`: the registered instance, else read from the store and
    /// registered; `nil` if there is none or its deletion is pending here.
    @inline(__always)
    func object(_ binding: EntityBinding, _ pk: UInt64) throws -> AnyObject? {
        if let known = registered(binding.index, pk) {
            return known.state == .deleted ? nil : known.object
        }
        return try load(binding, pk)
    }

    /// Reads object `pk` of `binding` from the store, decoding it in place from the log, and
    /// registers it; `nil` if the store has no such object.
    func load(_ binding: EntityBinding, _ pk: UInt64) throws -> AnyObject? {
        // Key 0 is never handed out (and marks an empty registry slot).
        guard pk != 0 else { return nil }
        let generation = core.saveGeneration
        let store = core.store
        // Making and registering the object takes about as long as the record takes to come
        // from memory: start loading it, do that work, then decode into the registered object
        // (which is unregistered again if the record is missing or cannot be read).
        Keyspaces.withObjectKey(pk) { store.prefetchRecord(forKey: $0, in: binding.keyspace) }
        let object = binding.makeObject()
        let e = table.add(
            object, binding, primaryKey: pk, state: .persisted, version: 0, generation: generation)
        var version: UInt64 = 0
        let found: Bool
        do {
            // The engine's non-generic read: no generic metadata is looked up per object.
            found = try Keyspaces.withObjectKey(pk) { key in
                try wrapStoreErrors {
                    try store.readValue(forKey: key, in: binding.keyspace) { value in
                        version = try binding.load(value, into: object, primaryKey: pk)
                    }
                }
            }
        } catch {
            table.retract(e)
            throw error
        }
        guard found else {
            table.retract(e)
            return nil
        }
        table[e].version = version
        return object
    }

    /// Reads the attributes a fetch with ``FetchDescriptor/propertiesToFetch`` left out of
    /// `model` now, as its first read of one would (nothing happens for an object that has
    /// them all, or is not registered here).
    /// - Throws: ``LogbookError/objectNotFound(_:)`` if the object was deleted from the store
    ///   since it was fetched (it is then deleted: ``ModelObject/isDeleted``),
    ///   ``LogbookError/store(_:)``.
    public func fulfillFault(of model: some ModelObject) throws {
        guard let registration = model.registered, registration.table === table else { return }
        try table.fulfillFault(registration.entry, model)
    }

    /// The instance registered in this context for `id`, without reading the store.
    public func registeredModel<Model: PersistentModel>(
        for id: PersistentIdentifier, as type: Model.Type = Model.self
    )
        -> Model?
    {
        guard let binding = try? core.binding(named: id.entityName) else { return nil }
        return registered(binding.index, id.primaryKey)?.object as? Model
    }

    /// The plan of `descriptor` over the entity of `binding` (`Model`'s, or one of its
    /// sub-entities': `Model`'s key paths reach a subclass's inherited fields).
    func makePlan<Model: PersistentModel>(
        _ descriptor: FetchDescriptor<Model>, binding: EntityBinding? = nil
    ) throws -> FetchPlan {
        let binding = try binding ?? core.binding(for: Model.self)
        var plan = FetchPlan(binding: binding)
        plan.limit = descriptor.fetchLimit
        plan.offset = descriptor.fetchOffset
        plan.includePendingChanges = descriptor.includePendingChanges
        let resolver = planCache.resolver(for: binding)
        if !descriptor.propertiesToFetch.isEmpty {
            // Attributes named, every to-one key, and every field from 63 on (one bit).
            var fields = ~binding.attributeBits | fieldBit(63)
            for keyPath in descriptor.propertiesToFetch {
                if let i = resolver.attributeIndex(keyPath) { fields |= fieldBit(i) }
            }
            plan.fetchedFields = fields
        }
        if let predicate = descriptor.predicate {
            let core = self.core
            if let node = PredicateTranslator.translate(
                predicate, resolver: resolver,
                // A destination with sub-entities is not one entity's records: such a
                // predicate is evaluated on objects.
                binding: {
                    guard let b = try? core.binding(named: $0), core.descendants[b.index].isEmpty
                    else { return nil }
                    return b
                },
                cache: planCache)
            {
                plan.matcher = .filter(node)
            } else {
                let test: (AnyObject) throws -> Bool = {
                    try predicate.evaluate(unsafeDowncast($0, to: Model.self))
                }
                plan.matcher =
                    PredicateInspection.readsOnlyAttributes(predicate, resolver: resolver)
                    ? .object(test) : .registeredObject(test)
            }
        }
        var keys: [FetchPlan.SortKey] = []
        for sort in descriptor.sortBy {
            guard let keyPath = sort.keyPath, let index = resolver.attributeIndex(keyPath) else {
                let sorts = descriptor.sortBy
                plan.objectOrder = { a, b in
                    for sort in sorts {
                        let r = sort.compare(
                            unsafeDowncast(a, to: Model.self), unsafeDowncast(b, to: Model.self))
                        if r != .orderedSame { return r }
                    }
                    return .orderedSame
                }
                keys = []
                break
            }
            keys.append(
                FetchPlan.SortKey(
                    attribute: index, ascending: sort.order == .forward,
                    stringComparator: sort.stringComparator))
        }
        plan.sortKeys = keys
        return plan
    }
}
