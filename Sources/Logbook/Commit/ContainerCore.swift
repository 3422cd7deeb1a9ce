import Foundation
import LogStore
import Synchronization

/// The state a container's contexts share. Contexts hold it strongly, so a context keeps the
/// store open even when the app no longer holds its ``ModelContainer``.
///
/// Thread safety: `Sendable`; mutable parts are behind locks or atomics.
final class ContainerCore: Sendable {
    let url: URL
    let schema: Schema
    let store: LogStore
    let bindings: [EntityBinding]
    /// The secondary indexes, shared by every context.
    let indexes: ContainerIndexes
    private let bindingByName: [String: Int]
    private let bindingByType: [ObjectIdentifier: Int]
    /// Last primary key handed out, per entity (a sub-entity's is its hierarchy root's).
    private let counters: Locked<[UInt64]>
    /// For each entity, the entity whose sequence its primary keys come from: the top of its
    /// hierarchy (itself, for an entity without a superentity).
    let keyRoots: [Int]
    /// For each entity, the entities that inherit from it (directly or not), in schema order.
    let descendants: [[Int]]
    /// Held while a save checks versions and commits.
    let saveLock = Locked<Void>(())
    /// Where commits are published to observers (``ModelContainer/changes()``).
    let changeHub = ChangeHub()
    /// Counts commits, for a replica waiting for the app's next save.
    let commitSignal = CommitSignal()
    /// The contexts whose pending changes ``ModelContainer/close()`` saves.
    let autosaves = AutosaveRegistry()
    /// Save bookkeeping that lets a save skip reading stored versions when no other context
    /// saved the entity since its objects were read.
    private let saveLog: Locked<SaveLog>
    private let nextContextSerial = Atomic<UInt64>(0)
    /// Mirrors `saveLog.generation` for lock-free reads.
    private let generation = Atomic<UInt64>(0)
    /// The container the app holds and its main context, while they exist.
    private let facade = Locked<(container: WeakBox<ModelContainer>, main: WeakBox<ModelContext>)>(
        (WeakBox(), WeakBox()))
    /// The store's identity in history tokens (`nil`: a store no Logbook that keeps history has
    /// written, opened read-only), and the sequence number its recorded history starts after.
    let storeIdentifier: UUID?
    let historySince: UInt64
    /// For the core of a context that shows a past state (``ModelContainer/context(asOf:)``):
    /// that state's token, and the core of the container it was made from.
    let pastState: (token: HistoryToken, of: ContainerCore)?

