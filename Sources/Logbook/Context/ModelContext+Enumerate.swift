extension ModelContext {
    /// Calls `block` with each object of `descriptor`, in its order, building objects a batch
    /// at a time — SwiftData's `enumerate(_:batchSize:…)`. The context holds no more than one
    /// batch of objects for it: after each batch it lets go of the objects that `block` did not
    /// keep and did not change (and that were not registered with unsaved changes before), so
    /// memory does not grow with the result. Objects `block` keeps or changes stay registered.
    ///
    /// The matches (their identifiers and sort keys) are found first, in one consistent read
    /// of the store, with the context's pending changes taking part as in ``fetch(_:)-(FetchDescriptor<Model>)``; each
    /// object is then read as its batch comes. An object deleted in the store meanwhile is
    /// passed as a deleted object (``ModelObject/isDeleted``) holding its default values.
    /// Without a sort descriptor the order is identifier order.
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``, and what `block` throws (which stops the enumeration).
    /// - Complexity: one pass over the entity's records, then one store read per object.
    ///   Memory: 8 bytes per match for its identifier, plus one batch of objects (all of them
    ///   at once when a sort descriptor's key path is not an attribute, to sort by).
    public func enumerate<Model: PersistentModel>(
        _ descriptor: FetchDescriptor<Model>, batchSize: Int = 5_000,
        _ block: (Model) throws -> Void
    ) throws {
        let matches = try orderedMatches(descriptor)
        let size = max(batchSize, 1)
        var start = 0
        while start < matches.count {
            let end = min(start + size, matches.count)
            var batch = try (start..<end).map { try object(orDeleted: matches, at: $0) }
            for (_, object) in batch { try block(unsafeDowncast(object, to: Model.self)) }
            let entries = batch.compactMap { $0.binding.entry(of: $0.object, in: table) }
            batch = []
            table.release(entries)
            start = end
        }
    }

    /// The objects of `descriptor` as a collection that builds them a batch at a time when
    /// they are first reached — SwiftData's `fetch(_:batchSize:)`. It holds the identifiers
    /// of the matches (found as ``enumerate(_:batchSize:_:)`` finds them) and the objects of
    /// the batch last reached.
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    public func fetch<Model: PersistentModel>(
        _ descriptor: FetchDescriptor<Model>, batchSize: Int
    ) throws -> FetchResultsCollection<Model> {
        FetchResultsCollection(
            context: self, matches: try orderedMatches(descriptor), batchSize: max(batchSize, 1))
    }

    /// The matches of `descriptor`, in its order: those of `Model`'s entity and of its
    /// sub-entities whose classes inherit from `Model`, as ``fetch(_:)-(FetchDescriptor<Model>)``
    /// orders them.
    private func orderedMatches<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>)
        throws -> OrderedMatches
    {
        let binding = try core.binding(for: Model.self)
        guard !core.descendants[binding.index].isEmpty else {
            return try orderedMatches(makePlan(descriptor, binding: binding))
        }
        var matches = OrderedMatches()
        if descriptor.sortBy.isEmpty {
            // Entity by entity, each in key order, then sliced: the typed fetch's order.
            var whole = descriptor
            whole.fetchOffset = nil
            whole.fetchLimit = nil
            for member in hierarchy(of: binding, as: Model.self) {
                let part = try orderedMatches(makePlan(whole, binding: member))
                for pk in part.primaryKeys { matches.append(member, pk) }
            }
            return matches.sliced(offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
        }
        // Sorts over several entities compare objects: build them all once.
        for object in try fetchHierarchy(descriptor, of: binding) {
            // Invariant: fetched objects are registered models.
            let id = unsafeDowncast(object, to: Model.self).persistentModelID
            matches.append(try core.binding(named: id.entityName), id.primaryKey)
        }
        return matches
    }

    /// The matches of `plan` (one entity), in its order.
    private func orderedMatches(_ plan: FetchPlan) throws -> OrderedMatches {
        var plan = plan
        var matches = OrderedMatches()
        if plan.objectOrder != nil {
            // Sort keys that are not attributes need the objects: build them all once.
            for object in try fetchObjects(plan) {
                // Invariant: fetched objects are registered in this context.
                matches.append(
                    plan.binding,
                    table[plan.binding.registration(of: object)!.entry].primaryKey)
            }
            return matches
        }
        if plan.sortKeys.isEmpty && plan.limit == nil && plan.offset == nil {
            // Identifier order, which the scan gives only when asked to keep records.
            plan.limit = Int.max
        }
        let result = try execute(plan, keepRecords: false)
        matches.primaryKeys = result.order.map { result.candidates[$0].primaryKey }
        matches.runs = [(0, plan.binding)]
        return matches
    }

    /// The object at `position` of `matches`: live (registered or read from the store), or, if
    /// it no longer exists, a deleted object with default values.
    func object(orDeleted matches: OrderedMatches, at position: Int) throws
        -> (binding: EntityBinding, object: AnyObject)
    {
        let binding = matches.binding(at: position)
        return (binding, try object(orDeleted: binding, matches.primaryKeys[position]))
    }

    /// The object `pk` of `binding`: live (registered or read from the store), or, if it no
    /// longer exists, a deleted object with default values.
    func object(orDeleted binding: EntityBinding, _ pk: UInt64) throws -> AnyObject {
        let e = table.lookup(binding.index, pk)
        if e >= 0, let object = table.objects[Int(e)] { return object }
        return try load(binding, pk) ?? deletedPlaceholder(binding, pk)
    }

    /// A registered, deleted object `pk` of `binding` with default values: what a batched
    /// result gives for an object that no longer exists.
    func deletedPlaceholder(_ binding: EntityBinding, _ pk: UInt64) -> AnyObject {
        let object = binding.makeObject()
        let e = table.add(
            object, binding, primaryKey: pk, state: .persisted, version: 0, generation: 0)
        table.markGone(e)
        return object
    }
}

/// The result of ``ModelContext/fetch(_:batchSize:)``: the matches in order, built a batch at a
/// time when first reached.
///
/// Not thread-safe: use it on its context's thread, while the context lives.
public struct FetchResultsCollection<Model: PersistentModel>: RandomAccessCollection {
    private let context: ModelContext
    private let matches: OrderedMatches
    private let batchSize: Int
    private let cache: BatchCache

    /// The batch last reached, held so its objects stay registered while it is used.
    private final class BatchCache {
        var start = -1
        var objects: [(binding: EntityBinding, object: AnyObject)] = []
    }

    init(context: ModelContext, matches: OrderedMatches, batchSize: Int) {
        self.context = context
        self.matches = matches
        self.batchSize = batchSize
        cache = BatchCache()
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { matches.count }

    /// The object at `position`, building its batch if it is not the one last reached. A read
    /// error of the store (a damaged record) gives a deleted object holding default values.
    public subscript(position: Int) -> Model {
        let start = position - position % batchSize
        if cache.start != start {
            // The batch left behind: its objects the app does not hold are let go of.
            let left = cache.objects.compactMap {
                $0.binding.entry(of: $0.object, in: context.table)
            }
            cache.objects = []
            context.table.release(left)
            let end = Swift.min(start + batchSize, matches.count)
            cache.objects = (start..<end).map { i in
                let binding = matches.binding(at: i)
                let pk = matches.primaryKeys[i]
                return (
                    binding,
                    (try? context.object(orDeleted: binding, pk))
                        ?? context.deletedPlaceholder(binding, pk)
                )
            }
            cache.start = start
        }
        return unsafeDowncast(cache.objects[position - start].object, to: Model.self)
    }
}
