/// Tracks inserted, changed and deleted objects and writes them to the store atomically on
/// ``save()``; fetches objects, giving one instance per identifier.
///
/// Semantics (DESIGN.md): identifiers are permanent at ``insert(_:)``; fetches see pending
/// changes unless told otherwise; ``save()`` is one atomic commit and, if it throws, leaves
/// the store as it was and the changes pending; ``rollback()`` restores saved values.
///
/// Thread safety: not thread-safe. Use a context on one thread or actor; make one per thread
/// from the shared ``ModelContainer``. The context keeps its container open. (Its tables skip
/// Swift's dynamic exclusivity checks: no method reenters another that mutates them.)
public final class ModelContext {
    private let strongContainer: ModelContainer?
    private unowned let unownedContainer: ModelContainer
    /// Registered objects by entity, then primary key. An entry whose backing is referenced
    /// only from here belongs to an object that no longer exists.
    @exclusivity(unchecked) var registry: [[UInt64: ModelBacking]]
    /// Inserted objects not yet in `registry`, by entity: indexing them waits until a lookup
    /// needs it, so a bulk insert and save builds no hash table.
    @exclusivity(unchecked) var unindexed: [[ModelBacking]]
    /// Inserted objects in insertion order; entries whose state is no longer `.inserted` are
    /// skipped (``insertedCount`` counts the live ones).
    @exclusivity(unchecked) var insertedList: [ModelBacking] = []
    @exclusivity(unchecked) var insertedCount = 0
    @exclusivity(unchecked) var changed: [ObjectIdentifier: ModelBacking] = [:]
    @exclusivity(unchecked) var deleted: [ObjectIdentifier: ModelBacking] = [:]
    /// Errors of non-throwing calls, thrown by the next save.
    var failures: [LogbookError] = []
    /// The binding of the class last inserted, to skip the lookup for runs of inserts.
    var lastInsertBinding: (type: ObjectIdentifier, binding: EntityBinding)?
    /// Shared by this context's backings.
    private(set) lazy var handle = ContextHandle(self)
    /// The binding last looked up by entity name.
    var lastLookupBinding: EntityBinding?

    /// Names this context in the container's save log.
    let serial: UInt64

    /// What ``save()`` does when another context saved an object since this one read it.
    public var mergePolicy: MergePolicy = .error

    /// A new, empty context on `container`.
    public init(_ container: ModelContainer) {
        strongContainer = container
        unownedContainer = container
        serial = container.makeContextSerial()
        registry = Array(repeating: [:], count: container.bindings.count)
        unindexed = Array(repeating: [], count: container.bindings.count)
    }

    /// The container's main context, which must not keep it alive.
    init(mainOf container: ModelContainer) {
        strongContainer = nil
        unownedContainer = container
        serial = container.makeContextSerial()
        registry = Array(repeating: [:], count: container.bindings.count)
        unindexed = Array(repeating: [], count: container.bindings.count)
    }

    /// The container this context belongs to.
    public var container: ModelContainer { strongContainer ?? unownedContainer }

    /// Whether anything is inserted, changed or deleted and not yet saved.
    public var hasChanges: Bool {
        insertedCount > 0 || !changed.isEmpty || !deleted.isEmpty || !failures.isEmpty
    }

    /// Objects inserted since the last save, in insertion order.
    public var insertedModels: [any ModelObject] {
        insertedList.lazy.filter { $0.state == .inserted }.compactMap {
            $0.object as? any ModelObject
        }
    }

    /// Saved objects with unsaved changes.
    public var changedModels: [any ModelObject] {
        changed.values.sorted { $0.primaryKey < $1.primaryKey }.compactMap {
            $0.object as? any ModelObject
        }
    }

    /// Saved objects whose deletion is pending.
    public var deletedModels: [any ModelObject] {
        deleted.values.sorted { $0.primaryKey < $1.primaryKey }.compactMap {
            $0.object as? any ModelObject
        }
    }

