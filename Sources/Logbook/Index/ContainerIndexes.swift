import Foundation
import LogStore

/// The secondary indexes of a container, shared by all its contexts: for each entity, one
/// ``OrderedIndex`` per ``IndexDefinition``, holding the entries of the *stored* objects.
///
/// Exactness: every commit of the object layer goes through ``commit(_:applying:to:durability:)``, with
/// the difference the records the batch replaces or deletes make (``IndexDeltaBuilder``),
/// so the indexes follow the store commit by commit. Pending changes of a context are not in
/// them; fetches add those themselves. An entity whose records could not all be read when the
/// indexes were built (a damaged record) has no indexes: its fetches scan, and saves that need
/// its unique constraints throw the damage.
///
/// Thread safety: `Sendable`. Reads and the application of a commit take an internal lock;
/// ``commit(_:applying:to:durability:)`` and ``persist(to:schemaVersion:)`` must be called under the container's save lock.
final class ContainerIndexes: @unchecked Sendable {  // mutable state below is guarded by `lock`
    /// Per binding index: the entity's indexes (empty for none).
    let definitions: [[IndexDefinition]]
    /// Per binding index: the maker of its entries (`nil` for an entity without indexes).
    let makers: [IndexEntryMaker?]
    private let keyspaces: [String: Int]
    /// Per binding index: the entity's binding (to build its indexes again from its records).
    private let bindings: [EntityBinding]
    /// The store the indexes describe.
    private let store: LogStore
    private let lock = Locked<Void>(())
    /// Per binding index: the indexes, or `nil` while they are unavailable (see `failures`).
    // Unchecked exclusivity: read and written under `lock` only.
    @exclusivity(unchecked) private nonisolated(unsafe) var indexes: [[OrderedIndex]?]
    /// Why an entity's indexes are unavailable.
    private nonisolated(unsafe) var failures: [LogbookError?]
    /// Per binding index: for indexes read from the sidecar, what the checks of their chunks
    /// (each before its first use) found wrong; `nil` once settled (``settle(_:)``).
    // Unchecked exclusivity: read and written under `lock` only.
    @exclusivity(unchecked) private nonisolated(unsafe) var checks: [LoadedChunkCheck?]
    /// Per binding index: whether the check of its loaded chunks failed and its indexes could
    /// not be built either (its `failures` entry says why): then readers get none.
    // Unchecked exclusivity: read and written under `lock` only.
    @exclusivity(unchecked) private nonisolated(unsafe) var unavailable: [Bool]
    /// Per binding index: no stored record has a primary key above this, so a put above it
    /// replaces nothing (bulk inserts read no old records).
    private nonisolated(unsafe) var maxStoredKey: [UInt64]
    /// Whether the indexes changed since they were read from or written to the store's sidecar.
    private nonisolated(unsafe) var changed = false
    /// Set by a save into a streaming commit, which these indexes do not follow: then they are
    /// never written to the sidecar (the next open builds them).
    private nonisolated(unsafe) var unpersistable = false
    /// While ``commit(_:applying:to:durability:)`` runs: the store's last sequence number before its commit, so a
    /// reader can tell whether the store it sees has the commit the indexes do not have yet.
    // Unchecked exclusivity: read and written under `lock` only.
    @exclusivity(unchecked) private nonisolated(unsafe) var sequenceBeforeCommit: UInt64?
    /// What opening found about the sidecar, for the explanation of a slow open, or what the
    /// check of its chunks found (checked first if they were not yet).
    var sidecarNote: String? {
        lock.withLock { _ in
            checkAllLoaded()
            return note
        }
    }
    private nonisolated(unsafe) var note: String?
    /// ``sidecarNote`` as it stands, checking no chunk first (for the sidecar fuzz target).
    var sidecarNoteSoFar: String? { lock.withLock { _ in note } }
    /// Whether any entity's indexes in use are the ones read from the sidecar, their chunks
    /// still being checked at first use, checking no chunk first (for the sidecar fuzz target:
    /// `false` right after opening means every index was built from the records).
    var usesSidecarChunks: Bool { lock.withLock { _ in checks.contains { $0 != nil } } }
    /// Whether opening read every index from the sidecar (decoding no record) and all its
    /// chunks check (checked first if they were not yet).
    var readFromSidecar: Bool {
        lock.withLock { _ in
            checkAllLoaded()
            return allRead
        }
    }
    private nonisolated(unsafe) var allRead = false

