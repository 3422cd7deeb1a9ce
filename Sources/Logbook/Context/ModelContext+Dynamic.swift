extension ModelContext {
    /// Inserts a new object of `entity` with `values` by attribute name — the seeds'
    /// `insertObjectWithEntity:parameter:`. Unset attributes take their defaults. For an entity
    /// with a model class the object is an instance of that class; else a ``ManagedObject``.
    /// - Throws: ``LogbookError/unknownEntity(_:)``, ``LogbookError/unknownAttribute(entity:attribute:)``,
    ///   ``LogbookError/typeMismatch(entity:attribute:expected:found:)`` (then nothing is inserted).
    @discardableResult
    public func insert(entity: String, values: [String: Any?] = [:]) throws -> any ModelObject {
        try insert(entity: entity) { object in
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try object.setValue(value, forKey: key)
            }
        }
    }

    /// Inserts a new object of `entity` and lets `configure` set its values — the seeds'
    /// `insertObjectWithEntity:completion:`. If `configure` throws, nothing is inserted.
    /// - Throws: ``LogbookError/unknownEntity(_:)`` and whatever `configure` throws.
    @discardableResult
    public func insert(entity: String, _ configure: (any ModelObject) throws -> Void) throws
        -> any ModelObject
    {
        let binding = try core.binding(named: entity)
        let object = binding.makeObject()
        register(object, binding: binding)
        guard let model = object as? any ModelObject else {
            throw LogbookError.invalidSchema(
                "the class of entity \(entity) does not conform to PersistentModel")
        }
        do {
            try configure(model)
        } catch {
            delete(model)
            throw error
        }
        return model
    }

    /// Objects of `entity` matching a string predicate, sorted by one attribute — the seeds'
    /// `queryWithEntity:predicate:sortKey:ascending:`.
    ///
    /// ```swift
    /// let rich = try context.fetch(entity: "Employee", where: "salary > %@", 5, sortBy: "name")
    /// ```
    /// - Throws: ``LogbookError/predicateSyntax(message:line:column:)``,
    ///   ``LogbookError/unknownEntity(_:)``, ``LogbookError/unknownAttribute(entity:attribute:)``,
    ///   ``LogbookError/unsupportedPredicate(_:)``, ``LogbookError/store(_:)``.
    public func fetch(
        entity: String, where format: String? = nil, _ arguments: Any?...,
        sortBy key: String? = nil,
        ascending: Bool = true
    ) throws -> [any ModelObject] {
        let predicate = try format.map { try StringPredicate(format: $0, arguments: arguments) }
        return try fetch(
            EntityFetchDescriptor(
                entityName: entity, predicate: predicate,
                sortBy: key.map { [($0, ascending)] } ?? []))
    }

    /// Objects of an ``EntityFetchDescriptor``: of its entity and of every sub-entity, each
    /// object of its own entity (and class, where the entity has one).
    /// - Throws: as ``fetch(entity:where:_:sortBy:ascending:)``.
    public func fetch(_ descriptor: EntityFetchDescriptor) throws -> [any ModelObject] {
        let binding = try core.binding(named: descriptor.entityName)
        let objects =
            core.descendants[binding.index].isEmpty
            ? try fetchObjects(makePlan(descriptor, binding: binding))
            : try fetchHierarchy(descriptor, of: binding)
        return objects.compactMap { $0 as? any ModelObject }
    }

    /// How many objects an ``EntityFetchDescriptor`` would fetch, without building them.
    /// - Throws: as ``fetch(entity:where:_:sortBy:ascending:)``.
    public func fetchCount(_ descriptor: EntityFetchDescriptor) throws -> Int {
        let binding = try core.binding(named: descriptor.entityName)
        var total = 0
        var whole = descriptor
        whole.fetchOffset = nil
        whole.fetchLimit = nil
        for member in hierarchy(of: binding) {
            var plan = try makePlan(whole, binding: member)
            plan.sortKeys = []
            total += try count(plan).count
        }
        return Self.sliceCount(total, offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
    }

    /// The identifiers an ``EntityFetchDescriptor`` would fetch, in order.
    /// - Throws: as ``fetch(entity:where:_:sortBy:ascending:)``.
    public func fetchIdentifiers(_ descriptor: EntityFetchDescriptor) throws
        -> [PersistentIdentifier]
    {
        let binding = try core.binding(named: descriptor.entityName)
        guard core.descendants[binding.index].isEmpty else {
            return try fetchHierarchy(descriptor, of: binding).compactMap {
                ($0 as? any ModelObject)?.persistentModelID
            }
        }
        return try execute(makePlan(descriptor, binding: binding), keepRecords: false).ordered.map {
            PersistentIdentifier(entityName: descriptor.entityName, primaryKey: $0.primaryKey)
        }
    }

    func makePlan(_ descriptor: EntityFetchDescriptor) throws -> FetchPlan {
        try makePlan(descriptor, binding: core.binding(named: descriptor.entityName))
    }

    /// The plan of `descriptor` over `binding`'s entity (its own, or one of its sub-entities,
    /// which have its attributes by the same names).
    func makePlan(_ descriptor: EntityFetchDescriptor, binding: EntityBinding) throws -> FetchPlan {
        var plan = FetchPlan(binding: binding)
        if let predicate = descriptor.predicate {
            plan.matcher = .filter(try predicate.bound(to: binding.entity, schema: core.schema))
        }
        plan.sortKeys = try descriptor.sortBy.map { key, ascending in
            guard let i = binding.entity.attributeIndex(key) else {
                throw LogbookError.unknownAttribute(entity: binding.entity.name, attribute: key)
            }
            return FetchPlan.SortKey(attribute: i, ascending: ascending, stringComparator: nil)
        }
        plan.limit = descriptor.fetchLimit
        plan.offset = descriptor.fetchOffset
        plan.includePendingChanges = descriptor.includePendingChanges
        return plan
    }
}
