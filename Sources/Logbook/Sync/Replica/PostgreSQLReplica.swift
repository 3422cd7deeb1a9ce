import Foundation
import LogStore

/// Keeps a container's store in two-way sync with a PostgreSQL database.
///
/// ```swift
/// let replica = try PostgreSQLReplica(container: container, url: "postgresql://app@db.example/shop")
/// replica.start()          // syncs in the background from now on, through faults and restarts
/// // … the app saves as usual; changes made elsewhere arrive as saves of their own …
/// replica.stop()           // finishes the transaction it is applying, then returns
/// ```
///
/// Every save of the store goes to PostgreSQL as one transaction, in order, exactly once; every
/// transaction committed in PostgreSQL — by another replica or by any SQL client — comes back
/// as a save of its own, with its origin as the author (`replica:<name>` or
/// `sql:<PostgreSQL user>`), in the store's history and to the container's observers, and is
/// never sent back. The first sync sets the database up and exchanges what both sides hold.
/// Conflicts follow the policy of <doc:SyncingWithPostgreSQL>: last writer wins per
/// attribute on a hybrid logical clock, a delete wins over a concurrent update, a unique value
/// stays with the object that held it first in PostgreSQL, and a resolver can decide for an
/// entity (``setResolver(for:_:)``).
///
/// While PostgreSQL cannot be reached, saves stay in the store and go up when it is back;
/// a replica killed or stopped at any point goes on where it really stopped.
///
/// Thread safety: `Sendable`; call it from any thread. The replica keeps its container open
/// until ``stop()``.
public final class PostgreSQLReplica: Sendable {
    /// How a replica names itself and reports.
    public struct Options: Sendable {
        /// The name other stores see as the author of this replica's changes (`replica:<name>`);
        /// by default the host name and the store's directory name.
        public var name: String?
        /// Called (on the replica's thread) for each conflict syncing decided that the app may
        /// want to know about: a unique clash, a change of an object deleted meanwhile, a
        /// resolver's decision.
        public var onConflict: (@Sendable (SyncConflictReport) -> Void)?
        /// How long the background replica waits, without a notification from PostgreSQL,
        /// before it looks for changes anyway, in seconds.
        public var pollInterval: Double = 5
        /// The longest wait between attempts after a failure, in seconds (the waits grow from
        /// 0.1 s).
        public var maximumRetryDelay: Double = 5

        /// Options with a name and a conflict handler.
        public init(
            name: String? = nil, onConflict: (@Sendable (SyncConflictReport) -> Void)? = nil
        ) {
            self.name = name
            self.onConflict = onConflict
        }
    }

    private struct State {
        var status = ReplicaStatus()
        var resolvers: [String: @Sendable (SyncConflict) -> SyncResolution] = [:]
        var running = false
        var stopping = false
        /// Passes the background worker finished (``sync()`` waits for one past its request).
        var passes: UInt64 = 0
        var unreportedError = false
    }

    let container: ModelContainer
    let configuration: PostgreSQLConfiguration
    let options: Options
    private let name: String
    private let state = Locked(State())
    /// Wakes the threads when the replica stops, and ``sync()`` when a pass ends.
    private let events = CommitSignal()
    private let finished = DispatchGroup()

    /// A replica of `container`'s store in the database `url` names (a `postgresql://` URL;
    /// parts it leaves out come from the environment, a password also from `~/.pgpass`).
    /// Nothing is contacted before ``start()`` or ``sync()``.
    /// - Throws: ``LogbookError/postgreSQL(_:)`` for a malformed URL or one that requires TLS
    ///   (the message never repeats the URL).
    public convenience init(container: ModelContainer, url: String, options: Options = Options())
        throws
    {
        try self.init(
            container: container, configuration: PostgreSQLConfiguration(url: url),
            options: options)
    }