    /// Whether any entity has an index.
    var isEmpty: Bool { makers.allSatisfy { $0 == nil } }
    /// The text indexes (``TextIndexSet``), guarded by the same lock.
    let text: TextIndexSet

    /// The indexes of `bindings`, read from the store's sidecar where it still describes the
    /// store, else built from the records.
    /// - Parameters:
    ///   - counters: the last primary key handed out, per binding.
    ///   - progress: told how each entity's build goes (``IndexBuildProgress``), on this thread.
    ///   - writesSidecar: whether indexes built from the records are written to the store's
    ///     sidecar as they are built and then used from it, as if read from it (for the
    ///     container's own writable store; see ``buildIntoSidecar(_:schemaVersion:progress:)``).
    init(
        bindings: [EntityBinding], store: LogStore, schemaVersion: UInt32, counters: [UInt64],
        progress: IndexBuildProgressHandler? = nil, writesSidecar: Bool = false
    ) {
        let definitions = bindings.map { IndexDefinition.all(of: $0.entity, binding: $0.index) }
        self.definitions = definitions
        makers = zip(definitions, bindings).map { definitions, binding in
            definitions.isEmpty ? nil : IndexEntryMaker(definitions: definitions, binding: binding)
        }
        var keyspaces: [String: Int] = [:]
        for binding in bindings where !definitions[binding.index].isEmpty {
            keyspaces[binding.keyspace] = binding.index
        }
        self.keyspaces = keyspaces
        self.bindings = bindings
        self.store = store
        indexes = definitions.map { $0.isEmpty ? [] : nil }
        failures = Array(repeating: nil, count: bindings.count)
        checks = Array(repeating: nil, count: bindings.count)
        unavailable = Array(repeating: false, count: bindings.count)
        maxStoredKey = counters
        text = TextIndexSet(bindings: bindings, store: store, schemaVersion: schemaVersion)
        guard !isEmpty else { return }
        let snapshot = IndexSnapshot.load(
            from: store, definitions: definitions, schemaVersion: schemaVersion)
        note = snapshot.note
        allRead = true
        var unread: [EntityBinding] = []
        for binding in bindings where !definitions[binding.index].isEmpty {
            let e = binding.index
            if let loaded = snapshot.indexes[e] {
                indexes[e] = loaded
                checks[e] = snapshot.checks[e]
                maxStoredKey[e] = max(maxStoredKey[e], snapshot.maxStoredKeys[e])
                continue
            }
            allRead = false
            unread.append(binding)
        }
        // Not after a salvage: the sidecar would not be used (it describes no store recovery
        // skipped bytes of), so the indexes would be built twice.
        if writesSidecar && !unread.isEmpty && store.recovery.skipped.isEmpty {
            buildIntoSidecar(unread, schemaVersion: schemaVersion, progress: progress)
        }
        for binding in unread where indexes[binding.index] == nil && failures[binding.index] == nil
        {
            let e = binding.index
            do {
                let (built, highest) = try build(binding, from: store, progress: progress)
                indexes[e] = built
                maxStoredKey[e] = max(maxStoredKey[e], highest)
                changed = true
            } catch let error as LogbookError {
                failures[e] = error
            } catch {
                failures[e] = .unsupportedPredicate(
                    "the indexes of \(binding.entity.name) could not be built: \(error)")
            }
        }
    }

