import Foundation
import LogStore

extension ModelContext {
    /// Finds the plan's stored matches (through an index where the planner picks one, else by
    /// scanning the entity's records) and, if asked, the pending objects that match, and
    /// returns them with their order. With `keepRecords == false` no bytes are kept (for
    /// counts); with `build` set, each stored match becomes a registered object as it is met
    /// (its candidate names the object's entry) if the matches come in result order (no sort,
    /// or the order of the index read), and its bytes are kept otherwise
    /// (``ScanResult/built``); the caller keeps `build` alive until this returns.
    ///
    /// With `consume` set (and no sort), each stored match is handed to it instead of becoming a
    /// candidate (kept alive by the caller, as `build`); the result then holds only the pending
    /// matches. `reserve` hears how many objects `build` is about to build at most, when an
    /// index read knows it first.
    func execute(
        _ plan: FetchPlan, keepRecords: Bool = true,
        build: ObjectBuilder? = nil,
        consume: AggregateScan? = nil,
        reserve: ((Int) -> Void)? = nil
    ) throws -> ScanResult {
        let plan = try resolved(plan)
        let binding = plan.binding
        let keyCount = plan.sortKeys.count
        let (skip, pending) = pendingEntries(plan)
        var explanation = FetchExplanation()
        let access = accessPlan(plan)
        explanation.note(access, definitions: core.indexes.definitions[binding.index])
        switch plan.matcher {
        case .object, .registeredObject: explanation.predicateOnObjects = true
        case .all, .filter: break
        }
        // An exact index access finds only stored matches: their records need no test.
        var scanned = plan
        if access.exact && access.access.isIndex, case .filter = plan.matcher {
            scanned.matcher = .all
        }
        // Candidates that come in the sort order, with no pending object to merge among them,
        // need no sort keys.
        if access.ordered && pending.isEmpty { scanned.sortKeys = [] }
        // Objects built as the scan meets their records lie in memory in that order: if a sort
        // then reorders them, the app reads and releases them at random (releasing 112k sorted
        // Employees cost more than fetching them, most of it glibc coalescing their freed
        // blocks out of address order). The caller builds those from the kept bytes instead.
        let buildNow = scanned.sortKeys.isEmpty ? build : nil
        let scan = RecordScan(
            plan: scanned, keepRecords: keepRecords, skip: skip, build: buildNow, consume: consume)
        try wrapStoreErrors {
            switch access.access {
            case .nothing:
                break
            case .scan:
                explanation.candidates = try core.store.count(in: binding.keyspace)
                try core.store.forEach(in: binding.keyspace) { key, value in
                    try scan.visit(key: key, value: value)
                }
            case .ranges(let index, let ranges) where access.ordered && ranges.count == 1:
                var everyEntryMatches = false
                if case .all = scanned.matcher { everyEntryMatches = true }
                try readOrdered(
                    plan, index: index, range: ranges[0], reverse: access.reverse, scan, skip,
                    everyEntryMatches: everyEntryMatches, &explanation)
            default:
                // One state: the index entries and the records they lead to.
                let (keys, visited, view) = try core.indexes.primaryKeys(
                    access.access, binding: binding, in: core.store)
                explanation.candidates = keys.count
                explanation.entriesVisited = visited
                scan.reserve(keys.count)
                if buildNow != nil { reserve?(keys.count) }
                // Building looks each match up among the objects registered before: the
                // registry slots of the keys a few matches ahead are loaded while one is built.
                let registry =
                    buildNow != nil && table.hasRegistered(binding.index)
                    ? table.registry[binding.index] : nil
                let ahead = ObjectTable.registryLookahead
                var met = 0
                try view.forEachValue(forKeys: keys) { key, value in
                    if let registry, met + ahead < keys.count {
                        registry.prefetch(keys[met + ahead])
                    }
                    met += 1
                    try scan.visit(key: key, value: value)
                }
            }
        }
        explanation.recordsRead = scan.visited
        var candidates = scan.candidates
        var keys = scan.keys
        var integerKeys = scan.integerKeys
        var nullKeyPositions = scan.nullKeyPositions
        let bytes = scan.bytes
        let storedMatches = candidates.count
        for e in pending {
            guard let object = table.objects[Int(e)] else { continue }
            explanation.pendingObjects += 1
            guard try matchesPending(plan, object, e) else { continue }
            if scan.integerSort {
                if case .integer(let key) = binding.read(object, plan.sortKeys[0].attribute) {
                    integerKeys.append(key)
                } else {
                    nullKeyPositions.append(Int32(candidates.count))
                    integerKeys.append(0)
                }
            } else {
                for key in plan.sortKeys { keys.append(binding.read(object, key.attribute)) }
            }
            candidates.append(
                FetchCandidate(
                    primaryKey: table[e].primaryKey, live: e,
                    bytesStart: 0, bytesCount: 0))
        }
        var order: [Int]
        if access.ordered && candidates.count == storedMatches {
            // In index order already: no sort step.
            order = Array(candidates.indices)
            explanation.sortedByIndex = keyCount > 0
        } else if scan.integerSort {
            // One integer key (the common case): a radix sort of plain numbers, nulls first.
            order = KeySort.order(
                integers: integerKeys, nullPositions: nullKeyPositions,
                primaryKeys: candidates.map(\.primaryKey), ascending: plan.sortKeys[0].ascending)
        } else if keyCount > 0 {
            // Invariant: sort keys were left out of the scan only for an ordered access with
            // no pending object, which the first branch takes.
            order = Array(candidates.indices)
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
            order = KeySort.order(primaryKeys: candidates.map(\.primaryKey))
        } else {
            order = Array(candidates.indices)
        }
        if plan.objectOrder == nil { order = Self.slice(order, plan) }
        explanation.results = order.count
        return ScanResult(
            candidates: candidates, order: order, bytes: bytes, explanation: explanation,
            built: buildNow != nil)
    }

