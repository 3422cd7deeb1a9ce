import Observation

/// What a context knows of one registered object.
struct ObjectEntry {
    var primaryKey: UInt64
    /// The object version of the stored record the values were read from or last saved as
    /// (0 for a new object).
    var version: UInt64
    /// The container's save generation when the values were read or last saved.
    var readGeneration: UInt64
    /// Bit i: stored field i (i < 63) changed since the last save; bit 63: a field at 63 or
    /// beyond did. Each changed field's saved value is in the table's change log once.
    var changedSlots: UInt64 = 0
    /// The entity's binding index.
    var entity: Int32
    var state: ObjectState
    /// Whether a persisted object has unsaved changes (it is then in the changed list).
    var isChanged = false
    /// Whether some attributes were not fetched (``FetchDescriptor/propertiesToFetch``): their
    /// fields hold placeholders, flagged in their `info` words, until the object is faulted in.
    /// Invariant: a partial object has no unsaved change (its first change faults it in).
    var isPartial = false
    /// Whether a stored object waits in its entity's `unindexed` list: it is then not in the
    /// registry yet, so letting it go removes nothing there.
    var awaitsIndexing = false
}

enum ObjectState: UInt8 {
    /// Inserted, never saved.
    case inserted
    /// Stored; `isChanged` says whether its values differ from the store.
    case persisted
    /// Deletion pending.
    case deleted
    /// Deleted in the store (by a save or a batch delete); the object still reports
    /// `isDeleted` while the app holds it. Not in the registry.
    case gone
    /// Not in use (the object was forgotten or pruned).
    case free
}

/// A context's registered objects: their entries, the registry by primary key, and the lists of
/// pending inserts, changes and deletes.
///
/// Ownership: the table holds every registered object strongly, and each object holds the
/// table through its anchor field (``FieldInfo``), so a registered object and its table live
/// together. The context breaks the cycle when it goes (``releaseAll()``). Objects that only
/// the table holds and that have no pending change are released in amortized batches
/// (``prune()``), so memory does not grow with objects the app no longer holds; those a fetch
/// registered without indexing go sooner, when the next fetch of their entity begins
/// (``releaseUnheldUnindexed(_:)``).
///
/// Entries are never reused while a pending list may name them: entries freed mid-transaction
/// are retired and become free when the lists are cleared by a save or rollback.
///
/// Not thread-safe: used on its context's thread. (Its storage skips Swift's dynamic
/// exclusivity checks: no method reenters another that mutates it.)
@usableFromInline
final class ObjectTable {
    /// The context, while it exists.
    weak var context: ModelContext?
    /// The container, for faulting in values a partial fetch left out, also after the context
    /// is gone. Set by the first partial fetch (``FetchDescriptor/propertiesToFetch``): from
    /// then on, objects of this table the app holds keep the container's store open.
    var core: ContainerCore?
    let bindings: [EntityBinding]
    /// Each binding's entity name, for identifiers made without touching the bindings.
    let entityNames: [String]
    /// Set on the table of key-path probe objects only.
    let probe: ProbeRecord?