    /// Builds the indexes of one entity from its stored records, telling `progress` how it
    /// goes (nothing for an entity without records).
    /// - Returns: the indexes and the highest primary key met.
    private func build(
        _ binding: EntityBinding, from store: LogStore,
        progress: IndexBuildProgressHandler? = nil
    ) throws -> ([OrderedIndex], UInt64) {
        var (runs, highest) = try gather(binding, from: store, progress: progress)
        let built = try runs.indices.map { try runs[$0].finish() }
        return (built, highest)
    }

    /// Reads the stored records of one entity into sorted runs of each of its indexes (spilled
    /// to `scratch` if given), telling `progress` how it goes (nothing for an entity without
    /// records).
    /// - Returns: the runs of each index and the highest primary key met.
    private func gather(
        _ binding: EntityBinding, from store: LogStore, spillingTo scratch: ScratchFile? = nil,
        progress: IndexBuildProgressHandler? = nil
    ) throws -> ([SortedRuns], UInt64) {
        // Invariant: called only for entities with indexes.
        let maker = makers[binding.index]!
        var lists = maker.emptyLists
        // Sorted in runs as they come, to bound the scratch memory (see `SortedRuns`).
        var runs = Array(repeating: SortedRuns(spillingTo: scratch), count: lists.count)
        var highest: UInt64 = 0
        var reporter: IndexBuildReporter?
        if let progress {
            let total = try wrapStoreErrors { try store.count(in: binding.keyspace) }
            if total > 0 {
                reporter = IndexBuildReporter(
                    handler: progress, entity: binding.entity.name,
                    indexes: definitions[binding.index].map(\.names), total: total)
            }
        }
        let runEntries = SortedRuns.runEntries
        try wrapStoreErrors {
            try store.forEach(in: binding.keyspace) { key, value in
                reporter?.advance()
                guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else {
                    throw LogbookError.corruptRecord(
                        entity: binding.entity.name, key: "\(key.count) bytes",
                        reason: "a key has 8 bytes")
                }
                highest = max(highest, pk)
                try maker.appendEntries(record: value, pk: pk, to: &lists)
                for i in lists.indices where lists[i].count >= runEntries {
                    try runs[i].add(&lists[i])
                }
            }
        }
        for i in lists.indices { try runs[i].add(&lists[i]) }
        lists = []
        reporter?.finish()
        return (runs, highest)
    }

    /// Builds the indexes of `unread` from their records into a new sidecar, with the indexes
    /// already loaded, and loads them from it: the runs are spilled to a scratch file and merged
    /// straight into the sidecar, so that neither they nor the indexes are held in memory (the
    /// indexes are then used from the mapped file, as after an open that reads them). Where this
    /// fails (a read-only store, a full disk), the entities it did not settle are left for the
    /// build in memory; an entity whose records cannot be read gets its failure.
    private func buildIntoSidecar(
        _ unread: [EntityBinding], schemaVersion: UInt32, progress: IndexBuildProgressHandler?
    ) {
        // The sidecar describes the store's last commit: the schema an open deferred first.
        try? store.commitDeferred()
        let sequence = store.lastSequence
        do {
            try store.withScratchFile { scratch in
                var runs: [Int: [SortedRuns]] = [:]
                for binding in unread {
                    let e = binding.index
                    do {
                        let (gathered, highest) = try gather(
                            binding, from: store, spillingTo: scratch, progress: progress)
                        runs[e] = gathered
                        maxStoredKey[e] = max(maxStoredKey[e], highest)
                    } catch let error as LogbookError {
                        guard case .corruptRecord = error else { throw error }
                        failures[e] = error
                    }
                }
                let sources: [[SnapshotIndexSource]?] = definitions.indices.map { e in
                    if let loaded = indexes[e] {
                        // Writing reads every chunk: checked first, and an entity whose chunks
                        // fail is left out (its indexes are built at its first use).
                        for index in loaded { index.checkAll() }
                        guard checks[e]?.problem == nil else { return nil }
                        return loaded.map(SnapshotIndexSource.init)
                    }
                    guard let entityRuns = runs[e] else { return nil }
                    return entityRuns.map { run in
                        var run = run
                        return SnapshotIndexSource { try run.merge($0) }
                    }
                }
                runs = [:]
                try wrapStoreErrors {
                    try store.writeSidecar(
                        named: IndexSnapshot.sidecarName, sequence: sequence
                    ) { output in
                        var sink = SidecarSink(output: output)
                        return try IndexSnapshot.write(
                            definitions: definitions, sources: sources,
                            maxStoredKeys: maxStoredKey, schemaVersion: schemaVersion, to: &sink)
                    }
                }
            }
        } catch {
            // Left for the build in memory (which meets the same damage, if that was it).
            for binding in unread { failures[binding.index] = nil }
            return
        }
        let written = IndexSnapshot.load(
            from: store, definitions: definitions, schemaVersion: schemaVersion)
        for binding in unread where failures[binding.index] == nil {
            let e = binding.index
            guard let loaded = written.indexes[e] else { continue }
            indexes[e] = loaded
            checks[e] = written.checks[e]
        }
    }