    /// The stored matches' count without reading records where an exact index access and no
    /// pending object of the entity allow it; else by running the plan.
    func count(_ plan: FetchPlan) throws -> (count: Int, explanation: FetchExplanation) {
        var plan = try resolved(plan)
        plan.objectOrder = nil
        plan.sortKeys = []
        let (skip, pending) = pendingEntries(plan)
        if skip.isEmpty && pending.isEmpty {
            let access = accessPlan(plan)
            if access.exact && access.access.isIndex {
                var explanation = FetchExplanation()
                explanation.note(access, definitions: core.indexes.definitions[plan.binding.index])
                var total: Int
                if case .identifiers(let keys) = access.access {
                    let keyspace = plan.binding.keyspace
                    total = try wrapStoreErrors {
                        try keys.filter {
                            try core.store.contains(Keyspaces.objectKey($0), in: keyspace)
                        }
                        .count
                    }
                } else if let entries = core.indexes.entryCount(
                    access.access, entity: plan.binding.index)
                {
                    total = entries
                } else {
                    let (keys, visited) = core.indexes.primaryKeys(
                        access.access, entity: plan.binding.index)
                    total = keys.count
                    explanation.entriesVisited = visited
                }
                explanation.candidates = total
                total = Self.slice(Array(0..<total), plan).count
                explanation.results = total
                return (total, explanation)
            }
        }
        let result = try execute(plan, keepRecords: false)
        return (result.order.count, result.explanation)
    }

    /// Whether the pending object `object` (entry `e`) matches the resolved plan.
    /// - Throws: errors of the predicate.
    func matchesPending(_ plan: FetchPlan, _ object: AnyObject, _ e: Int32) throws -> Bool {
        if let test = plan.pendingTest { return try test(object) }
        switch plan.matcher {
        case .all:
            return true
        case .filter(let node):
            return try node.evaluate(
                ArrayFilterValues(
                    values: plan.binding.readAll(object), entity: plan.binding.stored,
                    primaryKey: table[e].primaryKey))
        case .object(let test), .registeredObject(let test):
            return try test(object)
        }
    }

    /// The pending changes of the plan's entity: the stored keys they hide (changed and
    /// deleted objects) and the entries to test (inserted and changed objects); none when the
    /// plan leaves pending changes out.
    func pendingEntries(_ plan: FetchPlan) -> (skip: Set<UInt64>, pending: [Int32]) {
        var skip = Set<UInt64>()
        var pending: [Int32] = []
        guard plan.includePendingChanges else { return (skip, pending) }
        let binding = plan.binding
        let entity32 = Int32(binding.index)
        if table.stagedCount[binding.index] > 0 { table.unstage() }
        for e in table.changed
        where table[e].isChanged && table[e].entity == entity32 {
            skip.insert(table[e].primaryKey)
            pending.append(e)
        }
        for e in table.deleted
        where table[e].state == .deleted && table[e].entity == entity32 {
            skip.insert(table[e].primaryKey)
        }
        for e in table.inserted
        where table[e].state == .inserted && table[e].entity == entity32 {
            pending.append(e)
        }
        return (skip, pending)
    }

