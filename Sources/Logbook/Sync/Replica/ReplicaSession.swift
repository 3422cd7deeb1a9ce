import Foundation
import LogStore

/// A connection to the database made ready to sync one store: the database set up (the first
/// time) and checked, the replica registered, its first exchange done (the store's objects up,
/// the database's objects down), and the uploader and downloader positioned where PostgreSQL
/// and the store say they stopped. Everything is read again at each open, so a session after
/// a crash, a kill or a lost connection goes on exactly where the last one really stopped.
///
/// Not thread-safe: used from the replica's one worker thread.
final class ReplicaSession {
    let connection: PostgreSQLConnection
    let core: ContainerCore
    let database: SyncDatabase
    let origin: Int32
    let log: LocalLogAccess
    let uploader: Uploader
    let downloader: Downloader
    private let changeLog: ChangeLogReader
    /// The store's commits after PostgreSQL's watermark, read for their contents as they go up.
    private var contents: ReplicaCommitReader

    /// What the replica needs beyond the container.
    struct Settings {
        var configuration: PostgreSQLConfiguration
        var name: String
        var resolvers: [String: @Sendable (SyncConflict) -> SyncResolution]
        var report: @Sendable (SyncConflictReport) -> Void
    }

    /// Connects and prepares (see ``ReplicaSession``).
    /// - Throws: ``LogbookError/postgreSQL(_:)``, ``LogbookError/sync(_:)``,
    ///   ``LogbookError/store(_:)``.
    init(core: ContainerCore, settings: Settings) throws {
        let connection = try PostgreSQLConnection.connect(settings.configuration)
        do {
            try connection.simpleQuery("SET standard_conforming_strings = on")
            if try !SyncSetup.isSetUp(connection) {
                try SyncSetup.run(connection, schema: core.schema)
            }
            let database = try SyncSetup.check(connection, schema: core.schema)
            let store = try core.requireStoreIdentifier()
            let local = try SyncRecords.replica(in: core.store)
            if let local, local.database != database.identifier {
                throw LogbookError.sync(
                    .otherDatabase(
                        expected: local.database.uuidString.lowercased(),
                        found: database.identifier.uuidString.lowercased()))
            }
            var registration = try ReplicaRegistration.read(connection, store: store)
            if registration == nil {
                if local != nil {
                    // The store synced with this database, which no longer knows it.
                    throw LogbookError.sync(
                        .databaseBehind(
                            store: try SyncRecords.down(in: core.store)?.acknowledged ?? 0,
                            database: 0))
                }
                registration = try ReplicaRegistration.register(
                    connection, store: store, name: settings.name)
            }
            let origin = registration!.origin
            try connection.execute(
                "UPDATE logbook_sync.replicas SET name = $1, seen_at = now() WHERE origin = $2::integer",
                [.text(settings.name), .int(Int64(origin))])
            let author = "replica:" + settings.name
            if local == nil {
                try Self.join(
                    core, connection, database, origin: origin, store: store, author: author,
                    settings: settings)
                registration = try ReplicaRegistration.read(connection, store: store)
            }
            guard let registration else {
                throw LogbookError.sync(
                    .unsupportedDatabase(reason: "the replica's registration disappeared"))
            }
            let down = try SyncRecords.down(in: core.store)
            let acknowledged = down?.acknowledged ?? registration.upSequence
            guard acknowledged <= registration.upSequence else {
                throw LogbookError.sync(
                    .databaseBehind(store: acknowledged, database: registration.upSequence))
            }
            var stamps: [UInt64: UInt64] = [:]
            try connection.query(
                "SELECT sequence, stamp FROM logbook_sync.changes WHERE op = 'm' "
                    + "AND origin = $1::integer AND sequence > $2::bigint",
                [.int(Int64(origin)), .int(Int64(clamping: acknowledged))]
            ) { row in
                stamps[UInt64(clamping: try row.decode(0, as: Int64.self))] = UInt64(
                    clamping: try row.decode(1, as: Int64.self))
            }
            let log = LocalLogAccess(
                try LocalLog(
                    store: core.store, acknowledged: acknowledged,
                    sentThrough: registration.upSequence, clock: registration.upClock,
                    knowledge: registration.upKnowledge, sentStamps: stamps))
            let downloader = Downloader(
                core: core, origin: origin, database: database, log: log, connection: connection,
                down: down
                    ?? SyncRecords.Down(position: 0, acknowledged: acknowledged, clock: 0))
            if down == nil {
                try Self.firstDownload(
                    core, connection, database, origin: origin, acknowledged: acknowledged,
                    downloader)
            }
            self.connection = connection
            self.core = core
            self.database = database
            self.origin = origin
            self.log = log
            self.downloader = downloader
            uploader = Uploader(
                connection: connection, origin: origin, author: author, database: database,
                resolvers: settings.resolvers, report: settings.report)
            changeLog = ChangeLogReader(connection: connection, echoesOf: origin)
            contents = try ReplicaCommitReader(
                store: core.store, after: max(registration.upSequence, acknowledged),
                values: true)
        } catch {
            connection.close()
            throw error
        }
    }