    /// After a use of `entity`'s indexes: if the check of a loaded chunk failed during it,
    /// builds them from the entity's records in place of the loaded ones (and the note says
    /// why), and returns `true`: what the use found must be found again. Called under the lock.
    @inline(__always)
    private func settle(_ entity: Int) -> Bool {
        guard let problem = checks[entity]?.problem else { return false }
        rebuild(entity, because: problem)
        return true
    }

    @inline(never)
    private func rebuild(_ entity: Int, because problem: String) {
        checks[entity] = nil
        allRead = false
        changed = true
        let name = bindings[entity].entity.name
        note =
            "the index sidecar is damaged (\(problem), in an index of \(name)): "
            + "the indexes of \(name) were built from the records"
        // Invariant: `checks` is set only for loaded indexes.
        let entityIndexes = indexes[entity]!
        // Built from the store as it is: a commit under way is either in it or not, and
        // applying its delta afterwards gives the same entries either way.
        do {
            let (built, highest) = try build(bindings[entity], from: store)
            for (index, rebuilt) in zip(entityIndexes, built) {
                index.replaceContents(with: rebuilt)
            }
            maxStoredKey[entity] = max(maxStoredKey[entity], highest)
        } catch {
            for index in entityIndexes { index.replaceContents(with: OrderedIndex()) }
            unavailable[entity] = true
            failures[entity] =
                (error as? LogbookError)
                ?? .unsupportedPredicate("the indexes of \(name) could not be built: \(error)")
        }
    }

    /// For a read-only container: takes in the commits another process made since
    /// (`LogStore.refresh(observing:)`, each whole) and, if any came, builds the indexes again
    /// from the records, all under the lock, so that no reader sees the records and the indexes
    /// of different states. `observe` sees each commit before it is applied.
    /// - Throws: ``LogbookError/store(_:)``; an entity whose indexes cannot be built has none
    ///   (its fetches scan), as at open.
    func refresh(observing observe: ((LoggedCommit) throws -> Void)?) throws -> RefreshReport {
        try lock.withLock { _ in
            let report = try wrapStoreErrors { try store.refresh(observing: observe) }
            guard report.commits > 0 || report.reloaded else { return report }
            for binding in bindings where !definitions[binding.index].isEmpty {
                let e = binding.index
                checks[e] = nil
                do {
                    let (built, highest) = try build(binding, from: store)
                    if let current = indexes[e] {
                        for (index, rebuilt) in zip(current, built) {
                            index.replaceContents(with: rebuilt)
                        }
                    } else {
                        indexes[e] = built
                    }
                    maxStoredKey[e] = max(maxStoredKey[e], highest)
                    failures[e] = nil
                    unavailable[e] = false
                } catch {
                    indexes[e]?.forEach { $0.replaceContents(with: OrderedIndex()) }
                    unavailable[e] = true
                    failures[e] =
                        (error as? LogbookError)
                        ?? .unsupportedPredicate(
                            "the indexes of \(binding.entity.name) could not be built: \(error)")
                }
            }
            return report
        }
    }