    /// A replica of `container`'s store in the database `configuration` describes.
    package init(
        container: ModelContainer, configuration: PostgreSQLConfiguration, options: Options
    ) {
        self.container = container
        var configuration = configuration
        if configuration.responseTimeout == nil { configuration.responseTimeout = .seconds(120) }
        if configuration.applicationName == nil { configuration.applicationName = "logbook sync" }
        self.configuration = configuration
        self.options = options
        name =
            options.name
            ?? "\(ProcessInfo.processInfo.hostName):\(container.url.lastPathComponent)"
    }

    /// Lets `resolver` decide conflicts of `entity`: when a save of this replica changes an
    /// object that another replica or an SQL client changed since this replica last read
    /// PostgreSQL's changes. It runs on the replica's thread, inside PostgreSQL's transaction
    /// of the save, so keep it quick; every replica ends with what it returns. Set resolvers
    /// before ``start()``.
    public func setResolver(
        for entity: String, _ resolver: @escaping @Sendable (SyncConflict) -> SyncResolution
    ) {
        state.withLock { $0.resolvers[entity] = resolver }
    }

    /// Creates what the database lacks for the store's schema: the entities' tables (as
    /// `logbook export --format sql` makes them), columns of attributes added since, and the
    /// sync tables and triggers. The first sync does it by itself; call it after the schema
    /// gained entities or attributes, or to restore a dropped trigger.
    /// - Throws: ``LogbookError/postgreSQL(_:)``.
    public func setUp() throws {
        let connection = try PostgreSQLConnection.connect(configuration)
        defer { connection.close() }
        try SyncSetup.run(connection, schema: container.schema)
    }

    // MARK: Running