    @exclusivity(unchecked) var entries: ContiguousArray<ObjectEntry> = []
    /// The entry numbered `e` (the numbers that registrations and the pending lists hold).
    @inline(__always) subscript(e: Int32) -> ObjectEntry {
        _read { yield entries[Int(e)] }
        _modify { yield &entries[Int(e)] }
    }
    @exclusivity(unchecked) var objects: ContiguousArray<AnyObject?> = []
    @exclusivity(unchecked) private var free: [Int32] = []
    @exclusivity(unchecked) private var retired: [Int32] = []
    /// Registered objects by entity, then primary key, except those indexing still waits for.
    @exclusivity(unchecked) var registry: [PrimaryKeyTable]
    /// Objects a fetch registered but not yet in `registry`, by entity: indexing waits until a
    /// lookup needs it.
    @exclusivity(unchecked) private var unindexed: [[Int32]]
    /// Pending inserts in insertion order; entries no longer `.inserted` are skipped.
    @exclusivity(unchecked) var inserted: [Int32] = []
    /// How many of `inserted` (from the front) are in `registry`: indexing inserts waits until
    /// a lookup needs it, so a bulk insert and save builds no hash table.
    @exclusivity(unchecked) var indexedInserts = 0
    @exclusivity(unchecked) var insertedCount = 0
    /// Inserts the app no longer held, already encoded for the next save (their objects are
    /// gone; see ``stageDroppedInserts(_:)``), and how many there are by entity.
    @exclusivity(unchecked) var staged = WriteBatch()
    @exclusivity(unchecked) var stagedCount: [Int]
    @exclusivity(unchecked) var stagedTotal = 0
    /// Where the next look for inserts to stage starts in `inserted`.
    @exclusivity(unchecked) var stagingCursor = 0
    /// Persisted objects changed since the last save, in the order first changed; entries no
    /// longer changed are skipped.
    @exclusivity(unchecked) var changed: [Int32] = []
    @exclusivity(unchecked) private(set) var changedCount = 0
    /// Pending deletes; entries no longer `.deleted` are skipped.
    @exclusivity(unchecked) var deleted: [Int32] = []
    @exclusivity(unchecked) private(set) var deletedCount = 0
    /// The saved value of each changed field, in the order first changed.
    @exclusivity(unchecked) var changeLog: [(entry: Int32, slot: Int32, value: AttributeValue)] = []
    /// Failed non-throwing writes, thrown by the next save.
    @exclusivity(unchecked) var failures: [Int32: LogbookError] = [:]
    /// Entries in use.
    @exclusivity(unchecked) var liveCount = 0
    @exclusivity(unchecked) private var pruneThreshold = ObjectTable.minimumPrune
    /// Set while a fetch builds objects only the table holds yet.
    @exclusivity(unchecked) private var pruningPaused = 0
    /// Hears of reads and changes of the context's objects (``ObservedProperties``).
    let registrar = ObservationRegistrar()
    /// The subject of the key paths in ``observed``, held here so a report retains nothing.
    let observedSubject = ObservedProperties.subject
    /// What reads and changes report, by entity and property.
    let observed: ObservedTable
    /// Set while the context wants to hear of the next change (to schedule an autosave).
    @exclusivity(unchecked) var reportsNextChange = false

    static let minimumPrune = 4096
    /// How many objects ahead a walk that removes many from the registry prefetches their slots.
    static let registryLookahead = 8

    init(bindings: [EntityBinding], probe: ProbeRecord? = nil) {
        self.bindings = bindings
        entityNames = bindings.map(\.entity.name)
        self.probe = probe
        observed = ObservedTable(bindings)
        registry = bindings.map { _ in PrimaryKeyTable() }
        unindexed = Array(repeating: [], count: bindings.count)
        stagedCount = Array(repeating: 0, count: bindings.count)
    }

    /// Whether anything is inserted, changed or deleted and not yet saved.
    var hasPendingChanges: Bool {
        insertedCount > 0 || stagedTotal > 0 || changedCount > 0 || deletedCount > 0
            || !failures.isEmpty
    }

    // MARK: Registering

    /// Registers `object` (already holding its values) and makes the table its owner.
    @discardableResult
    @inline(__always)
    func add(
        _ object: AnyObject, _ binding: EntityBinding, primaryKey: UInt64, state: ObjectState,
        version: UInt64, generation: UInt64, deferIndexing: Bool = false, unfetched: UInt64 = 0
    ) -> Int32 {
        if liveCount >= pruneThreshold && pruningPaused == 0 { prune() }
        let entry = ObjectEntry(
            primaryKey: primaryKey, version: version, readGeneration: generation,
            entity: Int32(binding.index), state: state)
        let e: Int32
        if let reused = free.popLast() {
            e = reused
            self[e] = entry
            objects[Int(e)] = object
        } else {
            e = Int32(entries.count)
            entries.append(entry)
            objects.append(object)
        }
        liveCount += 1
        binding.adopt(object, table: self, entry: e)
        if unfetched != 0 {
            binding.markUnfetched(object, unfetched)
            self[e].isPartial = true
        }
        if state == .inserted {
            inserted.append(e)
            insertedCount += 1
            if reportsNextChange { context?.changeWasMade() }
        } else if deferIndexing {
            unindexed[binding.index].append(e)
            self[e].awaitsIndexing = true
        } else {
            registry[binding.index].set(primaryKey, e)
        }
        return e
    }

