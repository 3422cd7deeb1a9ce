/// Tracks inserted, changed and deleted objects and writes them to the store atomically on
/// ``save()``; fetches objects, giving one instance per identifier.
///
/// Semantics: identifiers are permanent at ``insert(_:)``; fetches see pending changes unless
/// told otherwise; ``save()`` is one atomic commit and, if it throws, leaves the store as it was
/// and the changes pending; ``rollback()`` restores saved values.
///
/// Memory: the context holds the objects it registered while they have pending changes, and
/// lets go of unchanged ones the app no longer holds (in amortized batches), so a long-lived
/// context does not grow with every object it ever fetched.
///
/// Thread safety: not thread-safe. Use a context on one thread or actor; make one per thread
/// from the shared ``ModelContainer``. A context keeps its container's store open.
public final class ModelContext {
    let core: ContainerCore
    /// The registered objects and the pending lists.
    let table: ObjectTable
    /// Errors of non-throwing calls that concern no registered object, thrown by the next save.
    var failures: [LogbookError] = []
    /// The binding of the class last inserted, to skip the lookup for runs of inserts.
    var lastInsertBinding: (type: ObjectIdentifier, binding: EntityBinding)?
    /// The binding last looked up by entity name.
    var lastLookupBinding: EntityBinding?
    /// What planning fetches learns once per type (key paths, predicate expression types).
    let planCache = FetchPlanCache()
    /// Names this context in the container's save log.
    let serial: UInt64
    /// The actor the context lives on, its autosave and its transactions.
    var coordination = ContextCoordination()

    /// What ``save()`` does when another context saved an object since this one read it.
    public var mergePolicy: MergePolicy = .error

    /// Who is saving, recorded with each save and batch operation of this context in the
    /// store's history (``HistoryTransaction/author``): an app's name for the user, a process or
    /// an import. `nil` (the default) records none.
    public var author: String?

    /// A new, empty context on `container`.
    public convenience init(_ container: ModelContainer) {
        self.init(mainOf: container.core)
    }

    init(mainOf core: ContainerCore) {
        self.core = core
        serial = core.makeContextSerial()
        table = ObjectTable(bindings: core.bindings)
        table.context = self
    }

    deinit { table.releaseAll() }

    /// The container this context belongs to.
    public var container: ModelContainer { core.container }

    /// Whether anything is inserted, changed or deleted and not yet saved.
    public var hasChanges: Bool { table.hasPendingChanges || !failures.isEmpty }

    /// Objects inserted since the last save, in insertion order.
    public var insertedModels: [any ModelObject] {
        table.unstage()
        return table.inserted.lazy.filter { self.table[$0].state == .inserted }
            .compactMap {
                self.table.objects[Int($0)] as? any ModelObject
            }
    }

    /// Saved objects with unsaved changes, by identifier.
    public var changedModels: [any ModelObject] {
        models(table.changed.filter { table[$0].isChanged })
    }

    /// Saved objects whose deletion is pending, by identifier.
    public var deletedModels: [any ModelObject] {
        models(table.deleted.filter { table[$0].state == .deleted })
    }

    /// ``insertedModels``, by SwiftData's name.
    public var insertedModelsArray: [any ModelObject] { insertedModels }
    /// ``changedModels``, by SwiftData's name.
    public var changedModelsArray: [any ModelObject] { changedModels }
    /// ``deletedModels``, by SwiftData's name.
    public var deletedModelsArray: [any ModelObject] { deletedModels }

    private func models(_ entries: [Int32]) -> [any ModelObject] {
        entries.sorted {
            (table[$0].entity, table[$0].primaryKey)
                < (table[$1].entity, table[$1].primaryKey)
        }.compactMap { table.objects[Int($0)] as? any ModelObject }
    }

    /// Registers `model` for insertion at the next save and gives it its permanent identifier.
    /// Inserting an object already in this context does nothing. A model whose class is not in
    /// the container's schema, or that belongs to another context, makes the next save throw.
    public func insert<Model: PersistentModel>(_ model: Model) {
        // The object's own class decides its entity: an instance of a subclass held as its
        // superclass is still stored with every attribute it has.
        let modelType = type(of: model)
        let binding: EntityBinding
        if let cached = lastInsertBinding, cached.type == ObjectIdentifier(modelType) {
            binding = cached.binding
        } else {
            do {
                binding = try core.binding(for: modelType)
                lastInsertBinding = (ObjectIdentifier(modelType), binding)
            } catch let error as LogbookError {
                failures.append(error)
                return
            } catch {
                return
            }
        }
        if let (owner, entry) = binding.registration(of: model) {
            if owner !== table && owner.probe == nil && owner[entry].state != .free {
                failures.append(
                    .notRegistered(
                        entity: modelType.entityName,
                        object: model.persistentModelID.description))
            }
            return
        }
        register(model, binding: binding)
    }