    /// How the plan's stored candidates are found.
    func accessPlan(_ plan: FetchPlan) -> AccessPlan {
        let filter: FilterNode?
        switch plan.matcher {
        case .all: filter = nil
        case .filter(let node): filter = node
        case .object, .registeredObject: return AccessPlan()
        }
        // An index can give the order only of keys it compares as the sort does.
        let sortable =
            plan.objectOrder == nil && plan.sortKeys.allSatisfy { $0.stringComparator == nil }
        let sort = sortable ? plan.sortKeys.map { ($0.attribute, $0.ascending) } : []
        guard filter != nil || !sort.isEmpty else { return AccessPlan() }
        let wanted = plan.limit.map { max($0, 0) + max(plan.offset ?? 0, 0) }
        let records = (try? core.store.count(in: plan.binding.keyspace)) ?? 0
        var access = core.indexes.plan(
            plan.binding.index, filter: filter, sort: sort, wanted: sortable ? wanted : nil,
            recordCount: records)
        if sort.isEmpty && !access.access.isIndex { access.ordered = false }
        return access
    }

    /// Reads candidates in index order until the plan has as many matches as it keeps.
    /// `everyEntryMatches`: whether every entry of the range is a match (an exact access),
    /// so a batch need not hold more entries than the matches still missing.
    private func readOrdered(
        _ plan: FetchPlan, index: Int, range: IndexEntryRange, reverse: Bool, _ scan: RecordScan,
        _ skip: Set<UInt64>, everyEntryMatches: Bool, _ explanation: inout FetchExplanation
    ) throws {
        let wanted = plan.limit.map { max($0, 0) + max(plan.offset ?? 0, 0) }
        var cursor: [UInt8]? = nil
        // The records of every batch come from the first batch's state, and so must the
        // entries: when a commit lands between two batches, the read starts again and takes
        // the whole range at once, from one state.
        var view: LogStore.KeyspaceView?
        var wholeRange = wanted == nil
        while true {
            let missing = wanted.map { $0 - scan.candidates.count } ?? Int.max
            guard missing > 0 else {
                explanation.stoppedEarly = true
                return
            }
            // When every entry is a match, the missing ones and the entries pending changes
            // hide are enough; else twice the missing, for those the filter drops.
            let batch =
                wholeRange
                ? Int.max
                : everyEntryMatches
                    ? max(1, missing.addingReportingOverflow(skip.count).partialValue)
                    : max(32, missing * 2)
            let (keys, next, batchView) = try core.indexes.orderedKeys(
                plan.binding, index: index, range: range, reverse: reverse,
                after: cursor, limit: batch, in: core.store)
            if let first = view, batchView.sequence != first.sequence {
                scan.reset()
                explanation.candidates = 0
                explanation.entriesVisited = 0
                (cursor, view, wholeRange) = (nil, nil, true)
                continue
            }
            let records = view ?? batchView
            view = records
            explanation.candidates += keys.count
            explanation.entriesVisited += keys.count
            scan.reserve(keys.count)
            var full = false
            try records.forEachValue(inOrderOf: keys) { pk, key, value in
                guard !skip.contains(pk) else { return true }
                if let wanted, scan.candidates.count >= wanted {
                    full = true
                    return false
                }
                if let value { try scan.visit(key: key, value: value) }
                return true
            }
            if full {
                explanation.stoppedEarly = true
                return
            }
            guard let next else { return }
            cursor = next
        }
    }

    static func slice<T>(_ items: [T], _ plan: FetchPlan) -> [T] {
        slice(items, offset: plan.offset, limit: plan.limit)
    }

    /// The items from `offset` on, at most `limit` of them.
    static func slice<T>(_ items: [T], offset: Int?, limit: Int?) -> [T] {
        let start = min(max(offset ?? 0, 0), items.count)
        let end = limit.map { min(start + max($0, 0), items.count) } ?? items.count
        return Array(items[start..<end])
    }
}
