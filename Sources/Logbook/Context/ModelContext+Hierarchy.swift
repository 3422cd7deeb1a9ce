import Foundation

extension ModelContext {
    /// The entities a fetch of `binding`'s reads: itself, then each sub-entity whose class is
    /// a subclass of `Model` (an entity without a class has no instances of it).
    func hierarchy<Model: PersistentModel>(of binding: EntityBinding, as model: Model.Type)
        -> [EntityBinding]
    {
        [binding]
            + core.descendants[binding.index].map { core.bindings[$0] }.filter {
                $0.layout.map { $0.modelType is Model.Type } ?? false
            }
    }

    /// The objects of `descriptor` over `binding`'s entity and its sub-entities, each an
    /// instance of its own class: every entity's matches, ordered by the descriptor's sorts
    /// (entity by entity, in key order, without any), then sliced.
    func fetchHierarchy<Model: PersistentModel>(
        _ descriptor: FetchDescriptor<Model>, of binding: EntityBinding
    ) throws -> [AnyObject] {
        var whole = descriptor
        whole.fetchOffset = nil
        let offset = max(descriptor.fetchOffset ?? 0, 0)
        whole.fetchLimit = descriptor.fetchLimit.map { $0 + offset }
        var objects: [AnyObject] = []
        for member in hierarchy(of: binding, as: Model.self) {
            objects += try fetchObjects(makePlan(whole, binding: member))
        }
        if !descriptor.sortBy.isEmpty {
            let sorts = descriptor.sortBy
            // Stable, so equal objects keep entity and key order.
            objects = objects.enumerated().sorted { a, b in
                for sort in sorts {
                    switch sort.compare(
                        unsafeDowncast(a.element, to: Model.self),
                        unsafeDowncast(b.element, to: Model.self))
                    {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return a.offset < b.offset
            }.map(\.element)
        }
        return Self.slice(objects, offset: offset, limit: descriptor.fetchLimit)
    }

    /// The entities a by-name fetch of `binding`'s reads: itself, then every sub-entity.
    func hierarchy(of binding: EntityBinding) -> [EntityBinding] {
        [binding] + core.descendants[binding.index].map { core.bindings[$0] }
    }

    /// The objects of `descriptor` over `binding`'s entity and all its sub-entities: every
    /// entity's matches, ordered by the descriptor's sorts (entity by entity, in key order,
    /// without any), then sliced.
    func fetchHierarchy(_ descriptor: EntityFetchDescriptor, of binding: EntityBinding) throws
        -> [AnyObject]
    {
        var whole = descriptor
        whole.fetchOffset = nil
        let offset = max(descriptor.fetchOffset ?? 0, 0)
        whole.fetchLimit = descriptor.fetchLimit.map { $0 + offset }
        var objects: [AnyObject] = []
        var keys: [[AttributeValue]] = []
        for member in hierarchy(of: binding) {
            let plan = try makePlan(whole, binding: member)
            for object in try fetchObjects(plan) {
                objects.append(object)
                keys.append(plan.sortKeys.map { member.read(object, $0.attribute) })
            }
        }
        if !descriptor.sortBy.isEmpty {
            let ascending = descriptor.sortBy.map(\.ascending)
            // Stable, so equal objects keep entity and key order.
            objects = objects.indices.sorted { a, b in
                for (k, up) in ascending.enumerated() {
                    switch AttributeValue.compare(keys[a][k], keys[b][k]) {
                    case .orderedAscending: return up
                    case .orderedDescending: return !up
                    case .orderedSame: continue
                    }
                }
                return a < b
            }.map { objects[$0] }
        }
        return Self.slice(objects, offset: offset, limit: descriptor.fetchLimit)
    }

    /// How many of `total` ordered matches a fetch from `offset`, at most `limit`, returns.
    static func sliceCount(_ total: Int, offset: Int?, limit: Int?) -> Int {
        let left = max(total - max(offset ?? 0, 0), 0)
        return limit.map { min(left, max($0, 0)) } ?? left
    }

    /// The number of objects ``fetchHierarchy(_:of:)`` would return, without building any.
    func countHierarchy<Model: PersistentModel>(
        _ descriptor: FetchDescriptor<Model>, of binding: EntityBinding
    ) throws -> Int {
        var whole = descriptor
        whole.fetchOffset = nil
        whole.fetchLimit = nil
        var total = 0
        for member in hierarchy(of: binding, as: Model.self) {
            var plan = try makePlan(whole, binding: member)
            plan.objectOrder = nil
            plan.sortKeys = []
            total += try count(plan).count
        }
        return Self.sliceCount(
            total, offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
    }
}