    /// Checks every loaded chunk not checked yet, and settles what they find.
    private func checkAllLoaded() {
        for entity in checks.indices where checks[entity] != nil {
            for index in indexes[entity] ?? [] { index.checkAll() }
            _ = settle(entity)
        }
    }

    /// The indexes of `entity`, or `nil` when it has none available. Called under the lock.
    @inline(__always)
    private func available(_ entity: Int) -> [OrderedIndex]? {
        unavailable[entity] ? nil : indexes[entity]
    }

    // MARK: Reading

    /// Runs `body` with the indexes of `entity` (in ``definitions`` order), or `nil` when the
    /// entity has none available, under the lock: `body` must not call the store or the
    /// container, and must only read and return what it found: when a chunk loaded from the
    /// sidecar fails its check during it, the indexes are built from the records and `body`
    /// runs again.
    func withIndexes<R>(of entity: Int, _ body: ([OrderedIndex]?) throws -> R) rethrows -> R {
        // Found again if a loaded chunk failed its check meanwhile (`body` only reads).
        try lock.withLock { _ in
            let result: R
            do {
                result = try body(available(entity))
            } catch {
                if settle(entity) { return try body(available(entity)) }
                throw error
            }
            return settle(entity) ? try body(available(entity)) : result
        }
    }

    /// Runs `body` under the lock with the indexes of `entity` (`nil` when it has none
    /// available) and a view of `keyspace` that shows the same state: every commit the indexes
    /// have applied and no other. `body` must not call the store or the container; it should
    /// only collect what it needs from the indexes (it may run twice, as ``withIndexes(of:_:)``
    /// says), and read records through the view after.
    ///
    /// A reader that meets a commit already in the store but not yet in the indexes waits for
    /// that commit to reach them (it is being applied, or its sync is running).
    /// - Throws: ``LogbookError/store(_:)``.
    func withView<R>(
        of entity: Int, keyspace: String, in store: LogStore,
        _ body: ([OrderedIndex]?, LogStore.KeyspaceView) throws -> R
    ) throws -> R {
        try withConsistentView(of: keyspace, in: store) { view in
            // Found again if a loaded chunk failed its check meanwhile.
            let result: R
            do {
                result = try body(available(entity), view)
            } catch {
                if settle(entity) { return try body(available(entity), view) }
                throw error
            }
            return settle(entity) ? try body(available(entity), view) : result
        }
    }

    /// ``withView(of:keyspace:in:_:)`` for the text index of `entity` (`nil` when it has
    /// none available).
    /// - Throws: ``LogbookError/store(_:)``, what `body` throws.
    func withTextView<R>(
        of entity: Int, keyspace: String, in store: LogStore,
        _ body: (TextIndex?, LogStore.KeyspaceView) throws -> R
    ) throws -> R {
        try withConsistentView(of: keyspace, in: store) { view in
            let result: R
            do {
                result = try body(text.available(entity), view)
            } catch {
                if text.settle(entity) { return try body(text.available(entity), view) }
                throw error
            }
            return text.settle(entity) ? try body(text.available(entity), view) : result
        }
    }

    /// Runs `read` under the lock with a view of `keyspace` in the state the indexes describe,
    /// waiting for a commit in the store that they do not have yet.
    private func withConsistentView<R>(
        of keyspace: String, in store: LogStore, _ read: (LogStore.KeyspaceView) throws -> R
    ) throws -> R {
        while true {
            let result: R? = try lock.withLock { _ in
                let view = try wrapStoreErrors { try store.view(of: keyspace) }
                if let before = sequenceBeforeCommit, view.sequence != before { return nil }
                return .some(try read(view))
            }
            if let result { return result }
            usleep(20)
        }
    }

