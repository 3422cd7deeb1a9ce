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
        let end =
            descriptor.fetchLimit.map { min(objects.count, offset + max($0, 0)) } ?? objects.count
        return offset < end ? Array(objects[offset..<end]) : []
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
        let offset = max(descriptor.fetchOffset ?? 0, 0)
        let left = max(total - offset, 0)
        return descriptor.fetchLimit.map { min(left, max($0, 0)) } ?? left
    }
}
