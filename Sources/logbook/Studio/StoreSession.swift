import Foundation
import LogStore
import Logbook

/// The store the studio shows: the open container, opened again when another process has
/// saved (a read-only open is a snapshot of the store as it was then), and what is computed
/// from it and kept while the store does not change (object queries, the health check, past
/// contexts).
///
/// Thread safety: `Sendable`; requests on many threads read it at once. Each request makes
/// its own ``ModelContext`` (contexts are not thread-safe); past contexts are shared one
/// request at a time (``withPast(_:_:)``).
final class StoreSession: Sendable {
    /// The store's directory.
    let path: String
    /// Whether the store is open for writing (`--write`).
    let writable: Bool
    private let state: Locked<State>
    /// Object queries of the current state, most recently used last.
    let queries = QueryCache()
    private let past = Locked<[PastContext]>([])
    /// Past contexts kept at once (each holds an index of the store as it was).
    private static let pastKept = 2
    /// Serializes the health check, so that a burst of requests runs it once.
    private let healthLock = Locked<Void>(())

    private struct State {
        var container: ModelContainer
        /// Bumped at each reopen and each save seen: what caches are keyed by.
        var generation: UInt64 = 0
        var health: (generation: UInt64, summary: HealthSummary)?
    }

    /// Opens the store at `path`, read-only unless `writable`.
    /// - Throws: ``CommandError`` if it is not a store, has no schema, is damaged, or (writable)
    ///   another process has it open for writing.
    init(path: String, writable: Bool) throws {
        self.path = path
        self.writable = writable
        state = Locked(State(container: try Self.open(path, writable: writable)))
    }

    /// The container of the current state and its generation.
    var current: (container: ModelContainer, generation: UInt64) {
        state.withLock { ($0.container, $0.generation) }
    }

    /// Opens the store again (read-only only: a writable container sees its own saves), so
    /// that requests from now on see what other processes saved; then forgets what was
    /// computed from the old state. Requests under way finish on the old container.
    /// - Throws: ``CommandError`` if the store no longer opens.
    func refresh() throws {
        let reopened = writable ? nil : try Self.open(path, writable: false)
        state.withLock { state in
            if let reopened { state.container = reopened }
            state.generation += 1
        }
        queries.removeAll()
        past.withLock { $0.removeAll() }
    }

    /// Closes the store (its writer lock goes with it): for when serving has stopped.
    func close() {
        past.withLock { $0.removeAll() }
        queries.removeAll()
        try? current.container.close()
    }

    /// Runs `body` with a context of the store as it was at `token`, made on first use and
    /// kept for the next requests (one request at a time uses it).
    /// - Throws: the object layer's errors (a token of another store, history compacted away).
    func withPast<T>(_ token: HistoryToken, _ body: (ModelContext) throws -> T) throws -> T {
        let entry = past.withLock { kept -> PastContext in
            if let i = kept.firstIndex(where: { $0.token == token }) {
                let found = kept.remove(at: i)
                kept.append(found)
                return found
            }
            return PastContext(token: token)
        }
        let result = try entry.use(container: current.container, body)
        past.withLock { kept in
            guard !kept.contains(where: { $0 === entry }) else { return }
            kept.append(entry)
            if kept.count > Self.pastKept { kept.removeFirst() }
        }
        return result
    }

    /// How long a health check stands for a store that changed since.
    static let healthKept: TimeInterval = 30

    /// The health check of the current state: the library's verify, run once per state, and
    /// when another process saved, again once the last check is ``healthKept`` old (it reads
    /// the whole store).
    func health() -> HealthSummary {
        func known() -> HealthSummary? {
            let generation = current.generation
            guard let known = state.withLock({ $0.health }),
                known.generation == generation
                    || -known.summary.checkedAt.timeIntervalSinceNow < Self.healthKept
            else { return nil }
            return known.summary
        }
        if let known = known() { return known }
        let generation = current.generation
        return healthLock.withLock { _ in
            if let known = known() { return known }
            let summary = HealthSummary.check(path)
            state.withLock { $0.health = (generation, summary) }
            return summary
        }
    }

    /// Opens the container as the tool's other read-only commands do, or for writing.
    private static func open(_ path: String, writable: Bool) throws -> ModelContainer {
        try StoreAccess.requireStoreDirectory(path)
        var options = LogStoreOptions()
        options.readOnly = !writable
        options.createIfMissing = false
        options.autoCompactionDeadFraction = nil
        do {
            return try ModelContainer(schema: nil, at: URL(fileURLWithPath: path), options: options)
        } catch LogbookError.store(.locked) {
            throw CommandError.failed(
                "the store at \(path) is open for writing by another process; close it there "
                    + "first, or run the studio without --write")
        } catch let error as LogbookError {
            throw CommandError.failed(error.description)
        }
    }
}

/// A context of the store as it was at a token, made on first use. Used by one request at a
/// time (its lock is held while a request reads it).
private final class PastContext: @unchecked Sendable {  // `context` only under `lock`
    let token: HistoryToken
    private let lock = Locked<Void>(())
    private var context: ModelContext?

    init(token: HistoryToken) { self.token = token }

    func use<T>(container: ModelContainer, _ body: (ModelContext) throws -> T) throws -> T {
        try lock.withLock { _ in
            if context == nil { context = try container.context(asOf: token) }
            return try body(context!)
        }
    }
}