    func close() { connection.close() }

    // MARK: Up

    /// Sends the next save not yet in PostgreSQL, if there is one.
    /// - Returns: the number of objects it changed, or `nil` if no save waits.
    func uploadNext() throws -> Int? {
        guard
            let save = try log.withLog({ log -> LocalLog.Save? in
                try log.catchUp()
                return log.unsent.first
            })
        else { return nil }
        // Only what the disk holds goes up: a save a power loss could still take back must
        // not reach other replicas.
        try wrapStoreErrors { try core.store.waitUntilDurable(save.sequence) }
        var changes: [HistoryChange]?
        while changes == nil, let commit = try contents.next() {
            if commit.sequence > save.sequence { break }
            if commit.sequence == save.sequence, case .save(_, _, let found) = commit {
                changes = found
            }
        }
        guard let changes else {
            throw LogbookError.sync(
                .historyLost(reason: "the save \(save.sequence) is not in the log where expected"))
        }
        let objects = try ObjectChange.collapse(changes, in: database)
        _ = try uploader.upload(save, changes: objects)
        log.withLog { $0.sent(through: save.sequence) }
        return objects.count
    }

    // MARK: Down

    /// Applies the next transactions committed in PostgreSQL, if there are any, until `stop`
    /// says so (between transactions).
    /// - Returns: the transactions read and the objects they changed in the store, or `nil`
    ///   if there was none.
    func downloadNext(stop: () -> Bool) throws -> (transactions: Int, changes: Int)? {
        let groups = try changeLog.transactions(after: downloader.position)
        guard !groups.isEmpty else { return nil }
        var changes = 0
        var transactions = 0
        for group in groups {
            if stop() { break }
            changes += try downloader.apply(group)
            transactions += 1
        }
        return (transactions, changes)
    }

    /// The change log's lag behind the position applied.
    func lag() throws -> (behind: Int, oldest: Double?) {
        let lag = try changeLog.lag(after: downloader.position)
        return (lag.behind, lag.oldest)
    }

    // MARK: First exchange

    /// Joins the database: the store's objects go up as one transaction (rows with the same
    /// identifiers taken to be the same objects), or, for a store without objects, the
    /// watermark moves past its saves; then the store records the database and its origin,
    /// and its counters move into the origin's block of identifiers.
    private static func join(
        _ core: ContainerCore, _ connection: PostgreSQLConnection, _ database: SyncDatabase,
        origin: Int32, store: UUID, author: String, settings: Settings
    ) throws {
        let (sequence, objects) = try core.saveLock.withLock { _ in
            (core.store.lastSequence, try storedObjects(core, database))
        }
        let stamp = HybridClock.stamp(at: Date(), after: 0)
        if !objects.isEmpty {
            try connection.execute(
                "UPDATE logbook_sync.database SET seed_store = $1::uuid WHERE seed_store IS NULL",
                [.text(store.uuidString.lowercased())])
            let seed = try connection.query("SELECT seed_store::text FROM logbook_sync.database")
            let holder = try seed.rows.first?.decode(0, as: String?.self)
            guard holder.flatMap({ UUID(uuidString: $0) }) == store else {
                throw LogbookError.sync(.seededByAnotherStore(store: holder ?? "unknown"))
            }
            let uploader = Uploader(
                connection: connection, origin: origin, author: author, database: database,
                resolvers: [:], report: settings.report)
            _ = try uploader.upload(
                LocalLog.Save(sequence: sequence, stamp: stamp, knowledge: 0, time: Date()),
                changes: objects)
        } else if sequence > 0 {
            try connection.execute(
                """
                UPDATE logbook_sync.replicas SET up_sequence = $1::bigint, up_clock = $2::bigint
                WHERE origin = $3::integer AND up_sequence < $1::bigint
                """,
                [.int(Int64(sequence)), .int(Int64(stamp)), .int(Int64(origin))])
        }
        try core.saveLock.withLock { _ in
            var batch = WriteBatch()
            batch.put(
                SyncRecords.Replica(database: database.identifier, origin: origin).encoded,
                for: SyncRecords.replicaKey, in: SyncRecords.keyspace)
            core.raiseCounters(to: SyncCatalog.blockStart(origin: origin), into: &batch)
            try wrapStoreErrors { _ = try core.store.commit(batch) }
        }
    }