    /// Opens the store and settles its schema (see ``ModelContainer``): a stored schema is
    /// migrated, lightweight, through each of `steps` and then to `requested`, all in one
    /// commit. With `versionIdentifier` (a migration plan's newest version), that is recorded
    /// as the version the store is at. With `plan`, the steps are the schemas of the plan's
    /// versions after the one the store is at.
    /// - Throws: ``CustomStagesNeeded`` (having closed the store) when the plan's stages from
    ///   the store's version include custom code; what ``PlannedMigration/position(of:marker:)``
    ///   throws.
    /// `indexBuildProgress` hears how the build of indexes the store has no copy of goes.
    init(
        schema requested: Schema?, layouts: [ModelLayout], url: URL?, options: LogStoreOptions,
        through steps: [Schema] = [], versionIdentifier: String? = nil,
        plan: PlannedMigration? = nil, indexBuildProgress: IndexBuildProgressHandler? = nil
    ) throws {
        var steps = steps
        let versionIdentifier = versionIdentifier ?? plan.map { "\($0.newest.identifier)" }
        let url = url ?? ModelContainer.defaultURL
        try requested?.validate()
        if !options.readOnly && options.createIfMissing {
            // The engine makes the store's directory, not its parents (the default location's
            // parent may not exist yet). A failure here shows up as the engine's open error.
            try? options.fileSystem.makeDirectories(url.deletingLastPathComponent().path)
        }
        let options = Self.withHistoryRetention(options)
        let store = try wrapStoreErrors { try LogStore(path: url.path, options: options) }
        var history = try SchemaHistory.read(from: store)
        let isNew = history.current == nil
        if let plan, let current = history.current {
            do {
                steps = try Self.steps(of: plan, from: current, in: store, options: options)
            } catch {
                try? store.close()
                throw error
            }
        }
        var setup = WriteBatch()
        // Operations of a stored schema's lightweight migration (its versions and renames).
        var schemaWrites = 0
        var schema: Schema
        // Where history restarts when the migration gave objects new keys.
        var historyRestart: UInt64? = nil
        if let current = history.current {
            schema = current
            for step in steps + (requested.map { [$0] } ?? []) {
                var (next, renames) = try schema.migrated(to: step)
                guard next.fingerprint != schema.fingerprint || !renames.isEmpty else { continue }
                guard !options.readOnly else {
                    throw LogbookError.incompatibleSchema(
                        entity: step.entities.first?.name ?? "", attribute: nil,
                        reason: "the store was opened read-only, so its schema cannot be migrated")
                }
                next.version = schema.version + 1
                history.add(next, renames: renames)
                setup.put(
                    SchemaCodec.encode(
                        next, changedFields: history.changesFields(through: next.version)),
                    for: Keyspaces.schemaKey(version: next.version),
                    in: Keyspaces.schema)
                if !renames.isEmpty {
                    setup.put(
                        FieldRename.encode(renames),
                        for: Keyspaces.renamesKey(version: next.version), in: Keyspaces.meta)
                }
                schema = next
            }
            schemaWrites = setup.count
            if schema.version != current.version {
                try Self.checkNewUniqueConstraints(
                    from: current, to: schema, history: history, store: store)
                historyRestart = try Self.joinHierarchies(
                    from: current, to: schema, history: history, store: store, writing: &setup)
            }
        } else {
            guard let requested else {
                throw LogbookError.invalidSchema(
                    "the store at \(url.path) holds no schema; pass one")
            }
            schema = requested
            schema.version = 1
            history.add(schema)
            setup.put(
                SchemaCodec.encode(schema), for: Keyspaces.schemaKey(version: schema.version),
                in: Keyspaces.schema)
        }
        // The schema and the store's identity (history) are written in one commit.
        let (identifier, since) = try Self.settleIdentity(
            of: store, isNew: isNew, readOnly: options.readOnly, writing: &setup)
        storeIdentifier = identifier
        historySince = max(since, historyRestart ?? 0)
        // The version goes with a commit the open makes anyway: an open that changes nothing
        // writes nothing (which would make the index sidecar stale).
        var versionWritten = false
        if let versionIdentifier, !setup.isEmpty,
            try wrapStoreErrors({
                try store.get(Keyspaces.versionIdentifierKey, in: Keyspaces.meta)
            }) != Keyspaces.versionIdentifierValue(versionIdentifier)
        {
            setup.put(
                Keyspaces.versionIdentifierValue(versionIdentifier),
                for: Keyspaces.versionIdentifierKey,
                in: Keyspaces.meta)
            versionWritten = true
        }
        // A lightweight migration of a store's schema (and version) waits for the first write,
        // or the close: the open writes nothing, and until then the store is at its old version
        // to every reader (the records on disk are unchanged either way).
        if !isNew && schemaWrites > 0 && setup.count == schemaWrites + (versionWritten ? 1 : 0) {
            try wrapStoreErrors { try store.commitBeforeNextWrite(setup) }
        } else if !setup.isEmpty {
            try wrapStoreErrors { _ = try store.commit(setup) }
        }
        var bindings: [EntityBinding] = []
        var byType: [ObjectIdentifier: Int] = [:]
        for (i, entity) in schema.entities.enumerated() {
            let layout = layouts.first { $0.entity.name == entity.name }
            if let layout { byType[ObjectIdentifier(layout.modelType)] = i }
            let codec = RecordCodec(entity: entity, schemaVersion: schema.version, history: history)
            bindings.append(
                try EntityBinding(
                    index: i, entity: entity, codec: codec, layout: layout,
                    schema: schema.entities))
        }
        // Compaction writes older records in this version (they read the same).
        if !options.readOnly { store.setCompactionRewriter(RecordUpgrader(bindings.map(\.codec))) }
        var counters: [UInt64] = []
        for entity in schema.entities {
            let stored = try wrapStoreErrors {
                try store.get(Keyspaces.counterKey(entity.name), in: Keyspaces.meta)
            }
            counters.append(stored.flatMap(Keyspaces.number(ofValue:)) ?? 0)
        }
        let keyRoots = schema.entities.indices.map { schema.hierarchyRoot(of: $0) }
        for (i, root) in keyRoots.enumerated() { counters[root] = max(counters[root], counters[i]) }
        self.keyRoots = keyRoots
        descendants = schema.entities.indices.map { schema.descendants(of: $0) }
        pastState = nil
        self.url = url
        self.schema = schema
        self.store = store
        self.bindings = bindings
        self.indexes = ContainerIndexes(
            bindings: bindings, store: store, schemaVersion: schema.version, counters: counters,
            progress: indexBuildProgress, writesSidecar: !options.readOnly)
        self.bindingByName = Dictionary(
            uniqueKeysWithValues: schema.entities.enumerated().map { ($1.name, $0) })
        self.bindingByType = byType
        self.counters = Locked(counters)
        self.saveLog = Locked(
            SaveLog(entities: Array(repeating: SaveLog.Entry(), count: schema.entities.count)))
    }

