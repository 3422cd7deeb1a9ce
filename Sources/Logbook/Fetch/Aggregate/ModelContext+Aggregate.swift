import Foundation
import LogStore

extension ModelContext {
    /// The rows of an aggregate (see ``AggregateDescriptor``), computed without building
    /// objects: one per group, or exactly one without group keys.
    ///
    /// Unsaved changes of this context take part, as in fetches (inserted objects count,
    /// deleted ones do not, changed values are the ones added), unless the descriptor leaves
    /// them out.
    ///
    /// Indexes answer what they can without reading a record: the count of all objects, the
    /// count of the objects whose indexed attribute is not `nil`, its minimum and maximum, and —
    /// grouped by an indexed attribute, with no predicate — each value's count. Everything else
    /// reads the matching records once (through an index where the predicate allows), decoding
    /// only the fields the aggregate uses.
    /// - Throws: ``LogbookError/aggregateOverflow(entity:attribute:)`` for a sum that does not
    ///   fit its type (an integer past 64 bits, a `Decimal` past its 38 digits); ``LogbookError/typeMismatch(entity:attribute:expected:found:)`` for a sum or
    ///   average of an attribute that is not a number (or a date, for an average);
    ///   ``LogbookError/invalidQuery(_:)`` for a key path that is not an attribute (or, for a
    ///   group key, an attribute through a to-one relationship), or a sort by a value the
    ///   aggregate does not compute; errors of the predicate and of `having`;
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    /// - Complexity: O(matching records) for a scan, O(log n) per extreme or per group for an
    ///   index answer, plus O(g log g) to order g groups.
    public func aggregate<Model: PersistentModel>(_ descriptor: AggregateDescriptor<Model>)
        throws -> [AggregateRow]
    {
        try aggregate(makePlan(descriptor))
    }

    /// The rows of an aggregate of an entity given by name (see
    /// ``EntityAggregateDescriptor``).
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``, and
    ///   ``LogbookError/unknownEntity(_:)``, ``LogbookError/unknownAttribute(entity:attribute:)``.
    public func aggregate(_ descriptor: EntityAggregateDescriptor) throws -> [AggregateRow] {
        try aggregate(makePlan(descriptor))
    }

    /// ``aggregate(_:)-(AggregateDescriptor<Model>)`` and the number of stored records of the
    /// entity it read (0 when indexes answered): for tests and tools.
    package func explainAggregate<Model: PersistentModel>(
        _ descriptor: AggregateDescriptor<Model>
    ) throws -> (rows: [AggregateRow], recordsRead: Int) {
        try aggregateReading(makePlan(descriptor))
    }

