import LogStore

extension ModelContext {
    /// The groups of an aggregate the indexes answer without reading a record, or `nil` when
    /// they cannot:
    ///
    /// - no group keys, and only the object count: as ``fetchCount(_:)-(FetchDescriptor<Model>)``
    ///   counts (through an index where the predicate allows);
    /// - no group keys and no predicate, with counts, minimums and maximums of attributes that
    ///   lead an index: the index's ends (skipping objects pending changes hide, then adding
    ///   pending objects), and its entries that are not `nil`;
    /// - one group key that leads an index, no predicate and no pending change, with counts,
    ///   minimums and maximums of that key: one count of the index's entries per value;
    /// - group keys that lead an index holding every function's attribute too (SQL's covering
    ///   index), no predicate and no pending change: one pass over its entries.
    func groupsFromIndexes(_ plan: AggregatePlan) throws -> AggregateGroups? {
        let functions = plan.functions.count
        if plan.groups.isEmpty && plan.functions.isEmpty {
            var groups = AggregateGroups()
            let g = groups.group([], functions: 0) { [] }
            if case .all = plan.fetch.matcher {
                groups.counts[g] = try countOfAll(plan.fetch)
            } else {
                let (count, explanation) = try count(plan.fetch)
                groups.counts[g] = count
                groups.recordsRead = explanation.recordsRead
            }
            return groups
        }
        guard case .all = plan.fetch.matcher else { return nil }
        let attributes = plan.binding.stored.attributes
        let involved = plan.groups.map(\.storedField) + plan.functions.map(\.field)
        guard involved.allSatisfy({ IndexKey.decodesField(attributes[$0].type) }) else {
            return nil
        }
        let (skip, pending) = pendingEntries(plan.fetch)
        let covered = {
            skip.isEmpty && pending.isEmpty && !plan.groups.isEmpty
                ? self.coveredGroups(plan) : nil
        }
        guard plan.functions.allSatisfy({ $0.operation != .sum && $0.operation != .average })
        else { return covered() }
        if plan.groups.isEmpty {
            return try extremes(plan, skip: skip, pending: pending)
        }
        let field = plan.groups[0].storedField
        guard plan.groups.count == 1, skip.isEmpty, pending.isEmpty,
            plan.functions.allSatisfy({ $0.field == field }),
            let i = leadingIndex(of: field, plan.binding)
        else { return covered() }
        let type = plan.binding.stored.attributes[field].type
        let runs = core.indexes.withIndexes(of: plan.binding.index) {
            indexes -> [(value: AttributeValue, count: Int)]? in
            guard let index = indexes?[i] else { return nil }
            return Self.valueRuns(of: index, type: type)
        }
        guard let runs else { return nil }
        var groups = AggregateGroups()
        for (value, count) in runs {
            var key: [UInt8] = []
            IndexKey.append(value, to: &key)
            let g = groups.group(key, functions: functions) { [value] }
            groups.counts[g] = count
            for (f, function) in plan.functions.enumerated() where !value.isNull {
                groups.accumulators[g * functions + f] = Accumulator(
                    value: value, count: count, function.operation)
            }
        }
        return groups
    }

    /// The number of objects of the plan's entity, from the store's key count: the stored
    /// records, less those pending changes hide, plus the pending objects.
    /// - Throws: ``LogbookError/store(_:)``.
    private func countOfAll(_ fetch: FetchPlan) throws -> Int {
        let (skip, pending) = pendingEntries(fetch)
        let keyspace = fetch.binding.keyspace
        return try wrapStoreErrors {
            var count = try core.store.count(in: keyspace)
            for key in skip where try core.store.contains(Keyspaces.objectKey(key), in: keyspace) {
                count -= 1
            }
            return count + pending.count
        }
    }

    /// The groups of an index whose leading fields are the group keys and which holds every
    /// function's field, read from its entries alone (``CoveredIndexGroups``); `nil` if there
    /// is no such index available.
    private func coveredGroups(_ plan: AggregatePlan) -> AggregateGroups? {
        let binding = plan.binding
        let keys = plan.groups.map(\.storedField)
        guard
            let i = core.indexes.definitions[binding.index].firstIndex(where: { definition in
                definition.fields.starts(with: keys)
                    && plan.functions.allSatisfy { definition.fields.contains($0.field) }
            })
        else { return nil }
        let fields = core.indexes.definitions[binding.index][i].fields
        let types = fields.map { binding.stored.attributes[$0].type }
        // Invariant: every function's field is among `fields` (checked above).
        let positions = plan.functions.map { function in fields.firstIndex(of: function.field)! }
        let located = max(keys.count, (positions.max() ?? -1) + 1)
        guard types.prefix(located).allSatisfy(IndexKey.decodesField) else { return nil }
        return core.indexes.withIndexes(of: binding.index) { indexes -> AggregateGroups? in
            guard let index = indexes?[i] else { return nil }
            let reader = CoveredIndexGroups(
                keyCount: keys.count, types: types, positions: positions,
                functions: plan.functions)
            index.forEach(from: index.start, to: index.end) { reader.add($0) }
            return reader.damaged ? nil : reader.finish()
        }
    }

