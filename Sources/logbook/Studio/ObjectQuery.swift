import LogStore
import Logbook

/// What the Objects view asks for: one entity's objects, filtered with a string predicate (the
/// syntax of `--where`), in primary-key order or sorted by an attribute, now or as of a past
/// save. Paging is not part of it: a query's result is the ordered primary keys of all its
/// matches, and a page is a slice of them. A value type.
struct ObjectQuery: Hashable, Sendable {
    var entity: String
    /// The predicate's text; `nil` for every object.
    var filter: String?
    /// The attribute to sort by; `nil` for primary-key order.
    var sort: String?
    var descending = false
    /// The past state to read; `nil` for now.
    var asOf: HistoryToken?
    /// Only the objects whose to-one relationship points at one object (what a to-many
    /// relationship of that object holds); `nil` for no such condition.
    var link: Link?

    /// A to-one relationship of the entity and the primary key of the object it must reach.
    struct Link: Hashable, Sendable {
        var relationship: String
        var destination: String
        var key: UInt64
    }

    /// The matches in order and how they were found, read with `context` (a context of the
    /// container now, or the past one of ``asOf``); `store` is the container's store for a
    /// query of now (`nil` for the past).
    /// - Throws: ``LogbookError`` for a filter that does not parse or does not fit the entity
    ///   (the message points at the problem), or for a sort on an unknown attribute.
    func run(in context: ModelContext, store: LogStore?) throws -> QueryResult {
        guard filter != nil || sort != nil || link != nil else {
            let plan = "every object, by primary key (no filter, no sort)"
            if let store, let count = try Self.denseCount(of: entity, in: context.container, store)
            {
                return QueryResult(keys: MatchKeys(run: count, descending: descending), plan: plan)
            }
            var keys = try Self.primaryKeys(of: entity, in: context, store: store)
            if descending { keys.reverse() }
            return QueryResult(keys: MatchKeys(keys), plan: plan)
        }
        var predicate = try filter.map { try StringPredicate(format: $0, arguments: []) }
        if let link {
            // The filter parsed alone first, so that its own mistakes are reported as such.
            let target = PersistentIdentifier(entityName: link.destination, primaryKey: link.key)
            predicate = try StringPredicate(
                format: filter.map { "(\($0)) AND %K == %@" } ?? "%K == %@",
                arguments: [link.relationship, target])
        }
        let descriptor = EntityFetchDescriptor(
            entityName: entity, predicate: predicate,
            sortBy: sort.map { [($0, !descending)] } ?? [])
        // An index that answers the filter gives the keys without reading a record.
        if sort == nil, let found = try context.primaryKeysFromIndexes(descriptor) {
            return QueryResult(
                keys: MatchKeys(descending ? found.keys.reversed() : found.keys),
                plan: found.explanation.description)
        }
        var plan: String
        if predicate != nil {
            plan = try context.explain(descriptor, counting: true).description
        } else {
            plan = "scan: every object"
        }
        if let sort { plan += "; then sorted by \(sort) (each match's record read)" }
        var keys = try context.fetchIdentifiers(descriptor).map(\.primaryKey)
        if sort == nil {
            keys.sort()
            if descending { keys.reverse() }
        }
        return QueryResult(keys: MatchKeys(keys), plan: plan)
    }

    /// The number of objects of `entity` when their keys are exactly 1…N (as many objects as
    /// keys handed out: none was deleted), else `nil`.
    static func denseCount(of entity: String, in container: ModelContainer, _ store: LogStore)
        throws -> Int?
    {
        let count = try store.count(in: entity)
        return UInt64(count) == (try container.lastPrimaryKey(of: entity)) ? count : nil
    }