    /// Makes room for `count` more objects (and, given `entity`, for them in its list of
    /// objects waiting for indexing).
    /// Grows geometrically, as appending does: a context fetching in a loop reserves again
    /// at every fetch, and growing each time by just what it asks would copy its lists each time.
    func reserve(_ count: Int, unindexed entity: Int? = nil) {
        func grow<C: RangeReplaceableCollection>(_ list: inout C, by more: Int, capacity: Int) {
            let needed = list.count + more
            if needed > capacity { list.reserveCapacity(max(needed, 2 * capacity)) }
        }
        let fresh = max(0, count - free.count)
        grow(&entries, by: fresh, capacity: entries.capacity)
        grow(&objects, by: fresh, capacity: objects.capacity)
        if let entity {
            grow(&unindexed[entity], by: count, capacity: unindexed[entity].capacity)
        }
    }

    /// Whether any object of `entity` is registered (indexed or not).
    func hasRegistered(_ entity: Int) -> Bool {
        registry[entity].count > 0 || !unindexed[entity].isEmpty || indexedInserts < inserted.count
            || stagedCount[entity] > 0
    }

    /// The entry of the registered object `pk` of `entity`, or -1.
    @inline(__always)
    func lookup(_ entity: Int, _ pk: UInt64) -> Int32 {
        if stagedCount[entity] > 0 { unstage() }
        if indexedInserts < inserted.count { indexInserts() }
        if !unindexed[entity].isEmpty { indexDeferred(entity) }
        return registry[entity].find(pk)
    }

    private func indexInserts() {
        for e in inserted[indexedInserts...] where self[e].state == .inserted {
            registry[Int(self[e].entity)].set(self[e].primaryKey, e)
        }
        indexedInserts = inserted.count
    }

    /// Whether entry `e` of `entity`'s `unindexed` list still waits there: a freed entry, or
    /// one reused since by another object, is left behind by whoever walks the list next.
    @inline(__always)
    private func waitsForIndexing(_ e: Int32, _ entity: Int) -> Bool {
        let entry = self[e]
        return entry.awaitsIndexing && entry.state != .free && entry.state != .gone
            && Int(entry.entity) == entity
    }

    private func indexDeferred(_ entity: Int) {
        let table = registry[entity]
        let pending = unindexed[entity]
        table.reserve(pending.count)
        // Each key's slot is a cache miss of its own: those a few keys ahead are loaded while
        // one is set.
        for (i, e) in pending.enumerated() {
            if i + Self.registryLookahead < pending.count {
                table.prefetch(self[pending[i + Self.registryLookahead]].primaryKey)
            }
            if waitsForIndexing(e, entity) {
                table.set(self[e].primaryKey, e)
                self[e].awaitsIndexing = false
            }
        }
        unindexed[entity].removeAll()
    }

    /// Makes entry `e`, which no list names any more, reusable.
    func freeEntry(_ e: Int32) { free.append(e) }

    // MARK: Changes

    /// Called (through a field's setter) before a value of a registered object changes: keeps
    /// the field's saved value and lists the object as changed.
    func willChange(_ e: Int32, slot: Int, object: AnyObject) {
        guard probe == nil else { return }
        if reportsNextChange { context?.changeWasMade() }
        let i = Int(e)
        // The saved value of a field not fetched is needed: fault the object in first.
        if entries[i].isPartial { fulfill(e, object) }
        noteChanged(e, slot: slot)
        switch entries[i].state {
        case .persisted:
            if !entries[i].isChanged {
                entries[i].isChanged = true
                changed.append(e)
                changedCount += 1
            }
        case .deleted: break
        case .inserted, .gone, .free: return
        }
        noteChange(e, slot: slot, object: object)
    }