    /// Registers a new object as a pending insert with a fresh primary key.
    @discardableResult
    func register(_ object: AnyObject, binding: EntityBinding, primaryKey: UInt64? = nil)
        -> Int32
    {
        // Before the new object joins: the app holds it while inserting it, so a look after
        // would keep it for the save, whose records of later inserts, staged first, then lie
        // before it in the log.
        if table.inserted.count - table.stagingCursor >= ObjectTable.stagingInterval {
            stageDroppedInserts()
        }
        let pk =
            primaryKey.map { core.raisePrimaryKey(binding.index, to: $0) }
            ?? core.nextPrimaryKey(binding.index)
        let e = table.add(
            object, binding, primaryKey: pk, state: .inserted, version: 0, generation: 0)
        if !binding.entity.relationships.isEmpty { registerRelated(object, binding, e) }
        return e
    }

    /// Encodes the pending inserts the app no longer holds into the next save's batch and lets
    /// their objects go (see ``ObjectTable``'s staging).
    private func stageDroppedInserts() {
        var writer = ByteWriter(capacity: 128)
        table.stageDroppedInserts { object, binding, pk in
            guard (try? encodeRecord(of: object, binding, pk: pk, version: 1, into: &writer)) != nil
            else { return false }
            writer.bytes.withUnsafeBytes { value in
                Keyspaces.withObjectKey(pk) { key in
                    table.staged.put(value, for: key, in: binding.keyspace)
                }
            }
            return true
        }
    }

    /// Marks `model` for deletion at the next save. An object inserted and never saved is just
    /// forgotten: it leaves the context as if it had never been inserted. Objects of other
    /// contexts are ignored.
    public func delete(_ model: some ModelObject) {
        guard let r = registration(of: model) else { return }
        switch table.entries[r.index].state {
        case .inserted:
            if !r.binding.entity.relationships.isEmpty {
                applyDeleteRules(model, r.binding, r.entry)
            }
            table.forget(r.entry)
        case .persisted:
            table.markDeleted(r.entry)
            if !r.binding.entity.relationships.isEmpty {
                applyDeleteRules(model, r.binding, r.entry)
            }
        case .deleted, .gone, .free:
            return
        }
    }

    /// Where `model` is registered in this context, if it is. An instance of a class this
    /// context's schema binds is found through that binding, with no conformance check or
    /// layout lookup (``ModelObject/registered`` makes both: about 1,000 instructions).
    @inline(__always)
    func registration(of model: AnyObject) -> Registration? {
        let type = ObjectIdentifier(Swift.type(of: model))
        for binding in table.bindings {
            guard let layout = binding.layout, ObjectIdentifier(layout.modelType) == type else {
                continue
            }
            guard let entry = binding.entry(of: model, in: table), entry >= 0,
                table[entry].state != .free
            else { return nil }
            return Registration(table: table, entry: entry)
        }
        guard let r = (model as? any ModelObject)?.registered, r.table === table else {
            return nil
        }
        return r
    }

    /// Discards every pending change: inserted objects are forgotten, deleted ones come back,
    /// and changed ones get their saved values again.
    public func rollback() {
        table.rollback()
        failures.removeAll()
    }

    /// The registered object `pk` of binding `entity`, if any (inserted, persisted or deleted).
    @inline(__always)
    func registered(_ entity: Int, _ pk: UInt64) -> (object: AnyObject, state: ObjectState)? {
        let e = table.lookup(entity, pk)
        guard e >= 0, let object = table.objects[Int(e)] else { return nil }
        return (object, table[e].state)
    }
}

extension ModelContext: CustomStringConvertible, CustomReflectable {
    /// `ModelContext(registered: 3, inserted: 1, changed: 0, deleted: 0)`.
    public var description: String {
        "ModelContext(registered: \(table.registeredCount), inserted: \(table.insertedCount), "
            + "changed: \(table.changedCount), deleted: \(table.deletedCount))"
    }

    /// Counts, not objects: a context may hold a great many.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "registered": table.registeredCount, "inserted": table.insertedCount,
                "changed": table.changedCount, "deleted": table.deletedCount,
                "hasChanges": hasChanges, "mergePolicy": mergePolicy,
            ], displayStyle: .class)
    }
}