    /// Starts syncing in the background (nothing if it runs already): a worker thread sends
    /// saves up and applies PostgreSQL's changes, and a listener thread waits for PostgreSQL's
    /// notifications. Failures are retried with growing waits; ``status`` shows the last one.
    public func start() {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            state.stopping = false
            return true
        }
        guard started else { return }
        finished.enter()
        finished.enter()
        Thread.detachNewThread { [self] in
            runWorker()
            finished.leave()
        }
        Thread.detachNewThread { [self] in
            runListener()
            finished.leave()
        }
    }

    /// Stops the background sync: the worker finishes the transaction it is sending or
    /// applying, records how far it got, and closes its connections. Returns when both threads
    /// have ended.
    public func stop() {
        let running = state.withLock { state -> Bool in
            state.stopping = true
            return state.running
        }
        guard running else { return }
        events.bump()
        container.core.commitSignal.bump()
        finished.wait()
        state.withLock {
            $0.running = false
            $0.status.isConnected = false
        }
    }

    /// Brings both sides up to date once: every save not yet in PostgreSQL goes up, then every
    /// change committed there comes down. With the background replica running, waits for it
    /// to finish a pass that began after the call.
    /// - Returns: the status afterwards.
    /// - Throws: ``LogbookError/postgreSQL(_:)``, ``LogbookError/sync(_:)``,
    ///   ``LogbookError/store(_:)``: what stopped the pass (saves sent and changes applied
    ///   until then stay).
    @discardableResult
    public func sync() throws -> ReplicaStatus {
        let (running, target) = state.withLock { ($0.running, $0.passes + 2) }
        if running {
            container.core.commitSignal.bump()
            while true {
                let seen = events.current
                let (passes, status, stillRunning) = state.withLock {
                    ($0.passes, $0.status, $0.running && !$0.stopping)
                }
                if passes >= target || !stillRunning { return status }
                events.wait(after: seen, timeout: 1)
            }
        }
        let session: ReplicaSession
        do {
            session = try ReplicaSession(core: container.core, settings: settings())
        } catch {
            record(error, session: nil)
            throw error
        }
        defer { session.close() }
        do {
            // Until nothing moves: a pass applies one batch of the change log.
            while try pass(session, limit: Int.max) {}
            try session.downloader.flush()
            try refresh(session)
        } catch {
            record(error, session: session)
            throw error
        }
        return status
    }

    /// Where the replica stands (see ``ReplicaStatus``); the lag figures are those of the last
    /// pass.
    public var status: ReplicaStatus { state.withLock { $0.status } }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func settings() -> ReplicaSession.Settings {
        let report = options.onConflict
        return ReplicaSession.Settings(
            configuration: configuration, name: name,
            resolvers: state.withLock { $0.resolvers },
            report: { conflict in report?(conflict) })
    }

    /// Sends saves up (at most `limit`), then applies the transactions PostgreSQL has.
    /// - Returns: whether anything moved.
    @discardableResult
    private func pass(_ session: ReplicaSession, limit: Int) throws -> Bool {
        var moved = false
        var sent = 0
        while sent < limit, !isStopping, let changes = try session.uploadNext() {
            sent += 1
            moved = true
            state.withLock {
                $0.status.savesSent += 1
                $0.status.changesSent += changes
            }
        }
        if !isStopping, let (transactions, changes) = try session.downloadNext(stop: { isStopping })
        {
            moved = true
            state.withLock {
                $0.status.transactionsApplied += transactions
                $0.status.changesApplied += changes
            }
        }
        return moved
    }

    /// Updates the status from the session: pending saves, the lag, the position.
    private func refresh(_ session: ReplicaSession) throws {
        let (pending, oldest) = session.log.withLog { log in
            (log.unsent.count, log.unsent.first?.time)
        }
        let lag = try session.lag()
        let now = Date()
        state.withLock {
            $0.status.origin = Int(session.origin)
            $0.status.database = session.database.identifier
            $0.status.pendingSaves = pending
            $0.status.upLag = oldest.map { max(0, now.timeIntervalSince($0)) }
            $0.status.changesBehind = lag.behind
            $0.status.downLag = lag.oldest.map { max(0, now.timeIntervalSince1970 - $0) }
            $0.status.appliedPosition = session.downloader.position
            $0.status.checkedAt = now
        }
    }

    /// Records `error` as the last one, and in PostgreSQL's row of the replica when the
    /// session's connection still works (else at the next session).
    private func record(_ error: any Error, session: ReplicaSession?) {
        let text = (error as? LogbookError)?.description ?? "\(error)"
        state.withLock {
            $0.status.lastError = text
            $0.status.lastErrorAt = Date()
            $0.unreportedError = true
        }
        if let session { reportError(session) }
    }

    private func reportError(_ session: ReplicaSession) {
        let (text, pending) = state.withLock { ($0.status.lastError, $0.unreportedError) }
        guard pending, let text, !session.connection.isClosed,
            session.connection.transactionStatus == .idle
        else { return }
        if (try? session.connection.execute(
            "UPDATE logbook_sync.replicas SET last_error = $1, last_error_at = now() "
                + "WHERE origin = $2::integer", [.text(text), .int(Int64(session.origin))])) != nil
        {
            state.withLock { $0.unreportedError = false }
        }
    }

    // MARK: Threads

    private func runWorker() {
        var session: ReplicaSession?
        var failures = 0
        while !isStopping {
            do {
                if session == nil {
                    session = try ReplicaSession(core: container.core, settings: settings())
                    failures = 0
                    state.withLock { $0.status.isConnected = true }
                    reportError(session!)
                }
                let seen = container.core.commitSignal.current
                let moved = try pass(session!, limit: 256)
                if !moved {
                    try session!.downloader.flush()
                    try refresh(session!)
                    state.withLock { $0.passes += 1 }
                    events.bump()
                    if isStopping { break }
                    container.core.commitSignal.wait(after: seen, timeout: options.pollInterval)
                }
            } catch {
                record(error, session: session)
                session?.close()
                session = nil
                state.withLock {
                    $0.status.isConnected = false
                    $0.passes += 1
                }
                events.bump()
                if case .store(.closed) = error as? LogbookError { break }
                failures += 1
                pause(failures)
            }
        }
        if let session {
            do { try session.downloader.flush() } catch { record(error, session: session) }
            session.close()
        }
    }

    private func runListener() {
        var connection: PostgreSQLConnection?
        var failures = 0
        while !isStopping {
            do {
                if connection == nil {
                    let opened = try PostgreSQLConnection.connect(configuration)
                    connection = opened
                    try opened.listen(SyncCatalog.channel)
                    failures = 0
                    // Changes committed while it was away: the worker looks now.
                    container.core.commitSignal.bump()
                }
                if try connection!.nextNotification(timeout: .milliseconds(500)) != nil {
                    while try connection!.nextNotification(timeout: .zero) != nil {}
                    container.core.commitSignal.bump()
                }
            } catch {
                connection?.close()
                connection = nil
                failures += 1
                pause(failures)
            }
        }
        connection?.close()
    }

    /// Waits before attempt `failures + 1` (0.1 s, doubling, at most the maximum), or until
    /// the replica stops.
    private func pause(_ failures: Int) {
        let delay = min(options.maximumRetryDelay, 0.1 * pow(2, Double(min(failures - 1, 16))))
        let deadline = Date(timeIntervalSinceNow: delay)
        while true {
            let seen = events.current
            guard !isStopping, Date() < deadline else { return }
            events.wait(after: seen, timeout: deadline.timeIntervalSinceNow)
        }
    }
}