    deinit { if pastState == nil { persistIndexes() } }

    /// The schemas of `plan`'s versions between the one a store holding `current` is at and the
    /// newest (which the caller opens with).
    /// - Throws: ``CustomStagesNeeded`` when the stages from there include custom code;
    ///   ``LogbookError/incompatibleSchema(entity:attribute:reason:)`` when there are stages to
    ///   run and the store is read-only; what ``PlannedMigration/position(of:marker:)`` throws.
    private static func steps(
        of plan: PlannedMigration, from current: Schema, in store: LogStore,
        options: LogStoreOptions
    ) throws -> [Schema] {
        let marker = try wrapStoreErrors {
            try store.get(Keyspaces.versionIdentifierKey, in: Keyspaces.meta)
        }.map(Keyspaces.versionIdentifier(ofValue:))
        let start = try plan.position(of: current, marker: marker)
        let last = plan.versions.count - 1
        guard start < last else { return [] }
        if options.readOnly {
            throw LogbookError.incompatibleSchema(
                entity: current.entities.first?.name ?? "", attribute: nil,
                reason:
                    "the store is at version \(plan.versions[start].identifier) and was opened read-only, so it cannot be migrated to \(plan.newest.identifier)"
            )
        }
        if plan.stages[start...].contains(where: \.isCustom) {
            throw CustomStagesNeeded(start: start)
        }
        return plan.versions[(start + 1)..<last].map(\.schema)
    }

    /// `options`, with the history retention every container opens its store with.
    static func withHistoryRetention(_ options: LogStoreOptions) -> LogStoreOptions {
        var options = options
        if options.historyRetention == nil {
            options.historyRetention = { try HistoryRetention.retainedSequence(in: $0) }
        }
        return options
    }

    /// The core of a read-only context over `store`, a snapshot of `core`'s store at `token`.
    convenience init(pastOf core: ContainerCore, store: LogStore, token: HistoryToken) {
        // Built from the past state's records (the sidecar describes the present).
        self.init(sharing: core, store: store, pastState: (token, core))
    }

    /// A core over `core`'s own open store whose indexes are read again from the store's index
    /// sidecar, as an open reads them (``ContainerIndexes``: from the sidecar where it describes
    /// the store, else built from the records), without opening the store again: for the
    /// `sidecar` fuzz target (Tests/Fuzz/README.md), which reads one sidecar an input. Use it
    /// only over a read-only store, and never close its container (the store is `core`'s).
    convenience init(readingIndexesAgainOf core: ContainerCore) {
        self.init(sharing: core, store: core.store, pastState: nil)
    }

    /// A core with `core`'s schema and bindings over `store`, with indexes of its own.
    private init(
        sharing core: ContainerCore, store: LogStore,
        pastState: (token: HistoryToken, of: ContainerCore)?
    ) {
        url = core.url
        schema = core.schema
        self.store = store
        bindings = core.bindings
        bindingByName = core.bindingByName
        bindingByType = core.bindingByType
        keyRoots = core.keyRoots
        descendants = core.descendants
        counters = Locked(core.counters.withLock { $0 })
        indexes = ContainerIndexes(
            bindings: core.bindings, store: store, schemaVersion: core.schema.version,
            counters: core.counters.withLock { $0 })
        saveLog = Locked(
            SaveLog(entities: Array(repeating: SaveLog.Entry(), count: schema.entities.count)))
        storeIdentifier = core.storeIdentifier
        historySince = core.historySince
        self.pastState = pastState
    }

    /// The main context still alive from an earlier container of this core, if any.
    var existingMainContext: ModelContext? { facade.withLock { $0.main.value } }

