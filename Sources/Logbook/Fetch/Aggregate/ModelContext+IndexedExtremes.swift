extension ModelContext {
    /// The minimum or maximum of the attribute `keyPath` reads over every object of `Model`,
    /// read from the end of an index the attribute leads, pending changes applied: how
    /// ``minimum(_:where:)`` and ``maximum(_:where:)`` answer without a predicate, with no
    /// aggregate plan, groups or rows (a few lookups and one index entry). `nil` when no index
    /// answers (the caller plans an aggregate); `.null` when no object has a value.
    func extremeFromIndex<Model: PersistentModel>(
        _ keyPath: AnyKeyPath, of model: Model.Type, _ operation: AggregateOperation
    ) -> AttributeValue? {
        guard let binding = try? core.binding(for: Model.self),
            let field = planCache.resolver(for: binding).attributeIndex(keyPath),
            field < binding.attributeCount
        else { return nil }
        let type = binding.stored.attributes[field].type
        guard IndexKey.decodesField(type),
            let i = core.indexes.definitions[binding.index].firstIndex(where: {
                $0.fields.first == field
            })
        else { return nil }
        let (skip, pending) = pendingEntries(FetchPlan(binding: binding))
        let found = core.indexes.withIndexes(of: binding.index) { indexes -> Accumulator? in
            guard let index = indexes?[i] else { return nil }
            var accumulator = Accumulator()
            let values = withUnsafeBytes(of: IndexKey.valueTag) { index.lowerBound($0) }
            if operation == .minimum {
                index.forEach(from: values, to: index.end) { entry in
                    Self.takeFirst(entry, type, skip, operation, &accumulator)
                }
            } else {
                index.forEachReversed(from: values, to: index.end) { entry in
                    Self.takeFirst(entry, type, skip, operation, &accumulator)
                }
            }
            return accumulator
        }
        guard var accumulator = found else { return nil }
        for e in pending {
            guard let object = table.objects[Int(e)] else { continue }
            accumulator.add(binding.read(object, field), operation)
        }
        return try? accumulator.result(operation, type: type)
    }
}