    /// Why the text index of `entity` is unavailable, if it is.
    func textFailure(of entity: Int) -> LogbookError? {
        lock.withLock { _ in text.failures[entity] }
    }

    /// Runs `body` with the text indexes under the lock.
    func withLockedText<R>(_ body: (TextIndexSet) throws -> R) rethrows -> R {
        try lock.withLock { _ in try body(text) }
    }

    /// Whether `entity` has a unique constraint.
    func hasUniqueConstraints(_ entity: Int) -> Bool {
        definitions[entity].contains { $0.isUnique }
    }

    /// For each prefix, the first stored object (in index `index` of `entity`) whose entry
    /// starts with it and that is not in `excluding`; `nil` where there is none.
    func firstStored(
        _ entity: Int, index: Int, prefixes: [[UInt8]], excluding: Set<UInt64>
    ) -> [UInt64?] {
        func find() -> [UInt64?] {
            guard let ordered = available(entity)?[index] else {
                return Array(repeating: nil, count: prefixes.count)
            }
            return prefixes.map { prefix -> UInt64? in
                var found: UInt64?
                prefix.withUnsafeBytes { prefix in
                    ordered.forEach(from: ordered.lowerBound(prefix), to: ordered.end) { entry in
                        guard IndexBytes.hasPrefix(entry, prefix) else { return false }
                        let pk = IndexKey.primaryKey(entry)
                        if excluding.contains(pk) { return true }
                        found = pk
                        return false
                    }
                }
                return found
            }
        }
        return lock.withLock { _ in
            // Found again if a loaded chunk failed its check meanwhile.
            let found = find()
            return settle(entity) ? find() : found
        }
    }

    /// Why the indexes of `entity` are unavailable, if they are.
    func failure(of entity: Int) -> LogbookError? { lock.withLock { _ in failures[entity] } }

    // MARK: Writing

    /// Commits `batch` to `store` and applies `delta` and `text` (``IndexDeltaBuilder``,
    /// ``TextDeltaBuilder``, made from the same batch against the store as it is now) once the
    /// commit is visible. Call under the container's save lock, so the store cannot move
    /// between the deltas and the commit.
    /// - Returns: the commit's sequence number.
    /// - Throws: ``LogbookError/store(_:)``; the indexes are unchanged.
    func commit(
        _ batch: WriteBatch, applying delta: IndexDelta?, text textDelta: TextDelta? = nil,
        to store: LogStore, durability: Durability? = nil
    ) throws -> UInt64 {
        guard delta != nil || textDelta != nil else {
            return try wrapStoreErrors { try store.commit(batch, durability: durability) }
        }
        // Readers that meet the store ahead of the indexes wait for `apply` (see `view`).
        let before = store.lastSequence
        lock.withLock { _ in sequenceBeforeCommit = before }
        let sequence: UInt64
        do {
            sequence = try wrapStoreErrors { try store.commit(batch, durability: durability) }
        } catch {
            lock.withLock { _ in sequenceBeforeCommit = nil }
            throw error
        }
        lock.withLock { _ in
            if let delta { apply(delta) }
            if let textDelta {
                for (entity, highest) in textDelta.highest.enumerated() {
                    maxStoredKey[entity] = max(maxStoredKey[entity], highest)
                }
                text.apply(textDelta)
            }
            sequenceBeforeCommit = nil
        }
        return sequence
    }

    /// A collector of the postings a batch removes and adds, or `nil` if no entity has a text
    /// index. Call under the container's save lock.
    func textDeltaBuilder() -> TextDeltaBuilder? {
        lock.withLock { _ in
            text.isEmpty
                ? nil : TextDeltaBuilder(readers: text.trackedReaders, ceiling: maxStoredKey)
        }
    }

