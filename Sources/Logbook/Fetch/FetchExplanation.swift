/// How a fetch found its results: which index it used, how many stored objects that gave as
/// candidates, how many records it read, and whether the index gave the order. What
/// ``ModelContext/explain(_:counting:)-(FetchDescriptor<Model>,_)`` returns. A value type.
public struct FetchExplanation: Sendable, Hashable, CustomStringConvertible {
    /// How stored candidates were found.
    public enum Access: Sendable, Hashable {
        /// Every record of the entity was read.
        case scan
        /// The entries of one index (in one or more key ranges).
        case index
        /// The union of several indexes' entries (a disjunction).
        case union
        /// The intersection of several indexes' entries (a conjunction).
        case intersection
        /// The objects named by identifier.
        case identifiers
        /// None: the predicate cannot match.
        case nothing
    }

    /// How stored candidates were found.
    public internal(set) var access: Access = .scan
    /// The indexes used, as `Entity(field, …)`.
    public internal(set) var indexes: [String] = []
    /// Stored objects the access gave as candidates (for a scan, the entity's records).
    public internal(set) var candidates = 0
    /// Index entries visited.
    public internal(set) var entriesVisited = 0
    /// Stored records read (and tested against the rest of the predicate). 0 for a count
    /// the index answers alone.
    public internal(set) var recordsRead = 0
    /// Pending (unsaved) objects of the context tested.
    public internal(set) var pendingObjects = 0
    /// Whether the order came from the index, with no sort step.
    public internal(set) var sortedByIndex = false
    /// Whether the fetch stopped reading once it had its limit (top-k).
    public internal(set) var stoppedEarly = false
    /// Whether the predicate was evaluated on objects built from the records, because part of
    /// it is not a comparison of stored values (a computed property, a method call), rather than
    /// on the stored values themselves.
    public internal(set) var predicateOnObjects = false
    /// Objects in the result (or the count).
    public internal(set) var results = 0

    /// `index Employee(designation): 112562 candidates, 112562 records read, sorted by index`.
    public var description: String {
        var text: String
        switch access {
        case .scan: text = "scan"
        case .index: text = "index \(indexes.joined(separator: ", "))"
        case .union: text = "union of \(indexes.joined(separator: ", "))"
        case .intersection: text = "intersection of \(indexes.joined(separator: ", "))"
        case .identifiers: text = "by identifier"
        case .nothing: text = "nothing to read"
        }
        text += ": \(candidates) candidates, \(recordsRead) records read"
        if pendingObjects > 0 { text += ", \(pendingObjects) pending objects tested" }
        if sortedByIndex { text += ", sorted by index" }
        if stoppedEarly { text += ", stopped at the limit" }
        if predicateOnObjects { text += ", predicate evaluated on objects" }
        return text + ", \(results) results"
    }

    /// Records the access the planner chose.
    mutating func note(_ plan: AccessPlan, definitions: [IndexDefinition]) {
        indexes = plan.indexNames
        switch plan.access {
        case .scan: access = .scan
        case .nothing: access = .nothing
        case .identifiers: access = .identifiers
        case .ranges: access = .index
        case .union: access = .union
        case .intersection: access = .intersection
        }
    }
}

extension ModelContext {
    /// Runs the fetch (or, with `counting`, the count) of `descriptor` as
    /// ``fetch(_:)-(FetchDescriptor<Model>)`` would, and tells how it found the results.
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    public func explain<Model: PersistentModel>(
        _ descriptor: FetchDescriptor<Model>, counting: Bool = false
    ) throws -> FetchExplanation {
        let plan = try makePlan(descriptor)
        return counting ? try count(plan).explanation : try fetchObjects(explaining: plan).1
    }

    /// Runs the fetch (or, with `counting`, the count) of an ``EntityFetchDescriptor`` and
    /// tells how it found the results.
    /// - Throws: as ``fetch(entity:where:_:sortBy:ascending:)``.
    public func explain(_ descriptor: EntityFetchDescriptor, counting: Bool = false) throws
        -> FetchExplanation
    {
        let plan = try makePlan(descriptor)
        return counting ? try count(plan).explanation : try fetchObjects(explaining: plan).1
    }
}