    /// Records the container the app holds and its main context (weakly: they hold the core).
    func adopt(facade container: ModelContainer, main: ModelContext) {
        facade.withLock {
            $0.container.value = container
            $0.main.value = main
        }
    }

    /// The container the app holds, or a new one over this core if the app let it go.
    var container: ModelContainer {
        if let pastState { return pastState.of.container }
        if let known = facade.withLock({ $0.container.value }) { return known }
        return ModelContainer(core: self)
    }

    /// The position in ``bindings`` of the entity whose records `keyspace` holds, if any.
    @inline(__always)
    func bindingIndex(ofKeyspace keyspace: String) -> Int? { bindingByName[keyspace] }

    func binding(named name: String) throws -> EntityBinding {
        guard let i = bindingByName[name] else { throw LogbookError.unknownEntity(name) }
        return bindings[i]
    }

    func binding(for type: any PersistentModel.Type) throws -> EntityBinding {
        guard let i = bindingByType[ObjectIdentifier(type)] else {
            throw LogbookError.unknownEntity(type.entityName)
        }
        return bindings[i]
    }

    /// A new primary key for the entity, never handed out before in this store nor to another
    /// entity of its hierarchy.
    func nextPrimaryKey(_ entity: Int) -> UInt64 {
        let root = keyRoots[entity]
        return counters.withLock {
            $0[root] += 1
            return $0[root]
        }
    }

    /// Raises the sequence of `entity`'s hierarchy to at least `key`, which the caller hands
    /// out itself; returns `key`.
    func raisePrimaryKey(_ entity: Int, to key: UInt64) -> UInt64 {
        let root = keyRoots[entity]
        counters.withLock { $0[root] = max($0[root], key) }
        return key
    }

    /// The last primary key handed out in the sequence of `entity` (a hierarchy root).
    func lastPrimaryKey(_ entity: Int) -> UInt64 { counters.withLock { $0[keyRoots[entity]] } }

    /// Raises every entity's counter to at least `floor` (call under the save lock, with
    /// `batch` committed next): a replica's new objects get identifiers from its own block.
    /// Adds the raised counters to `batch`.
    func raiseCounters(to floor: UInt64, into batch: inout WriteBatch) {
        let raised = counters.withLock { counters -> [Int] in
            var raised: [Int] = []
            for e in counters.indices where counters[e] < floor {
                counters[e] = floor
                raised.append(e)
            }
            return raised
        }
        for e in raised {
            batch.put(
                Keyspaces.numberValue(floor), for: Keyspaces.counterKey(bindings[e].entity.name),
                in: Keyspaces.meta)
        }
    }

    /// A number naming a new context as a saver.
    func makeContextSerial() -> UInt64 { nextContextSerial.add(1, ordering: .relaxed).newValue }

    /// The number of saves so far; objects remember it when read.
    var saveGeneration: UInt64 { generation.load(ordering: .acquiring) }

    /// The generation of the newest save of `entity` by a context other than `saver` (0: none).
    func latestForeignSave(of entity: Int, saver: UInt64) -> UInt64 {
        saveLog.withLock { log in
            let entry = log.entities[entity]
            return entry.latestSaver == saver ? entry.previousForeign : entry.latest
        }
    }

    /// Records a committed save of `entities` by `saver`; returns its generation.
    func recordSave(of entities: Set<Int>, saver: UInt64) -> UInt64 {
        saveLog.withLock { log in
            log.generation += 1
            for e in entities {
                if log.entities[e].latestSaver != saver {
                    log.entities[e].previousForeign = log.entities[e].latest
                    log.entities[e].latestSaver = saver
                }
                log.entities[e].latest = log.generation
            }
            generation.store(log.generation, ordering: .releasing)
            return log.generation
        }
    }
}

/// Which context saved each entity last, and when.
struct SaveLog {
    struct Entry {
        /// Generation of the newest save of the entity (0: none).
        var latest: UInt64 = 0
        /// The context that made it.
        var latestSaver: UInt64 = 0
        /// Generation of the newest save by a context other than `latestSaver`.
        var previousForeign: UInt64 = 0
    }
    var generation: UInt64 = 0
    var entities: [Entry]
}

/// A weak reference, for keeping one inside a lock.
final class WeakBox<Object: AnyObject>: @unchecked Sendable {  // guarded by its owner's lock
    weak var value: Object?
    init(_ value: Object? = nil) { self.value = value }
}