extension PostgreSQLReplica {
    /// Reads where the replica stands from both sides, without syncing or writing anything:
    /// what the store records (its origin, the position applied), what PostgreSQL records (the
    /// saves it holds, the last error a replica of this store reported there), the saves of
    /// the store not yet in PostgreSQL, and the change log's lag. Works on a container opened
    /// read-only, while another process syncs the store.
    /// - Throws: ``LogbookError/postgreSQL(_:)`` if PostgreSQL cannot be reached;
    ///   ``LogbookError/store(_:)``, ``LogbookError/corruptRecord(entity:key:reason:)``.
    public func checkStatus() throws -> ReplicaStatus {
        let core = container.core
        var status = ReplicaStatus()
        let local = try SyncRecords.replica(in: core.store)
        let down = try SyncRecords.down(in: core.store)
        status.origin = local.map { Int($0.origin) }
        status.database = local?.database
        status.appliedPosition = down?.position ?? 0
        let connection = try PostgreSQLConnection.connect(configuration)
        defer { connection.close() }
        var sent = down?.acknowledged ?? 0
        if try SyncSetup.isSetUp(connection), let store = core.storeIdentifier {
            let row = try connection.query(
                "SELECT up_sequence, last_error, extract(epoch FROM last_error_at)::float8 "
                    + "FROM logbook_sync.replicas WHERE store = $1::uuid",
                [.text(store.uuidString.lowercased())]
            ).rows.first
            if let row {
                sent = max(sent, UInt64(clamping: try row.decode(0, as: Int64.self)))
                status.lastError = try row.decode(1, as: String?.self)
                status.lastErrorAt = try row.decode(2, as: Double?.self).map {
                    Date(timeIntervalSince1970: $0)
                }
            }
            if local != nil {
                let lag = try ChangeLogReader(connection: connection).lag(
                    after: status.appliedPosition)
                status.changesBehind = lag.behind
                status.downLag = lag.oldest.map { max(0, Date().timeIntervalSince1970 - $0) }
            }
        }
        if let live = state.withLock({ $0.status.lastError }) { status.lastError = live }
        var reader = try ReplicaCommitReader(
            store: core.store, after: max(sent, try core.oldestHistorySequence()), values: false)
        var oldest: Date?
        while let commit = try reader.next() {
            guard case .save(_, let time, _) = commit else { continue }
            status.pendingSaves += 1
            if oldest == nil { oldest = time }
        }
        status.upLag = oldest.map { max(0, Date().timeIntervalSince($0)) }
        status.checkedAt = Date()
        return status
    }
}