    /// Every object's primary key of `entity`, ascending: the one place the studio asks for
    /// key order (to become the library's visit in key order when it has one). Of now, a walk
    /// of the entity's keys in the store (8 bytes a key, the log's pages let go as it passes);
    /// of the past, the identifiers of a fetch.
    static func primaryKeys(of entity: String, in context: ModelContext, store: LogStore?)
        throws -> [UInt64]
    {
        guard let store else {
            return try context.fetchIdentifiers(EntityFetchDescriptor(entityName: entity)).map(
                \.primaryKey
            ).sorted()
        }
        var keys: [UInt64] = []
        keys.reserveCapacity(try store.count(in: entity))
        var ascending = true
        try store.forEach(in: entity) { key, _ in
            guard let id = PersistentIdentifier(entityName: entity, storeKey: key) else { return }
            if let last = keys.last, last > id.primaryKey { ascending = false }
            keys.append(id.primaryKey)
        }
        if !ascending { keys.sort() }
        return keys
    }
}

/// A query's matches: primary keys in the query's order, and its plan.
struct QueryResult: Sendable {
    let keys: MatchKeys
    /// How the matches were found (``FetchExplanation``'s text for a filter).
    let plan: String

    var count: Int { keys.count }
}

/// The primary keys of a query's matches, in its order: a list (8 bytes a match), or, for every
/// object of an entity whose keys run from 1 without a gap, that run (nothing held).
struct MatchKeys: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        case list([UInt64])
        case run(count: Int, descending: Bool)
    }

    private let storage: Storage

    init(_ keys: [UInt64]) { storage = .list(keys) }

    /// The keys 1…`count`, ascending or descending.
    init(run count: Int, descending: Bool) { storage = .run(count: count, descending: descending) }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .list(let keys): return keys.count
        case .run(let count, _): return count
        }
    }

    subscript(position: Int) -> UInt64 {
        switch storage {
        case .list(let keys): return keys[position]
        case .run(let count, let descending):
            return UInt64(descending ? count - position : position + 1)
        }
    }

    /// Keys held in memory (what the cache counts).
    var held: Int {
        if case .list(let keys) = storage { return keys.count }
        return 0
    }
}

/// Query results of the store's current state, kept while it does not change, least recently
/// used dropped first, within a bound on the keys held. A query is computed once however many
/// requests ask for it at the same time, and one at a time, so that memory stays bounded under
/// load.
///
/// Thread safety: `Sendable`; any thread may call it.
final class QueryCache: Sendable {
    private struct Entry {
        var query: ObjectQuery
        var generation: UInt64
        var result: QueryResult
    }

    private let entries = Locked<[Entry]>([])
    private let computing = Locked<Void>(())
    /// Primary keys held at most, over all entries (8 bytes each): 4 M keys, 32 MiB.
    private let maximumKeys: Int
    /// Entries held at most.
    private let maximumEntries = 16

    init(maximumKeys: Int = 4 << 20) { self.maximumKeys = maximumKeys }

    /// The result of `query` on the state `generation`, computed by `compute` unless known.
    /// - Throws: what `compute` throws (nothing is kept then).
    func result(
        of query: ObjectQuery, generation: UInt64, compute: () throws -> QueryResult
    ) throws -> QueryResult {
        if let known = lookup(query, generation) { return known }
        return try computing.withLock { _ in
            if let known = lookup(query, generation) { return known }
            let result = try compute()
            entries.withLock { entries in
                // Results of older states go; those of the past (generation 0) never change.
                entries.removeAll { $0.generation != generation && $0.generation != 0 }
                entries.append(Entry(query: query, generation: generation, result: result))
                var held = entries.reduce(0) { $0 + $1.result.keys.held }
                while entries.count > 1
                    && (held > maximumKeys || entries.count > maximumEntries)
                {
                    held -= entries.removeFirst().result.keys.held
                }
            }
            return result
        }
    }

    /// Forgets every result.
    func removeAll() { entries.withLock { $0.removeAll() } }

    private func lookup(_ query: ObjectQuery, _ generation: UInt64) -> QueryResult? {
        entries.withLock { entries in
            guard
                let i = entries.firstIndex(where: {
                    $0.query == query && $0.generation == generation
                })
            else { return nil }
            let entry = entries.remove(at: i)
            entries.append(entry)
            return entry.result
        }
    }
}