    func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow] {
        try aggregateReading(plan).rows
    }

    private func aggregateReading(_ plan: AggregatePlan) throws -> (
        rows: [AggregateRow], recordsRead: Int
    ) {
        var groups = try groupsFromIndexes(plan) ?? scanGroups(plan)
        let recordsRead = groups.recordsRead
        if plan.groups.contains(where: { if case .related = $0 { true } else { false } }) {
            groups = try resolveRelated(groups, plan)
        }
        return (try finish(groups, plan), recordsRead)
    }

    /// The groups of a scan of the plan's matches (and pending objects).
    private func scanGroups(_ plan: AggregatePlan) throws -> AggregateGroups {
        let scan = AggregateScan(plan)
        var fetch = plan.fetch
        fetch.sortKeys = []
        fetch.objectOrder = nil
        let result = try execute(fetch, keepRecords: false, consume: scan)
        for candidate in result.candidates where candidate.live >= 0 {
            if let object = table.objects[Int(candidate.live)] { scan.visit(object: object) }
        }
        var groups = scan.groups
        groups.recordsRead = result.explanation.recordsRead
        return groups
    }

    /// The groups with each related key (a to-one relationship's primary key) replaced by the
    /// related object's attribute, groups that then share their keys merged.
    private func resolveRelated(_ groups: AggregateGroups, _ plan: AggregatePlan) throws
        -> AggregateGroups
    {
        var cache: [Int: [UInt64: AttributeValue]] = [:]
        var merged = AggregateGroups()
        let functions = plan.functions.count
        for g in 0..<groups.count {
            var values = groups.values[g]
            for (k, key) in plan.groups.enumerated() {
                guard case .related(_, let destination, let field) = key else { continue }
                guard case .integer(let raw) = values[k] else { continue }
                let pk = UInt64(bitPattern: raw)
                if let known = cache[k]?[pk] {
                    values[k] = known
                } else {
                    let value = try relatedValue(
                        destination, pk, field, includePending: plan.fetch.includePendingChanges)
                    cache[k, default: [:]][pk] = value
                    values[k] = value
                }
            }
            var encoded: [UInt8] = []
            for value in values { IndexKey.append(value, to: &encoded) }
            let target = merged.group(encoded, functions: functions) { values }
            merged.counts[target] += groups.counts[g]
            for (i, function) in plan.functions.enumerated() {
                merged.accumulators[target * functions + i].merge(
                    groups.accumulators[g * functions + i], function.operation,
                    type: function.type)
            }
        }
        return merged
    }

    /// The value of stored field `field` of object `pk` of `destination`: as this context has
    /// it when pending changes count (`nil` for an object deleted here), else as stored; `nil`
    /// for an object that does not exist.
    private func relatedValue(
        _ destination: EntityBinding, _ pk: UInt64, _ field: Int, includePending: Bool
    ) throws -> AttributeValue {
        if includePending, let known = registered(destination.index, pk) {
            switch known.state {
            case .deleted, .gone: return .null
            case .inserted: return destination.read(known.object, field)
            case .persisted, .free:
                let e = table.lookup(destination.index, pk)
                if e >= 0, table[e].isChanged {
                    return destination.read(known.object, field)
                }
            }
        }
        var value = AttributeValue.null
        var needed = [Bool](repeating: false, count: destination.stored.attributes.count)
        needed[field] = true
        _ = try Keyspaces.withObjectKey(pk) { key in
            try wrapStoreErrors {
                try core.store.readValue(forKey: key, in: destination.keyspace) { record in
                    _ = try destination.codec.decode(record, key: String(pk), only: needed) {
                        if $0 == field { value = $1 }
                    }
                }
            }
        }
        return value
    }

    /// The rows of the groups: values computed, `having` applied, ordered and sliced.
    private func finish(_ groups: AggregateGroups, _ plan: AggregatePlan) throws -> [AggregateRow] {
        let entity = plan.binding.entity.name
        let functions = plan.functions
        var rows: [AggregateRow] = []
        rows.reserveCapacity(groups.count)
        for g in 0..<groups.count {
            let values = try functions.enumerated().map { i, function in
                try groups.accumulators[g * functions.count + i].result(
                    function.operation, type: function.type,
                    overflow: .aggregateOverflow(entity: entity, attribute: function.attribute))
            }
            let row = AggregateRow(
                group: groups.values[g], count: groups.counts[g], values: values,
                columns: plan.columns)
            if let having = plan.having, !(try having(row)) { continue }
            rows.append(row)
        }
        // In the order of the keys, then as `sort` asks (each a stable pass, last key first).
        rows.sort { a, b in Self.precedes(a.group, b.group) }
        for (column, ascending) in plan.sort.reversed() {
            rows = Self.stableSorted(rows) { a, b in
                let order = AttributeValue.compare(Self.cell(a, column), Self.cell(b, column))
                if order == .orderedSame { return nil }
                return (order == .orderedAscending) == ascending
            }
        }
        let start = min(max(plan.offset ?? 0, 0), rows.count)
        let end = plan.limit.map { min(start + max($0, 0), rows.count) } ?? rows.count
        return Array(rows[start..<end])
    }

    /// Column `column` of a row: a group key, the count, or a function's value.
    private static func cell(_ row: AggregateRow, _ column: Int) -> AttributeValue {
        if column < row.group.count { return row.group[column] }
        if column == row.group.count { return .integer(Int64(row.count)) }
        return row.values[column - row.group.count - 1]
    }

    /// Whether the key values `a` come before `b` (value by value, in the order of indexes).
    private static func precedes(_ a: [AttributeValue], _ b: [AttributeValue]) -> Bool {
        for (x, y) in zip(a, b) {
            let order = AttributeValue.compare(x, y)
            if order != .orderedSame { return order == .orderedAscending }
        }
        return false
    }

    /// `rows` sorted by `before` (`nil` for a tie), ties kept in their order.
    private static func stableSorted(
        _ rows: [AggregateRow], by before: (AggregateRow, AggregateRow) -> Bool?
    ) -> [AggregateRow] {
        rows.enumerated().sorted { a, b in before(a.element, b.element) ?? (a.offset < b.offset) }
            .map(\.element)
    }
}
