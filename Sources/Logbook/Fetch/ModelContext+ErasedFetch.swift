import Foundation

extension ModelContext {
    /// The objects of `descriptor` through ``fetchObjects(model:expression:variable:sorts:limit:offset:includePendingChanges:)``,
    /// its parts read here, in the caller's specialized code; `nil` for a shape that path
    /// does not plan (no predicate, attributes left out, or one it returns `nil` for).
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    @inlinable
    func erasedFetch<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws
        -> [AnyObject]?
    {
        // The predicate's parts, not a copy of it (a copy goes through its value witnesses).
        guard descriptor.propertiesToFetch.isEmpty,
            descriptor.relationshipKeyPathsForPrefetching.isEmpty,
            let (expression, variable) = descriptor.predicate.map({
                ($0.expression, $0.variable.key)
            })
        else { return nil }
        var sorts: [ErasedSort] = []
        if !descriptor.sortBy.isEmpty {
            sorts.reserveCapacity(descriptor.sortBy.count)
            for sort in descriptor.sortBy {
                sorts.append(
                    (
                        keyPath: sort.keyPath, forward: sort.order == .forward,
                        comparator: sort.stringComparator
                    ))
            }
        }
        return try fetchObjects(
            model: Model.self, expression: expression, variable: variable,
            sorts: sorts, limit: descriptor.fetchLimit, offset: descriptor.fetchOffset,
            includePendingChanges: descriptor.includePendingChanges)
    }

    /// A sort descriptor's parts, read where its model type is known.
    @usableFromInline
    typealias ErasedSort = (
        keyPath: AnyKeyPath?, forward: Bool, comparator: String.StandardComparator?
    )

    /// The objects of a fetch given by its parts, the model type erased: what ``fetch(_:)-(FetchDescriptor<Model>)``
    /// calls for the common shape, a predicate made of attribute comparisons (with sorts on
    /// attributes, a limit, an offset), so that planning runs in non-generic code and looks
    /// up no generic metadata for the descriptor's types. `nil` when the fetch is another
    /// shape, which the caller then plans from the descriptor itself, with the same result.
    ///
    /// The plan is the one ``makePlan(_:)`` makes for such a descriptor: the same binding,
    /// filter (the direct translation of the predicate, with this call's constants), sort
    /// keys, slice and pending-changes setting.
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    @usableFromInline
    func fetchObjects(
        model: any PersistentModel.Type, expression: any StandardPredicateExpression<Bool>,
        variable: PredicateExpressions.VariableID, sorts: [ErasedSort], limit: Int?,
        offset: Int?, includePendingChanges: Bool
    ) throws -> [AnyObject]? {
        let binding = try core.binding(for: model)
        // A fetch of a superentity reads its sub-entities too: the descriptor's way.
        guard core.descendants[binding.index].isEmpty else { return nil }
        let resolver = planCache.resolver(for: binding)
        guard let direct = planCache.directType(of: expression) else { return nil }
        let translation = DirectTranslation(resolver: resolver, variable: variable)
        func open<E: StandardPredicateExpression<Bool>>(_ e: E) -> FilterNode? {
            direct.directNode(of: e, translation)
        }
        guard let node = open(expression) else { return nil }
        var plan = FetchPlan(binding: binding)
        plan.matcher = .filter(node)
        plan.limit = limit
        plan.offset = offset
        plan.includePendingChanges = includePendingChanges
        if !sorts.isEmpty {
            var keys: [FetchPlan.SortKey] = []
            keys.reserveCapacity(sorts.count)
            for sort in sorts {
                // A sort on something other than an attribute orders objects: not this path.
                guard let keyPath = sort.keyPath, let index = resolver.attributeIndex(keyPath)
                else { return nil }
                keys.append(
                    FetchPlan.SortKey(
                        attribute: index, ascending: sort.forward,
                        stringComparator: sort.comparator))
            }
            plan.sortKeys = keys
        }
        return try fetchObjects(plan)
    }
}