    /// A collector of the entries a batch removes and adds, or `nil` if no entity has an
    /// index. Call under the container's save lock.
    func deltaBuilder() -> IndexDeltaBuilder? {
        guard !isEmpty else { return nil }
        return IndexDeltaBuilder(owner: self, ceiling: lock.withLock { _ in maxStoredKey })
    }

    /// Whether `entity`'s indexes are available (read under the container's save lock, which
    /// every change of them that a commit must see also holds).
    func isAvailable(_ entity: Int) -> Bool { indexes[entity] != nil }

    /// Applies a committed delta. Called under the lock.
    private func apply(_ delta: IndexDelta) {
        for entity in delta.removals.indices {
            guard let entityIndexes = available(entity) else { continue }
            maxStoredKey[entity] = max(maxStoredKey[entity], delta.highest[entity])
            for (i, index) in entityIndexes.enumerated() {
                let removals = delta.removals[entity][i]
                let additions = delta.additions[entity][i]
                guard !removals.isEmpty || !additions.isEmpty else { continue }
                changed = true
                // Many changes: one merge pass; few: one by one.
                if removals.count + additions.count > max(index.count / 16, 64) {
                    index.rebuild(removing: removals.sorted(), adding: additions.sorted())
                } else {
                    removals.forEach { index.remove($0) }
                    additions.forEach { index.insert($0) }
                }
            }
            // A loaded chunk that failed its check meanwhile: built from the store, which
            // holds this commit already.
            _ = settle(entity)
        }
    }

    // MARK: Persisting

    /// Writes the indexes to the store's sidecar if they changed since it was read or
    /// written, so the next open reads them instead of building them. Call under the
    /// container's save lock, with the store open for writing.
    /// - Throws: ``LogbookError/store(_:)``.
    func persist(to store: LogStore, schemaVersion: UInt32) throws {
        try persistText(to: store, schemaVersion: schemaVersion)
        guard !isEmpty else { return }
        let contents: [UInt8]? = try lock.withLock { _ in
            guard changed, !unpersistable else { return nil }
            // Writing reads every chunk: check them all first.
            checkAllLoaded()
            return try IndexSnapshot.encode(
                definitions: definitions, indexes: indexes.indices.map { available($0) },
                maxStoredKeys: maxStoredKey, schemaVersion: schemaVersion)
        }
        guard let contents else { return }
        try wrapStoreErrors {
            try store.writeSidecar(
                named: IndexSnapshot.sidecarName, contents: contents, sequence: store.lastSequence)
        }
        lock.withLock { _ in changed = false }
    }

    /// Writes the text indexes to the store's text sidecar if they changed since it was read
    /// or written. Call as ``persist(to:schemaVersion:)``.
    /// - Throws: ``LogbookError/store(_:)``.
    private func persistText(to store: LogStore, schemaVersion: UInt32) throws {
        let contents: [UInt8]? = lock.withLock { _ in
            unpersistable ? nil : text.snapshot(schemaVersion: schemaVersion)
        }
        guard let contents else { return }
        try wrapStoreErrors {
            try store.writeSidecar(
                named: TextIndexSnapshot.sidecarName, contents: contents,
                sequence: store.lastSequence)
        }
        lock.withLock { _ in text.changed = false }
    }

    /// Keeps these indexes out of the sidecar for good: a save went into a streaming commit
    /// they do not follow.
    func stopPersisting() { lock.withLock { _ in unpersistable = true } }

    /// Entry counts and memory of every index, in schema order.
    func statistics() -> [IndexStatistics] {
        lock.withLock { _ in
            var result: [IndexStatistics] = []
            for (e, entityDefinitions) in definitions.enumerated() {
                for (i, definition) in entityDefinitions.enumerated() {
                    let index = indexes[e]?[i]
                    result.append(
                        IndexStatistics(
                            entity: definition.entityName, fields: definition.names,
                            isUnique: definition.isUnique, entries: index?.count ?? 0,
                            memoryBytes: index?.memoryBytes ?? 0))
                }
            }
            return result
        }
    }
}
