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
    /// container now, or the past one of ``asOf``).
    /// - Throws: ``LogbookError`` for a filter that does not parse or does not fit the entity
    ///   (the message points at the problem), or for a sort on an unknown attribute.
    func run(in context: ModelContext) throws -> QueryResult {
        guard filter != nil || sort != nil || link != nil else {
            var keys = try Self.primaryKeys(of: entity, in: context)
            if descending { keys.reverse() }
            return QueryResult(
                keys: keys, plan: "every object, by primary key (no filter, no sort)")
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
        let plan: String
        if predicate != nil {
            plan = try context.explain(descriptor, counting: true).description
        } else {
            plan = "scan: every object, sorted by \(sort ?? "")"
        }
        var keys = try context.fetchIdentifiers(descriptor).map(\.primaryKey)
        if sort == nil {
            keys.sort()
            if descending { keys.reverse() }
        }
        return QueryResult(keys: keys, plan: plan)
    }

    /// Every object's primary key of `entity`, ascending: the one place the studio asks for
    /// key order (to become the library's visit in key order when it has one).
    static func primaryKeys(of entity: String, in context: ModelContext) throws -> [UInt64] {
        var keys = try context.fetchIdentifiers(EntityFetchDescriptor(entityName: entity)).map(
            \.primaryKey)
        keys.sort()
        return keys
    }
}

/// A query's matches: primary keys in the query's order (8 bytes a match), and its plan.
struct QueryResult: Sendable {
    let keys: [UInt64]
    /// How the matches were found (``FetchExplanation``'s text for a filter).
    let plan: String

    var count: Int { keys.count }
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
                entries.removeAll { $0.generation != generation }
                entries.append(Entry(query: query, generation: generation, result: result))
                var held = entries.reduce(0) { $0 + $1.result.count }
                while entries.count > 1
                    && (held > maximumKeys || entries.count > maximumEntries)
                {
                    held -= entries.removeFirst().result.count
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