    /// Marks field `slot` of entry `e` changed and logs its saved value, the first time; for a
    /// composite attribute, each of its fields too (assigning the property changes them all).
    private func noteChange(_ e: Int32, slot: Int, object: AnyObject) {
        let i = Int(e)
        let bit: UInt64 = slot < 63 ? 1 << UInt64(slot) : 1 << 63
        if entries[i].changedSlots & bit == 0 || slot >= 63 {
            if slot >= 63 && changeLog.contains(where: { $0.entry == e && $0.slot == slot }) {
                return
            }
            entries[i].changedSlots |= bit
            // Unretained: the table's bindings outlive this call.
            let fields = bindings.withUnsafeBufferPointer { bindings -> [Int]? in
                let binding = bindings[Int(entries[i].entity)]
                guard slot < binding.attributeCount else { return nil }
                changeLog.append((e, Int32(slot), binding.read(object, slot)))
                // Most entities have no composite: their changes skip the list of its fields.
                return binding.hasComposites ? binding.compositeFields[slot] : nil
            }
            for field in fields ?? [] { noteChange(e, slot: field, object: object) }
        }
    }

    /// Lists a persisted object as changed without a field (a failed write).
    func markChanged(_ e: Int32) {
        let i = Int(e)
        if entries[i].isPartial, let object = objects[i] { fulfill(e, object) }
        guard entries[i].state == .persisted, !entries[i].isChanged else { return }
        if reportsNextChange { context?.changeWasMade() }
        entries[i].isChanged = true
        changed.append(e)
        changedCount += 1
    }

    /// Marks the object deleted (pending); a changed object stops counting as changed.
    func markDeleted(_ e: Int32) {
        let i = Int(e)
        guard entries[i].state == .persisted else { return }
        if reportsNextChange { context?.changeWasMade() }
        if entries[i].isChanged {
            entries[i].isChanged = false
            changedCount -= 1
        }
        entries[i].state = .deleted
        deleted.append(e)
        deletedCount += 1
    }

    /// Drops the pending deletion of entry `e` (the store's state won, ``MergePolicy/storeWins``):
    /// the object is persisted and unchanged again, its values already the stored ones.
    func undelete(_ e: Int32) {
        let i = Int(e)
        guard entries[i].state == .deleted else { return }
        entries[i].state = .persisted
        deletedCount -= 1
        if entries[i].changedSlots != 0 { changeLog.removeAll { $0.entry == e } }
        entries[i].changedSlots = 0
        failures[e] = nil
    }

    /// A changed object whose values were refreshed from the store: no longer changed.
    func markClean(_ e: Int32) {
        let i = Int(e)
        if entries[i].isChanged {
            entries[i].isChanged = false
            changedCount -= 1
        }
        entries[i].changedSlots = 0
        changeLog.removeAll { $0.entry == e }
        failures[e] = nil
    }

    /// Forgets an object inserted and never saved: it leaves the context as if never inserted.
    func forget(_ e: Int32) {
        guard self[e].state == .inserted else { return }
        insertedCount -= 1
        failures[e] = nil
        detach(e)
    }

    /// Unregisters the object of entry `e`: its fields no longer name this table, the table no
    /// longer holds it, and the entry is retired.
    func detach(_ e: Int32) {
        unregister(e)
        retired.append(e)
    }

    /// Undoes the ``add(_:_:primaryKey:state:version:generation:deferIndexing:unfetched:)`` of
    /// a stored object that was never handed out (its record was missing or unreadable): no
    /// list names the entry, so it is free again at once.
    func retract(_ e: Int32) {
        unregister(e)
        free.append(e)
    }

    /// Lets go of entry `e`'s object: its fields no longer name this table, nor the registry it.
    private func unregister(_ e: Int32) {
        let i = Int(e)
        let entry = entries[i]
        if let object = objects[i] {
            bindings[Int(entry.entity)].adopt(object, table: nil, entry: -1)
        }
        registry[Int(entry.entity)].remove(entry.primaryKey, ifEntry: e)
        entries[i].state = .free
        objects[i] = nil
        liveCount -= 1
    }

    // MARK: Transaction end

