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
        let (binding, primaryKeys) = try orderedKeys(descriptor)
        let size = max(batchSize, 1)
        var start = 0
        while start < primaryKeys.count {
            let end = min(start + size, primaryKeys.count)
            var batch = try primaryKeys[start..<end].map { try object(orDeleted: binding, $0) }
            for object in batch { try block(unsafeDowncast(object, to: Model.self)) }
            let entries = batch.compactMap { binding.entry(of: $0, in: table) }
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
        let (binding, primaryKeys) = try orderedKeys(descriptor)
        return FetchResultsCollection(
            context: self, binding: binding, primaryKeys: primaryKeys,
            batchSize: max(batchSize, 1))
    }

    /// The primary keys of `descriptor`'s matches, in its order.
    private func orderedKeys<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws
        -> (EntityBinding, [UInt64])
    {
        var plan = try makePlan(descriptor)
        if plan.objectOrder != nil {
            // Sort keys that are not attributes need the objects: build them all once.
            let objects = try fetchObjects(plan)
            return (
                plan.binding,
                objects.map {
                    // Invariant: fetched objects are registered in this context.
                    table[plan.binding.registration(of: $0)!.entry].primaryKey
                }
            )
        }
        if plan.sortKeys.isEmpty && plan.limit == nil && plan.offset == nil {
            // Identifier order, which the scan gives only when asked to keep records.
            plan.limit = Int.max
        }
        let result = try execute(plan, keepRecords: false)
        return (plan.binding, result.order.map { result.candidates[$0].primaryKey })
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
    private let binding: EntityBinding
    private let primaryKeys: [UInt64]
    private let batchSize: Int
    private let cache: BatchCache

    /// The batch last reached, held so its objects stay registered while it is used.
    private final class BatchCache {
        var start = -1
        var objects: [AnyObject] = []
    }

    init(context: ModelContext, binding: EntityBinding, primaryKeys: [UInt64], batchSize: Int) {
        self.context = context
        self.binding = binding
        self.primaryKeys = primaryKeys
        self.batchSize = batchSize
        cache = BatchCache()
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { primaryKeys.count }

    /// The object at `position`, building its batch if it is not the one last reached. A read
    /// error of the store (a damaged record) gives a deleted object holding default values.
    public subscript(position: Int) -> Model {
        let start = position - position % batchSize
        if cache.start != start {
            // The batch left behind: its objects the app does not hold are let go of.
            let left = cache.objects.compactMap { binding.entry(of: $0, in: context.table) }
            cache.objects = []
            context.table.release(left)
            let end = Swift.min(start + batchSize, primaryKeys.count)
            cache.objects = primaryKeys[start..<end].map { pk in
                (try? context.object(orDeleted: binding, pk))
                    ?? context.deletedPlaceholder(binding, pk)
            }
            cache.start = start
        }
        return unsafeDowncast(cache.objects[position - start], to: Model.self)
    }
}