    /// Registers `model` for insertion at the next save and gives it its permanent identifier.
    /// Inserting an object already in this context does nothing. A model whose class is not in
    /// the container's schema, or that belongs to another context, makes the next save throw.
    public func insert<Model: PersistentModel>(_ model: Model) {
        let binding: EntityBinding
        if let cached = lastInsertBinding, cached.type == ObjectIdentifier(Model.self) {
            binding = cached.binding
        } else {
            do {
                binding = try container.binding(for: Model.self)
                lastInsertBinding = (ObjectIdentifier(Model.self), binding)
            } catch let error as LogbookError {
                failures.append(error)
                return
            } catch {
                return
            }
        }
        if let backing = binding.backing(of: model) {
            if backing.context === self && backing.state == .forgotten {
                backing.state = .inserted
                backing.pinned = backing.object
                unindexed[backing.binding.index].append(backing)
                insertedList.append(backing)
                insertedCount += 1
            } else if backing.context !== self {
                failures.append(
                    .notRegistered(entity: Model.entityName, object: backing.identifier.description)
                )
            }
            return
        }
        register(model, binding: binding)
    }

    @discardableResult
    func register(_ object: AnyObject, binding: EntityBinding) -> ModelBacking {
        let pk = container.nextPrimaryKey(binding.index)
        let backing = ModelBacking(
            binding: binding, primaryKey: pk, object: object, context: handle, state: .inserted,
            version: 0)
        backing.pinned = object
        binding.adopt(object, backing)
        unindexed[binding.index].append(backing)
        insertedList.append(backing)
        insertedCount += 1
        if !binding.entity.relationships.isEmpty { registerRelated(object, backing) }
        return backing
    }

    /// Marks `model` for deletion at the next save. An object inserted and never saved is just
    /// forgotten. Objects of other contexts are ignored.
    public func delete(_ model: some ModelObject) {
        guard let backing = model.resolvedBacking, backing.context === self else { return }
        switch backing.state {
        case .inserted:
            backing.state = .forgotten
            backing.pinned = nil
            insertedCount -= 1
            registry[backing.binding.index][backing.primaryKey] = nil
        case .persisted:
            backing.state = .deleted
            backing.pinned = backing.object
            changed[ObjectIdentifier(backing)] = nil
            deleted[ObjectIdentifier(backing)] = backing
        case .deleted, .forgotten:
            return
        }
        if !backing.binding.entity.relationships.isEmpty { applyDeleteRules(backing) }
    }

    /// Discards every pending change: inserted objects are forgotten, deleted ones come back,
    /// and changed ones get their saved values again.
    public func rollback() {
        for backing in insertedList where backing.state == .inserted {
            backing.state = .forgotten
            backing.pinned = nil
            registry[backing.binding.index][backing.primaryKey] = nil
        }
        insertedList.removeAll()
        insertedCount = 0
        for backing in Array(changed.values) + Array(deleted.values) {
            if let snapshot = backing.snapshot {
                for (i, value) in snapshot.enumerated() {
                    backing.binding.write(backing.object, i, value)
                }
            }
            backing.snapshot = nil
            backing.isChanged = false
            backing.failure = nil
            backing.state = .persisted
            backing.pinned = nil
        }
        changed.removeAll()
        deleted.removeAll()
        failures.removeAll()
    }

    /// Called by a backing at its first change since the last save.
    func backingDidChange(_ backing: ModelBacking) {
        changed[ObjectIdentifier(backing)] = backing
    }

    /// The live registered backing of object `pk` of entity `entity`, if any.
    @inline(__always)
    func registered(_ entity: Int, _ pk: UInt64) -> ModelBacking? {
        if !unindexed[entity].isEmpty { indexInserted(entity) }
        if isKnownUniquelyReferenced(&registry[entity][pk]) {
            registry[entity][pk] = nil
            return nil
        }
        return registry[entity][pk]
    }

    /// Moves the entity's inserted objects into the registry.
    func indexInserted(_ entity: Int) {
        registry[entity].reserveCapacity(registry[entity].count + unindexed[entity].count)
        for backing in unindexed[entity]
        where backing.state == .inserted || backing.state == .persisted {
            registry[entity][backing.primaryKey] = backing
        }
        unindexed[entity].removeAll()
    }
}