    /// After a save: every pending insert and change is now stored (with `generation`), every
    /// pending delete gone; the lists clear.
    func didSave(generation: UInt64) {
        for (i, e) in inserted.enumerated() where self[e].state == .inserted {
            self[e].state = .persisted
            self[e].version += 1
            self[e].readGeneration = generation
            // Inserts not indexed yet are indexed when a lookup needs them, as fetched ones.
            if i >= indexedInserts {
                unindexed[Int(self[e].entity)].append(e)
                self[e].awaitsIndexing = true
            }
        }
        for e in changed where self[e].isChanged {
            self[e].version += 1
            self[e].readGeneration = generation
            self[e].isChanged = false
            self[e].changedSlots = 0
        }
        // Each object's registry slot is a cache miss of its own: the slots of the objects a
        // few places ahead are loaded while one leaves.
        for (i, e) in deleted.enumerated() {
            if i + Self.registryLookahead < deleted.count {
                let ahead = self[deleted[i + Self.registryLookahead]]
                registry[Int(ahead.entity)].prefetch(ahead.primaryKey)
            }
            if self[e].state == .deleted { markGone(e) }
        }
        clearLists()
    }

    /// The object's record is deleted in the store: it leaves the registry and its pending
    /// changes and deletion are dropped; it keeps reporting `isDeleted`.
    func markGone(_ e: Int32) {
        let i = Int(e)
        let entry = entries[i]
        switch entry.state {
        case .persisted:
            if entry.isChanged { changedCount -= 1 }
        case .deleted: deletedCount -= 1
        case .inserted, .gone, .free: return
        }
        if entry.changedSlots != 0 { changeLog.removeAll { $0.entry == e } }
        if !failures.isEmpty { failures[e] = nil }
        registry[Int(entry.entity)].remove(entry.primaryKey, ifEntry: e)
        entries[i].state = .gone
        entries[i].isChanged = false
        entries[i].changedSlots = 0
    }

    /// Discards every pending change: inserted objects are forgotten, deleted ones come back,
    /// changed ones get their saved values again.
    func rollback() {
        for e in inserted where self[e].state == .inserted { forget(e) }
        for change in changeLog.reversed() {
            let i = Int(change.entry)
            guard entries[i].state != .free, let object = objects[i] else { continue }
            bindings[Int(entries[i].entity)].write(object, Int(change.slot), change.value)
            noteChanged(change.entry, slot: Int(change.slot))
        }
        for e in changed where self[e].isChanged {
            self[e].isChanged = false
            self[e].changedSlots = 0
        }
        for e in deleted where self[e].state == .deleted {
            self[e].state = .persisted
            self[e].changedSlots = 0
        }
        clearLists()
    }

    private func clearLists() {
        inserted.removeAll()
        indexedInserts = 0
        stagingCursor = 0
        staged.removeAll()
        stagedTotal = 0
        for i in stagedCount.indices { stagedCount[i] = 0 }
        changed.removeAll()
        deleted.removeAll()
        insertedCount = 0
        changedCount = 0
        deletedCount = 0
        changeLog.removeAll()
        failures.removeAll()
        free.append(contentsOf: retired)
        retired.removeAll()
    }

    // MARK: Memory

    /// Releases the objects only the table holds that have no pending change, then sets the
    /// next threshold to twice what is left (amortized O(1) per registered object).
    func prune() {
        for i in entries.indices { releaseIfUnheld(i) }
        // The objects a fetch left unindexed and that are now released leave their lists, so
        // the next fetch does not walk them (nor, when none is left, look its matches up).
        for entity in unindexed.indices where !unindexed[entity].isEmpty {
            unindexed[entity].removeAll { !waitsForIndexing($0, entity) }
        }
        pruneThreshold = max(Self.minimumPrune, liveCount * 2)
    }

    /// Releases the objects of `released` that only the table holds and that have no pending
    /// change, as ``prune()`` does for all (``ModelContext/enumerate(_:batchSize:_:)`` lets go
    /// of each batch this way).
    func release(_ released: [Int32]) {
        for e in released { releaseIfUnheld(Int(e)) }
    }

