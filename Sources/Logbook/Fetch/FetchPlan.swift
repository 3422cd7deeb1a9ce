import Foundation

/// A fetch reduced to what the scan needs: how to test a record, how to order matches, which
/// slice to keep. Built from a ``FetchDescriptor`` or an ``EntityFetchDescriptor``.
struct FetchPlan {
    enum Matcher {
        case all
        /// A filter bound to attribute positions, evaluated on decoded values.
        case filter(FilterNode)
        /// Evaluated on an object: the scratch object for stored records, the live one for
        /// pending objects.
        case object((AnyObject) throws -> Bool)
    }

    struct SortKey {
        let attribute: Int
        let ascending: Bool
        /// For strings, a comparator other than code-point order.
        let stringComparator: String.StandardComparator?
    }

    let binding: EntityBinding
    var matcher: Matcher = .all
    var sortKeys: [SortKey] = []
    /// Set when some sort key is not an attribute: matches are built as objects and ordered with it.
    var objectOrder: ((AnyObject, AnyObject) -> ComparisonResult)?
    var limit: Int?
    var offset: Int?
    var includePendingChanges = true
}

/// One match of a scan: a stored record (its bytes kept in the scan's buffer) or a pending object.
struct FetchCandidate {
    let primaryKey: UInt64
    /// The pending object's entry in the context's table; -1 for stored records.
    let live: Int32
    let bytesStart: Int
    let bytesCount: Int
}

extension ModelContext {
    /// Scans the entity's records (and, if asked, the pending objects) and returns the
    /// matches in order, sliced. With `keepRecords == false` no bytes are kept (for counts).
    func execute(_ plan: FetchPlan, keepRecords: Bool = true) throws -> (
        candidates: [FetchCandidate], bytes: [UInt8]
    ) {
        let binding = plan.binding
        let entity = binding.stored
        let keyCount = plan.sortKeys.count
        let entity32 = Int32(binding.index)
        var skip = Set<UInt64>()
        var pending: [Int32] = []
        if plan.includePendingChanges {
            for e in table.changed
            where table.entries[Int(e)].isChanged && table.entries[Int(e)].entity == entity32 {
                skip.insert(table.entries[Int(e)].primaryKey)
                pending.append(e)
            }
            for e in table.deleted
            where table.entries[Int(e)].state == .deleted
                && table.entries[Int(e)].entity == entity32
            {
                skip.insert(table.entries[Int(e)].primaryKey)
            }
            for e in table.inserted
            where table.entries[Int(e)].state == .inserted
                && table.entries[Int(e)].entity == entity32
            {
                pending.append(e)
            }
        }
        let scan = RecordScan(plan: plan, keepRecords: keepRecords, skip: skip)
        try wrapStoreErrors {
            try core.store.forEach(in: binding.keyspace) { key, value in
                try scan.visit(key: key, value: value)
            }
            try scan.flush()
        }
        var candidates = scan.candidates
        var keys = scan.keys
        let bytes = scan.bytes
        for e in pending {
            guard let object = table.objects[Int(e)] else { continue }
            switch plan.matcher {
            case .all: break
            case .filter(let node):
                if !(try node.evaluate(
                    ArrayFilterValues(values: binding.readAll(object), entity: entity)))
                {
                    continue
                }
            case .object(let test):
                if !(try test(object)) { continue }
            }
            for key in plan.sortKeys { keys.append(binding.read(object, key.attribute)) }
            candidates.append(
                FetchCandidate(
                    primaryKey: table.entries[Int(e)].primaryKey, live: e,
                    bytesStart: 0, bytesCount: 0))
        }
        var order = Array(candidates.indices)
        if keyCount == 1, entity.attributes[plan.sortKeys[0].attribute].type == .integer {
            // One integer key (the common case): sort plain numbers, nulls first.
            let ascending = plan.sortKeys[0].ascending
            var items = [(present: Bool, value: Int64, pk: UInt64, index: Int)]()
            items.reserveCapacity(candidates.count)
            for (i, key) in keys.enumerated() {
                if case .integer(let v) = key {
                    items.append((true, v, candidates[i].primaryKey, i))
                } else {
                    items.append((false, 0, candidates[i].primaryKey, i))
                }
            }
            items.sort { a, b in
                if a.present != b.present || a.value != b.value {
                    let less =
                        (!a.present && b.present) || (a.present == b.present && a.value < b.value)
                    return less == ascending
                }
                return a.pk < b.pk
            }
            order = items.map(\.index)
        } else if keyCount > 0 {
            let sortKeys = plan.sortKeys
            keys.withUnsafeBufferPointer { keys in
                order.sort { a, b in
                    for (k, key) in sortKeys.enumerated() {
                        let x = keys[a * keyCount + k]
                        let y = keys[b * keyCount + k]
                        var result: ComparisonResult
                        if let comparator = key.stringComparator, case .string(let s) = x,
                            case .string(let t) = y
                        {
                            result = comparator.compare(s, t)
                        } else {
                            result = AttributeValue.compare(x, y)
                        }
                        if result == .orderedSame { continue }
                        return (result == .orderedAscending) == key.ascending
                    }
                    return candidates[a].primaryKey < candidates[b].primaryKey
                }
            }
        } else if keepRecords || plan.limit != nil || plan.offset != nil {
            order.sort { candidates[$0].primaryKey < candidates[$1].primaryKey }
        }
        var ordered = order.map { candidates[$0] }
        if plan.objectOrder == nil { ordered = Self.slice(ordered, plan) }
        return (ordered, bytes)
    }

    static func slice<T>(_ items: [T], _ plan: FetchPlan) -> [T] {
        let start = min(max(plan.offset ?? 0, 0), items.count)
        let end = plan.limit.map { min(start + max($0, 0), items.count) } ?? items.count
        return Array(items[start..<end])
    }

    /// The object of a candidate: the registered one if any, else one built from its record
    /// and registered.
    @inline(__always)
    func materialize(
        _ candidate: FetchCandidate, _ bytes: UnsafeRawBufferPointer, _ binding: EntityBinding,
        generation: UInt64
    ) throws -> AnyObject {
        if candidate.live >= 0, let object = table.objects[Int(candidate.live)] { return object }
        if let known = registered(binding.index, candidate.primaryKey) { return known.object }
        let object = binding.makeObject()
        let version = try binding.load(
            UnsafeRawBufferPointer(
                rebasing: bytes[candidate.bytesStart..<candidate.bytesStart + candidate.bytesCount]),
            into: object, primaryKey: candidate.primaryKey)
        table.add(
            object, binding, primaryKey: candidate.primaryKey, state: .persisted, version: version,
            generation: generation)
        return object
    }

    /// Runs the plan and builds the objects of the result.
    func fetchObjects(_ plan: FetchPlan) throws -> [AnyObject] {
        let generation = core.saveGeneration
        let (candidates, bytes) = try execute(plan)
        table.reserve(candidates.count, entity: plan.binding.index)
        var objects: [AnyObject] = []
        objects.reserveCapacity(candidates.count)
        try bytes.withUnsafeBytes { raw in
            for candidate in candidates {
                objects.append(
                    try materialize(candidate, raw, plan.binding, generation: generation))
            }
        }
        if let order = plan.objectOrder {
            let keyed = zip(objects, candidates.map(\.primaryKey))
            objects = Self.slice(
                keyed.sorted { a, b in
                    let r = order(a.0, b.0)
                    return r == .orderedSame ? a.1 < b.1 : r == .orderedAscending
                }.map(\.0), plan)
        }
        return objects
    }
}