    /// Every object of the store's synced entities, as inserts.
    private static func storedObjects(_ core: ContainerCore, _ database: SyncDatabase) throws
        -> [ObjectChange]
    {
        var objects: [ObjectChange] = []
        for binding in core.bindings {
            guard let entity = database.entities[binding.entity.name] else { continue }
            try wrapStoreErrors {
                try core.store.forEach(in: binding.keyspace) { key, value in
                    guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else { return }
                    var values = binding.stored.attributes.map(\.initialValue)
                    _ = try binding.codec.decode(value, key: String(pk)) { values[$0] = $1 }
                    var ordered = [AttributeValue](repeating: .null, count: entity.fields.count)
                    for (i, field) in binding.stored.attributes.enumerated() {
                        if let j = entity.fieldIndex[field.name] { ordered[j] = values[i] }
                    }
                    objects.append(
                        ObjectChange(
                            entity: entity, id: pk, kind: .insert,
                            changed: Array(entity.fields.indices), values: ordered))
                }
            }
        }
        return objects
    }

    /// Rows per commit of a first download.
    static let downloadPiece = 5_000

    /// Makes the store's objects the database's, as of one snapshot of it: every row read in
    /// one repeatable-read transaction with the change-log position it reflects, applied in
    /// pieces; the last piece records that position, from which the change log goes on.
    /// Objects of the store the database lacks are deleted, except this replica's own new
    /// ones (identifiers in its block: not sent yet).
    private static func firstDownload(
        _ core: ContainerCore, _ connection: PostgreSQLConnection, _ database: SyncDatabase,
        origin: Int32, acknowledged: UInt64, _ downloader: Downloader
    ) throws {
        var position: UInt64 = 0
        var entries: [ChangeEntry] = []
        try connection.transaction(isolation: .repeatableRead) {
            let top = try connection.query(
                "SELECT coalesce(max(position), 0) FROM logbook_sync.changes")
            position = UInt64(clamping: try top.rows.first?.decode(0, as: Int64.self) ?? 0)
            for binding in core.bindings {
                guard let entity = database.entities[binding.entity.name] else { continue }
                var present = Set<UInt64>()
                try connection.query(
                    "SELECT \"id\", \(entity.canonicalColumns) FROM \(entity.table) ORDER BY \"id\""
                ) { row in
                    let id = UInt64(clamping: try row.decode(0, as: Int64.self))
                    present.insert(id)
                    var values: [String?] = []
                    values.reserveCapacity(entity.fields.count)
                    for i in entity.fields.indices {
                        values.append(try row.decode(i + 1, as: String?.self))
                    }
                    entries.append(ChangeEntry(snapshotOf: entity, id: id, values: values))
                }
                let own = SyncCatalog.blockStart(origin: origin)
                for key in try wrapStoreErrors({ try core.store.keys(in: binding.keyspace) }) {
                    guard let pk = key.withUnsafeBytes({ Keyspaces.primaryKey(ofObjectKey: $0) }),
                        !present.contains(pk),
                        pk <= own || pk >= own + (1 << SyncCatalog.blockBits)
                    else { continue }
                    entries.append(ChangeEntry(snapshotOf: entity, id: pk, values: nil))
                }
            }
        }
        var start = 0
        repeat {
            let end = min(start + downloadPiece, entries.count)
            let last = end == entries.count
            try downloader.applySnapshot(
                Array(entries[start..<end]),
                final: last
                    ? SyncRecords.Down(position: position, acknowledged: acknowledged, clock: 0)
                    : nil)
            start = end
        } while start < entries.count
    }
}

/// A replica's row in `logbook_sync.replicas`.
struct ReplicaRegistration {
    var origin: Int32
    var upSequence: UInt64
    var upClock: UInt64
    var upKnowledge: UInt64

    static func read(_ connection: PostgreSQLConnection, store: UUID) throws -> ReplicaRegistration?
    {
        let result = try connection.query(
            "SELECT origin, up_sequence, up_clock, up_knowledge FROM logbook_sync.replicas "
                + "WHERE store = $1::uuid", [.text(store.uuidString.lowercased())])
        guard let row = result.rows.first else { return nil }
        return ReplicaRegistration(
            origin: Int32(clamping: try row.decode(0, as: Int64.self)),
            upSequence: UInt64(clamping: try row.decode(1, as: Int64.self)),
            upClock: UInt64(clamping: try row.decode(2, as: Int64.self)),
            upKnowledge: UInt64(clamping: try row.decode(3, as: Int64.self)))
    }

    /// Registers `store` with the next origin number.
    static func register(_ connection: PostgreSQLConnection, store: UUID, name: String) throws
        -> ReplicaRegistration
    {
        try connection.execute(
            """
            INSERT INTO logbook_sync.replicas (origin, store, name)
            VALUES (nextval('logbook_sync.origins'), $1::uuid, $2) ON CONFLICT (store) DO NOTHING
            """, [.text(store.uuidString.lowercased()), .text(name)])
        guard let registration = try read(connection, store: store) else {
            throw LogbookError.sync(
                .unsupportedDatabase(
                    reason: "a replica could not register in logbook_sync.replicas"))
        }
        return registration
    }
}