    private func releaseIfUnheld(_ i: Int) {
        guard entries[i].state == .persisted && !entries[i].isChanged || entries[i].state == .gone,
            isKnownUniquelyReferenced(&objects[i])
        else { return }
        // Invariant: an object awaiting indexing is not in the registry.
        assert(
            !entries[i].awaitsIndexing
                || registry[Int(entries[i].entity)].find(entries[i].primaryKey) != Int32(i))
        if entries[i].state == .persisted && !entries[i].awaitsIndexing {
            registry[Int(entries[i].entity)].remove(entries[i].primaryKey)
        }
        entries[i].state = .free
        objects[i] = nil
        liveCount -= 1
        free.append(Int32(i))
    }

    /// Lets go of the objects of `entity` that wait for indexing and that only the table holds,
    /// with no pending change (those ``prune()`` would release), and drops them from the list;
    /// those still held stay waiting. A fetch of `entity` calls it first, so that it neither
    /// indexes objects nobody can ask for again nor looks each of its matches up among them.
    /// Does nothing while pruning is paused.
    /// - Complexity: O(objects of `entity` waiting for indexing).
    func releaseUnheldUnindexed(_ entity: Int) {
        guard pruningPaused == 0, !unindexed[entity].isEmpty else { return }
        var kept: [Int32] = []
        for e in unindexed[entity] where waitsForIndexing(e, entity) {
            releaseIfUnheld(Int(e))
            if self[e].state != .free { kept.append(e) }
        }
        unindexed[entity] = kept
    }

    /// Runs `body` with pruning held back, so objects registered during it stay registered
    /// until it returns even if nothing else holds them yet.
    func withPruningPaused<R>(_ body: () throws -> R) rethrows -> R {
        pruningPaused += 1
        defer { pruningPaused -= 1 }
        return try body()
    }

    /// Lets go of every object (the context is gone). Objects the app still holds keep the
    /// table, and so their entries, alive; their `modelContext` is `nil`.
    func releaseAll() {
        for i in objects.indices { objects[i] = nil }
    }

    /// The identifier of the object of entry `e`, or `nil` if the entry is free.
    @inline(__always)
    func identifier(of e: Int32) -> PersistentIdentifier? {
        // Read in place: through `withUnsafeBufferPointer` the list was retained.
        let entry = entries[Int(e)]
        guard entry.state != .free else { return nil }
        return PersistentIdentifier(
            entityName: entityNames[Int(entry.entity)], primaryKey: entry.primaryKey)
    }

    /// The registered objects with their entries, for counting and reflection.
    var registeredCount: Int { liveCount }
}

/// Where a probe object's getters report which field a key path read.
final class ProbeRecord {
    var slot = Int.min
    /// The key path of the field read last, from relationship getters; attribute getters do
    /// not make theirs (``KeyPathResolver`` tells an attribute's own key path by its values).
    var keyPath: AnyKeyPath?
    /// Every slot read since it was last cleared (a computed property may read several).
    var slots: [Int] = []

    func note(slot: Int, keyPath: AnyKeyPath?) {
        self.slot = slot
        self.keyPath = keyPath
        slots.append(slot)
    }
}

extension ObjectTable: CustomReflectable {
    /// Counts only: the registered objects are the app's to inspect.
    @usableFromInline var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "registered": liveCount, "inserted": insertedCount, "changed": changedCount,
                "deleted": deletedCount,
            ], displayStyle: .class)
    }
}

extension ObjectTable {
    /// Makes `value` the saved value of a changed field (a batch update rewrote the record
    /// under an unsaved change): what rollback restores.
    func replaceSavedValue(_ e: Int32, slot: Int, with value: AttributeValue) {
        if let i = changeLog.firstIndex(where: { $0.entry == e && $0.slot == Int32(slot) }) {
            changeLog[i].value = value
        }
    }

    /// Keeps a failed non-throwing write for the next save, and lists the object as changed.
    func recordFailure(_ error: LogbookError, _ e: Int32) {
        if failures[e] == nil { failures[e] = error }
        markChanged(e)
    }
}
