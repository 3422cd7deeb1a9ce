import LogStore

extension ModelContext {
    /// The primary keys of the objects `descriptor`'s predicate matches, ascending, read from
    /// the indexes alone, with how they were found; `nil` when the indexes cannot answer the
    /// predicate exactly (then a fetch reads records), or the context has unsaved changes.
    /// Its sort, limit and offset are not applied.
    ///
    /// What a count answers from an index (``fetchCount(_:)-(EntityFetchDescriptor)``), as keys:
    /// for tools that page through a large result a slice at a time, and read only the records
    /// of the slice they show (`logbook studio`).
    /// - Throws: as ``fetch(entity:where:_:sortBy:ascending:)``.
    /// - Complexity: O(index entries visited); no record is read.
    package func primaryKeysFromIndexes(_ descriptor: EntityFetchDescriptor) throws
        -> (keys: [UInt64], explanation: FetchExplanation)?
    {
        guard descriptor.predicate != nil, !hasChanges else { return nil }
        var plan = try resolved(try makePlan(descriptor))
        plan.sortKeys = []
        let access = accessPlan(plan)
        guard access.exact && access.access.isIndex else { return nil }
        var explanation = FetchExplanation()
        explanation.note(access, definitions: core.indexes.definitions[plan.binding.index])
        var keys: [UInt64]
        if case .identifiers(let named) = access.access {
            let keyspace = plan.binding.keyspace
            keys = try wrapStoreErrors {
                try named.filter { try core.store.contains(Keyspaces.objectKey($0), in: keyspace) }
            }
        } else {
            let (found, visited) = core.indexes.primaryKeys(
                access.access, entity: plan.binding.index)
            keys = found
            explanation.entriesVisited = visited
        }
        if !keys.isEmpty && zip(keys, keys.dropFirst()).contains(where: { $0 >= $1 }) {
            keys = Array(Set(keys)).sorted()
        }
        explanation.candidates = keys.count
        explanation.results = keys.count
        return (keys, explanation)
    }
}
