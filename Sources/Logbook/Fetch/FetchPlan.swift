import CCRC32C
import Foundation
import LogStore

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
        /// Evaluated on objects of a context (for predicates a scratch object cannot answer:
        /// relationships, identifiers): this context's for stored records, unless pending
        /// changes are left out (then a fresh context's), and the live ones for pending objects.
        case registeredObject((AnyObject) throws -> Bool)
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
    /// The stored fields to decode into the objects the fetch builds (bit i: field i, bit 63:
    /// every field from 63 on); `nil` for all. The rest are left for a fault.
    var fetchedFields: UInt64?
    /// Set when pending objects are tested otherwise than stored records (a predicate only
    /// objects answer, whose stored matches were found first).
    var pendingTest: ((AnyObject) throws -> Bool)?
}

/// One match of a scan: a stored record (its bytes kept in the scan's buffer) or a pending object.
struct FetchCandidate {
    let primaryKey: UInt64
    /// The pending object's entry in the context's table; -1 for stored records.
    let live: Int32
    let bytesStart: Int
    let bytesCount: Int
}

/// What a scan found: every match in the order the scan met it, and the order and slice the
/// plan asks for.
struct ScanResult {
    /// The matches: stored records in log order, then pending objects.
    var candidates: [FetchCandidate]
    /// Positions in `candidates`, ordered and sliced (not sliced when the plan orders objects
    /// with `objectOrder`, which needs them all).
    var order: [Int]
    /// The stored matches' bytes (empty unless records were kept).
    var bytes: [UInt8]
    /// How the matches were found.
    var explanation = FetchExplanation()
    /// Whether the stored matches were built as the scan met them (their candidates name
    /// their entries) rather than kept as bytes.
    var built = false

    /// The candidates in order.
    var ordered: [FetchCandidate] { order.map { candidates[$0] } }
}

