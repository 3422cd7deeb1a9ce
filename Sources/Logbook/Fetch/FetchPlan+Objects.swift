import Foundation
import LogStore

extension ModelContext {
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
        table.releaseUnheldUnindexed(plan.binding.index)
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
        let builder = ObjectBuilder(
            context: self, binding: binding, generation: generation,
            checkRegistry: checkRegistry, fields: fetched, unfetched: unfetched)
        let result: ScanResult
        do {
            // Room for the matches an index read finds, made once: the table's lists and the
            // cache grew by doubling, copying themselves about 17 times for 100,000 objects.
            result =
                try plan.limit == nil && plan.offset == nil
                ? execute(
                    plan, build: builder,
                    reserve: { count in
                        self.table.reserve(count, unindexed: binding.index)
                        builder.items.reserveCapacity(count)
                    }) : execute(plan)
        } catch {
            for object in builder.items { object.release() }
            throw error
        }
        let buildDuringScan = result.built
        let candidates = result.candidates
        // Moved out so the loop below reads a plain array (the scan built them all by now).
        let built = buildDuringScan ? builder.items : []
        if buildDuringScan { builder.items = [] }
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
                            Prefetch.read($0.baseAddress! + order[n + candidatesAhead])
                        }
                    }
                    if n + bytesAhead < order.count,
                        case let ahead = candidates[order[n + bytesAhead]],
                        ahead.live < 0, let base = raw.baseAddress
                    {
                        Prefetch.read(base + ahead.bytesStart)
                        Prefetch.read(base + ahead.bytesStart + 63)
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

/// Builds the objects of a fetch's stored matches as its scan meets them (see
/// `buildObjects`): each registered, and kept in scan order, retained once while it is in the
/// cache, so that ordering the result then moves these references instead of touching every
/// object again. A class that the scan calls without retaining it (a closure kept by the scan
/// had its context retained and released for every record), and that appends with no runtime
/// exclusivity check.
final class ObjectBuilder {
    let context: ModelContext
    let binding: EntityBinding
    let generation: UInt64
    /// Whether objects registered before the fetch may repeat a match (the matches are
    /// distinct, so the registry is not consulted for those the fetch adds).
    let checkRegistry: Bool
    let fields: UInt64?
    let unfetched: UInt64
    @exclusivity(unchecked) var items: ContiguousArray<Unmanaged<AnyObject>> = []

    init(
        context: ModelContext, binding: EntityBinding, generation: UInt64, checkRegistry: Bool,
        fields: UInt64?, unfetched: UInt64
    ) {
        self.context = context
        self.binding = binding
        self.generation = generation
        self.checkRegistry = checkRegistry
        self.fields = fields
        self.unfetched = unfetched
    }

    /// The entry of stored match `record` (object `pk`), whose object is now kept in `items`.
    @inline(__always)
    func build(_ record: UnsafeRawBufferPointer, _ pk: UInt64) throws -> Int32 {
        let (e, object) = try context.fetchedObject(
            record, pk, binding, generation: generation, checkRegistry: checkRegistry,
            fields: fields, unfetched: unfetched)
        items.append(.passRetained(object))
        return e
    }
}