    /// The position of an available index of `binding` whose first field is `field`.
    private func leadingIndex(of field: Int, _ binding: EntityBinding) -> Int? {
        core.indexes.definitions[binding.index].firstIndex { $0.fields.first == field }
    }

    /// Without group keys or predicate: each function from an index, the object count from the
    /// records' directory, pending changes applied; `nil` if a function has no index to answer it.
    private func extremes(_ plan: AggregatePlan, skip: Set<UInt64>, pending: [Int32]) throws
        -> AggregateGroups?
    {
        let binding = plan.binding
        var sources: [Int] = []
        for function in plan.functions {
            // A count of values changed here would need their stored values: a scan then.
            guard let i = leadingIndex(of: function.field, binding),
                function.operation != .count || (skip.isEmpty && pending.isEmpty)
            else { return nil }
            sources.append(i)
        }
        let found = try core.indexes.withView(
            of: binding.index, keyspace: binding.keyspace, in: core.store
        ) { indexes, view -> ([Accumulator], LogStore.KeyspaceView)? in
            guard let indexes else { return nil }
            let accumulators = plan.functions.enumerated().map { f, function -> Accumulator in
                let index = indexes[sources[f]]
                let type = binding.stored.attributes[function.field].type
                let values = [IndexKey.valueTag].withUnsafeBytes { index.lowerBound($0) }
                var accumulator = Accumulator()
                switch function.operation {
                case .count:
                    accumulator = Accumulator(count: index.count(from: values, to: index.end))
                case .minimum:
                    index.forEach(from: values, to: index.end) { entry in
                        Self.takeFirst(entry, type, skip, function.operation, &accumulator)
                    }
                case .maximum:
                    index.forEachReversed(from: values, to: index.end) { entry in
                        Self.takeFirst(entry, type, skip, function.operation, &accumulator)
                    }
                case .sum, .average:
                    break
                }
                return accumulator
            }
            return (accumulators, view)
        }
        guard let found else { return nil }
        var accumulators = found.0
        let view = found.1
        var total = try wrapStoreErrors { try view.count }
        for pk in skip {
            let stored = try wrapStoreErrors {
                try Keyspaces.withObjectKey(pk) { key in try view.readValue(forKey: key) { _ in } }
            }
            if stored { total -= 1 }
        }
        for e in pending {
            guard let object = table.objects[Int(e)] else { continue }
            total += 1
            for (f, function) in plan.functions.enumerated() {
                accumulators[f].add(binding.read(object, function.field), function.operation)
            }
        }
        var groups = AggregateGroups()
        let g = groups.group([], functions: plan.functions.count) { [] }
        groups.counts[g] = total
        for f in accumulators.indices { groups.accumulators[f] = accumulators[f] }
        return groups
    }

    /// Adds the first value of the index entries met (those of objects not in `skip`) and says
    /// to stop; `true` (go on) for an entry of a skipped object.
    static func takeFirst(
        _ entry: UnsafeRawBufferPointer, _ type: AttributeType, _ skip: Set<UInt64>,
        _ operation: AggregateOperation, _ accumulator: inout Accumulator
    ) -> Bool {
        if !skip.isEmpty && skip.contains(IndexKey.primaryKey(entry)) { return true }
        var offset = 0
        if let value = IndexKey.decodeField(entry, at: &offset, type: type) {
            accumulator.add(value, operation)
        }
        return false
    }

    /// Each value of the first field of `index` with its number of entries, ascending: one
    /// search per value, not one step per entry.
    private static func valueRuns(of index: OrderedIndex, type: AttributeType)
        -> [(value: AttributeValue, count: Int)]?
    {
        var runs: [(value: AttributeValue, count: Int)] = []
        var position = index.start
        while position != index.end {
            var value: AttributeValue?
            var prefix: [UInt8] = []
            index.forEach(from: position, to: index.end) { entry in
                var offset = 0
                value = IndexKey.decodeField(entry, at: &offset, type: type)
                prefix = Array(entry[0..<offset])
                return false
            }
            guard let value else { return nil }
            let next = IndexKey.successor(of: prefix).map { index.lowerBound($0) } ?? index.end
            runs.append((value, index.count(from: position, to: next)))
            position = next
        }
        return runs
    }
}