extension ModelContext {
    /// Finds the plan's stored matches (through an index where the planner picks one, else by
    /// scanning the entity's records) and, if asked, the pending objects that match, and
    /// returns them with their order. With `keepRecords == false` no bytes are kept (for
    /// counts); with `build` set, each stored match becomes a registered object as it is met
    /// (its candidate names the object's entry) if the matches come in result order (no sort,
    /// or the order of the index read), and its bytes are kept otherwise
    /// (``ScanResult/built``).
    func execute(
        _ plan: FetchPlan, keepRecords: Bool = true,
        build: ((UnsafeRawBufferPointer, UInt64) throws -> Int32)? = nil
    ) throws -> ScanResult {
        let plan = try resolved(plan)
        let binding = plan.binding
        let entity = binding.stored
        let keyCount = plan.sortKeys.count
        let (skip, pending) = pendingEntries(plan)
        var explanation = FetchExplanation()
        let access = accessPlan(plan)
        explanation.note(access, definitions: core.indexes.definitions[binding.index])
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
        let scan = RecordScan(plan: scanned, keepRecords: keepRecords, skip: skip, build: buildNow)
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
                try view.forEachValue(forKeys: keys) { key, value in
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
            if let test = plan.pendingTest {
                if !(try test(object)) { continue }
            } else {
                switch plan.matcher {
                case .all: break
                case .filter(let node):
                    if !(try node.evaluate(
                        ArrayFilterValues(
                            values: binding.readAll(object), entity: entity,
                            primaryKey: table.entries[Int(e)].primaryKey)))
                    {
                        continue
                    }
                case .object(let test), .registeredObject(let test):
                    if !(try test(object)) { continue }
                }
            }
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
                    primaryKey: table.entries[Int(e)].primaryKey, live: e,
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

    /// The pending changes of the plan's entity: the stored keys they hide (changed and
    /// deleted objects) and the entries to test (inserted and changed objects).
    private func pendingEntries(_ plan: FetchPlan) -> (skip: Set<UInt64>, pending: [Int32]) {
        var skip = Set<UInt64>()
        var pending: [Int32] = []
        guard plan.includePendingChanges else { return (skip, pending) }
        let binding = plan.binding
        let entity32 = Int32(binding.index)
        if table.stagedCount[binding.index] > 0 { table.unstage() }
        for e in table.changed
        where table.entries[Int(e)].isChanged && table.entries[Int(e)].entity == entity32 {
            skip.insert(table.entries[Int(e)].primaryKey)
            pending.append(e)
        }
        for e in table.deleted
        where table.entries[Int(e)].state == .deleted && table.entries[Int(e)].entity == entity32 {
            skip.insert(table.entries[Int(e)].primaryKey)
        }
        for e in table.inserted
        where table.entries[Int(e)].state == .inserted && table.entries[Int(e)].entity == entity32 {
            pending.append(e)
        }
        return (skip, pending)
    }

    /// How the plan's stored candidates are found.
    private func accessPlan(_ plan: FetchPlan) -> AccessPlan {
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
        _ plan: FetchPlan, index: Int, range: KeyRange, reverse: Bool, _ scan: RecordScan,
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
        let start = min(max(plan.offset ?? 0, 0), items.count)
        let end = plan.limit.map { min(start + max($0, 0), items.count) } ?? items.count
        return Array(items[start..<end])
    }

    /// Runs the plan and builds the objects of the result: the registered ones as they are
    /// (uniquing), the others decoded from their records and registered.
    ///
    /// Without a limit or offset, and with the matches met in result order (no sort, or the
    /// order of an index read), each is decoded straight from the mapped log as the scan meets
    /// it; otherwise the matches' bytes are kept, and the objects of the slice are built in
    /// result order, so that they lie in memory in the order the app reads and releases them.
    func fetchObjects(_ plan: FetchPlan) throws -> [AnyObject] {
        try fetchObjects(explaining: plan, explanationWanted: false).objects
    }

    /// The objects of the plan, and how they were found (unless `explanationWanted` is false).
    func fetchObjects(explaining plan: FetchPlan, explanationWanted: Bool = true) throws -> (
        objects: [AnyObject], explanation: FetchExplanation
    ) {
        if let found = try uniqueLookup(plan, explaining: explanationWanted) { return found }
        // Resolved before pruning pauses: resolving may build many objects it then lets go.
        let plan = try resolved(plan)
        return try table.withPruningPaused { try buildObjects(plan) }
    }

    /// The object of stored record `record` (object `pk` of `binding`) as a fetch returns it,
    /// with its entry: the registered one (looked for with `checkRegistry`), brought up to the
    /// record if another context saved it since; else one decoded from the record (only
    /// `fields`, if given; `unfetched` are the attributes left out) and registered, found by
    /// its identifier at once or (`deferIndexing`, for the many objects of one fetch) at the
    /// next look-up.
    @inline(__always)
    func fetchedObject(
        _ record: UnsafeRawBufferPointer, _ pk: UInt64, _ binding: EntityBinding,
        generation: UInt64, checkRegistry: Bool = true, fields: UInt64? = nil,
        unfetched: UInt64 = 0, deferIndexing: Bool = true
    ) throws -> (entry: Int32, object: AnyObject) {
        if checkRegistry {
            let known = table.lookup(binding.index, pk)
            if known >= 0, let object = table.objects[Int(known)] {
                refreshIfStale(known, binding, record, generation: generation)
                return (known, object)
            }
        }
        let object = binding.makeObject()
        let version =
            try fields.map { try binding.load(record, into: object, primaryKey: pk, only: $0) }
            ?? binding.load(record, into: object, primaryKey: pk)
        let e = table.add(
            object, binding, primaryKey: pk, state: .persisted, version: version,
            generation: generation, deferIndexing: deferIndexing, unfetched: unfetched)
        return (e, object)
    }

    private func buildObjects(_ plan: FetchPlan) throws -> (
        objects: [AnyObject], explanation: FetchExplanation
    ) {
        let generation = core.saveGeneration
        let binding = plan.binding
        // Only objects registered before this fetch can repeat a match: the matches are
        // distinct, so the registry is not consulted for those this fetch adds.
        let checkRegistry = table.hasRegistered(binding.index)
        let fetched = plan.fetchedFields
        let unfetched = fetched.map { binding.attributeBits & ~$0 } ?? 0
        if unfetched != 0 { table.core = core }
        // The objects of stored matches in scan order, each retained once while it is in the
        // cache; ordering the result then moves these references instead of touching every
        // object again.
        // Held in a class so the escaping `register` appends with no runtime exclusivity check.
        let builtObjects = BuiltObjects()
        func register(_ record: UnsafeRawBufferPointer, _ pk: UInt64) throws -> Int32 {
            let (e, object) = try fetchedObject(
                record, pk, binding, generation: generation, checkRegistry: checkRegistry,
                fields: fetched, unfetched: unfetched)
            builtObjects.items.append(.passRetained(object))
            return e
        }
        let result: ScanResult
        do {
            result =
                try plan.limit == nil && plan.offset == nil
                ? execute(plan, build: register) : execute(plan)
        } catch {
            for object in builtObjects.items { object.release() }
            throw error
        }
        let buildDuringScan = result.built
        let candidates = result.candidates
        // Moved out so the loop below reads a plain array (the scan built them all by now).
        let built = buildDuringScan ? builtObjects.items : []
        if buildDuringScan { builtObjects.items = [] }
        var objects: [AnyObject] = []
        if buildDuringScan {
            // Invariant: without a limit or offset, `order` is a permutation of every
            // candidate, so each built reference is moved exactly once.
            objects = Array(unsafeUninitializedCapacity: result.order.count) { buffer, count in
                for (j, i) in result.order.enumerated() {
                    if i < built.count {
                        (buffer.baseAddress! + j).initialize(to: built[i].takeRetainedValue())
                    } else {
                        // Invariant: a pending candidate's entry holds its object.
                        (buffer.baseAddress! + j).initialize(
                            to: table.objects[Int(candidates[i].live)].unsafelyUnwrapped)
                    }
                }
                count = result.order.count
            }
        } else {
            objects.reserveCapacity(result.order.count)
            // A slice of a few objects is registered at once: deferring pays off for the
            // many objects of a whole result, but costs more per object when the next fetch
            // of a context in a loop indexes them.
            let deferIndexing = result.order.count > 1_024
            try result.bytes.withUnsafeBytes { raw in
                // Result order visits the candidates and their kept bytes at random: those a
                // few objects ahead are loaded while one is built.
                let order = result.order
                let (candidatesAhead, bytesAhead) = (16, 8)
                for (n, i) in order.enumerated() {
                    if n + candidatesAhead < order.count {
                        candidates.withUnsafeBufferPointer {
                            logbook_prefetch($0.baseAddress! + order[n + candidatesAhead])
                        }
                    }
                    if n + bytesAhead < order.count,
                        case let ahead = candidates[order[n + bytesAhead]],
                        ahead.live < 0, let base = raw.baseAddress
                    {
                        logbook_prefetch(base + ahead.bytesStart)
                        logbook_prefetch(base + ahead.bytesStart + 63)
                    }
                    let candidate = candidates[i]
                    let record = UnsafeRawBufferPointer(
                        rebasing: raw[
                            candidate.bytesStart..<candidate.bytesStart + candidate.bytesCount])
                    // The slice holds the objects it builds (`objects`), so they are not kept
                    // in `builtObjects` too.
                    let object =
                        candidate.live >= 0
                        // Invariant: a candidate's entry holds its object until this fetch
                        // returns.
                        ? table.objects[Int(candidate.live)].unsafelyUnwrapped
                        : try fetchedObject(
                            record, candidate.primaryKey, binding, generation: generation,
                            checkRegistry: checkRegistry, fields: fetched, unfetched: unfetched,
                            deferIndexing: deferIndexing
                        ).object
                    objects.append(object)
                }
            }
        }
        if let order = plan.objectOrder {
            let keyed = zip(objects, result.order.map { candidates[$0].primaryKey })
            objects = Self.slice(
                keyed.sorted { a, b in
                    let r = order(a.0, b.0)
                    return r == .orderedSame ? a.1 < b.1 : r == .orderedAscending
                }.map(\.0), plan)
        }
        var explanation = result.explanation
        explanation.results = objects.count
        return (objects, explanation)
    }
}

/// The objects a fetch built during its scan, each retained once (see `buildObjects`).
private final class BuiltObjects {
    @exclusivity(unchecked) var items: ContiguousArray<Unmanaged<AnyObject>> = []
}
