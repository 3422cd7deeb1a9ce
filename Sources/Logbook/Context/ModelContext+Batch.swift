import Foundation
import LogStore

extension ModelContext {
    /// Deletes every stored object of `model` that `predicate` matches (every one, for `nil`),
    /// in one atomic commit, without building the objects — SwiftData's
    /// `delete(model:where:)`, run at once like Core Data's `NSBatchDeleteRequest`.
    ///
    /// The predicate is evaluated on the stored values: this context's unsaved changes take no
    /// part, and its unsaved inserts stay pending. Delete rules apply to the objects reached
    /// (nullify, cascade, deny). Objects registered here whose records are deleted report
    /// ``ModelObject/isDeleted``, and their unsaved changes are dropped. Durable when it returns
    /// (with the store's default `.sync` durability); other contexts that later save a deleted
    /// object get a conflict, as after a ``save()`` that deleted it. For a class with
    /// subclasses among the schema's, their objects are matched too, one commit per entity.
    /// - Returns: the number of objects of `model` (and its subclasses) deleted.
    /// - Throws: ``LogbookError/unknownEntity(_:)``,
    ///   ``LogbookError/deleteDenied(entity:relationship:object:)`` (then nothing is deleted),
    ///   errors the predicate throws, ``LogbookError/corruptRecord(entity:key:reason:)``,
    ///   ``LogbookError/store(_:)``.
    /// - Complexity: one pass over the entity's records (and over those of entities its
    ///   relationships reach), plus one delete per match.
    @discardableResult
    public func delete<Model: PersistentModel>(
        model: Model.Type, where predicate: Predicate<Model>? = nil
    ) throws -> Int {
        let descriptor = FetchDescriptor<Model>(predicate: predicate)
        var deleted = 0
        for binding in hierarchy(of: try core.binding(for: Model.self), as: Model.self) {
            deleted += try batchDelete(try makePlan(descriptor, binding: binding))
        }
        return deleted
    }

    /// Deletes every stored object of `entity` that the string predicate matches, as
    /// ``delete(model:where:)`` does.
    ///
    /// ```swift
    /// try context.delete(entity: "Employee", where: "salary < %@", 1_000)
    /// ```
    /// - Throws: ``LogbookError/predicateSyntax(message:line:column:)`` and as
    ///   ``delete(model:where:)``.
    @discardableResult
    public func delete(entity: String, where format: String? = nil, _ arguments: Any?...) throws
        -> Int
    {
        let predicate = try format.map { try StringPredicate(format: $0, arguments: arguments) }
        return try batchDelete(
            try makePlan(EntityFetchDescriptor(entityName: entity, predicate: predicate)))
    }

    /// Changes every stored object of `model` that `predicate` matches with `change`, in one
    /// atomic commit, without registering objects — in the spirit of Core Data's
    /// `NSBatchUpdateRequest`.
    ///
    /// ```swift
    /// try context.update(model: Employee.self, where: #Predicate { $0.designation == "Engineer" }) {
    ///     $0.salary += 1_000
    /// }
    /// ```
    /// `change` is called once per match with a scratch object holding the stored values (the
    /// same instance each time: do not keep it, and do not save from inside `change`). The
    /// predicate is evaluated on the stored values; unsaved changes take no part.
    ///
    /// Objects registered in this context take the new values, except attributes with an
    /// unsaved change here: that change wins, and is what the next ``save()`` writes (a
    /// ``rollback()`` goes back to the updated value). Unique attributes are checked as at a
    /// save. Durable when it returns (with the store's default `.sync` durability). For a
    /// class with subclasses among the schema's, their objects are changed too (`change` gets
    /// each as its own class), one commit per entity.
    /// - Returns: the number of objects updated.
    /// - Throws: ``LogbookError/uniqueConstraint(entity:attribute:value:object:existing:)``,
    ///   ``LogbookError/conflict(entity:object:expectedVersion:foundVersion:)`` if another
    ///   context kept saving the entity while the update ran, what `change` or the predicate
    ///   throws, and as ``delete(model:where:)``. If it throws, nothing is changed.
    @discardableResult
    public func update<Model: PersistentModel>(
        model: Model.Type, where predicate: Predicate<Model>? = nil,
        set change: (Model) throws -> Void
    ) throws -> Int {
        let descriptor = FetchDescriptor<Model>(predicate: predicate)
        var updated = 0
        // The entity's objects, then each sub-entity's (a commit each).
        for binding in hierarchy(of: try core.binding(for: Model.self), as: Model.self) {
            let plan = try makePlan(descriptor, binding: binding)
            let scratch = binding.makeObject()
            var snapshot = FieldSnapshot(binding)
            updated += try batchUpdate(plan) { buffer, pk, writer in
                let version = try binding.load(buffer, into: scratch, primaryKey: pk)
                snapshot.take(scratch)
                try change(unsafeDowncast(scratch, to: Model.self))
                try encodeRecord(of: scratch, binding, pk: pk, version: version + 1, into: &writer)
                return snapshot.changedFields(scratch)
            }
        }
        return updated
    }

    /// Sets attributes, by name, of every stored object of `entity` that the string predicate
    /// matches, as ``update(model:where:set:)`` does.
    ///
    /// ```swift
    /// try context.update(entity: "Employee", where: "salary == %@", 2_000_000, set: ["salary": 3_000_000])
    /// ```
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``,
    ///   ``LogbookError/typeMismatch(entity:attribute:expected:found:)`` (also `nil` for a
    ///   non-optional attribute), ``LogbookError/predicateSyntax(message:line:column:)``, and as
    ///   ``update(model:where:set:)``.
    @discardableResult
    public func update(
        entity: String, where format: String? = nil, _ arguments: Any?...,
        set values: [String: Any?]
    ) throws -> Int {
        let predicate = try format.map { try StringPredicate(format: $0, arguments: arguments) }
        let plan = try makePlan(EntityFetchDescriptor(entityName: entity, predicate: predicate))
        let binding = plan.binding
        var assignments: [(Int, AttributeValue)] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let i = binding.entity.attributeIndex(key) else {
                throw LogbookError.unknownAttribute(entity: binding.entity.name, attribute: key)
            }
            let attribute = binding.entity.attributes[i]
            guard let converted = AttributeValue.converting(value, to: attribute.type),
                !converted.isNull || attribute.isOptional
            else {
                throw LogbookError.typeMismatch(
                    entity: binding.entity.name, attribute: key,
                    expected: attribute.type.description,
                    found: value.map { String(describing: type(of: $0)) } ?? "nil")
            }
            assignments.append((i, converted))
        }
        var scratch: [AttributeValue] = binding.stored.attributes.map { $0.initialValue }
        return try batchUpdate(plan) { buffer, pk, writer in
            let version = try binding.codec.decode(buffer, key: String(pk)) { scratch[$0] = $1 }
            var changed: UInt64 = 0
            for (i, value) in assignments where scratch[i] != value {
                scratch[i] = value
                changed |= fieldBit(i)
            }
            writer.bytes.removeAll(keepingCapacity: true)
            binding.codec.encode(objectVersion: version + 1, into: &writer) { i, w in
                if scratch[i].isNull { return false }
                w.value(scratch[i], as: binding.codec.shape(i))
                return true
            }
            return changed
        }
    }

    // MARK: Running a batch

    /// Deletes the plan's stored matches (and what delete rules reach) in one commit.
    private func batchDelete(_ plan: FetchPlan) throws -> Int {
        if let past = core.pastState { throw LogbookError.pastStateIsReadOnly(token: past.token) }
        var plan = plan
        plan.includePendingChanges = false
        let core = self.core
        return try core.saveLock.withLock { _ -> Int in
            var deletions = BatchDeletion(
                count: core.bindings.count,
                related: core.bindings.contains { !$0.entity.relationships.isEmpty })
            let matches = try execute(plan, keepRecords: false).candidates.map(\.primaryKey)
            try deletions.add(matches, of: plan.binding.index, context: self)
            guard !deletions.isEmpty else { return 0 }
            var batch = WriteBatch()
            var save = SaveRecord(time: Date(), author: author)
            deletions.write(into: &batch, bindings: core.bindings, save: &save)
            batch.put(save.encoded(), for: Keyspaces.saveKey, in: Keyspaces.history)
            try core.commit(batch)
            let generation = core.recordSave(of: deletions.entities, saver: serial)
            for (entity, pks) in deletions.deleted.enumerated() {
                for pk in pks {
                    let e = table.lookup(entity, pk)
                    if e >= 0 { table.markGone(e) }
                }
            }
            for (entity, records) in deletions.rewritten.enumerated() {
                for (pk, record) in records { refresh(entity, pk, record, generation: generation) }
            }
            return matches.count
        }
    }

    /// Rewrites the plan's stored matches with `rewrite` (which decodes a record, changes it,
    /// encodes the next version into the writer, and returns the fields it changed if it knows
    /// them) in one commit.
    private func batchUpdate(
        _ plan: FetchPlan,
        _ rewrite: (UnsafeRawBufferPointer, UInt64, inout ByteWriter) throws -> UInt64?
    ) throws -> Int {
        if let past = core.pastState { throw LogbookError.pastStateIsReadOnly(token: past.token) }
        var plan = plan
        plan.includePendingChanges = false
        let core = self.core
        // The records are read and rewritten before the save lock is taken, so `rewrite` (app
        // code) does not run under it; a save of the entity by another context meanwhile makes
        // the work stale, and it is redone (the last time under the lock).
        for attempt in 0..<4 {
            // The last attempt runs under the lock, so it cannot go stale.
            let locked = attempt == 3
            if locked {
                return try core.saveLock.withLock { _ in
                    try prepareUpdate(plan, rewrite).commit(self, locked: true) ?? 0
                }
            }
            if let done = try prepareUpdate(plan, rewrite).commit(self, locked: false) {
                return done
            }
        }
        return 0
    }

    /// Reads the plan's matches and rewrites them into a batch, not yet committed.
    private func prepareUpdate(
        _ plan: FetchPlan,
        _ rewrite: (UnsafeRawBufferPointer, UInt64, inout ByteWriter) throws -> UInt64?
    ) throws -> PreparedUpdate {
        let binding = plan.binding
        var prepared = PreparedUpdate(
            binding: binding, readAt: core.saveGeneration,
            save: SaveRecord(time: Date(), author: author))
        let scan = try execute(plan)
        let (candidates, bytes) = (scan.candidates, scan.bytes)
        var writer = ByteWriter(capacity: 128)
        var diff: RecordDiff?
        let registered = table.hasRegistered(binding.index)
        let unique = core.indexes.hasUniqueConstraints(binding.index)
        try bytes.withUnsafeBytes { raw in
            for candidate in candidates {
                let record = UnsafeRawBufferPointer(
                    rebasing: raw[
                        candidate.bytesStart..<candidate.bytesStart + candidate.bytesCount])
                let known = try rewrite(record, candidate.primaryKey, &writer)
                writer.bytes.withUnsafeBytes { value in
                    if let known {
                        prepared.save.updated(fields: known)
                    } else {
                        let differ = diff ?? RecordDiff(binding.codec)
                        diff = differ
                        prepared.save.updated(fields: differ.changedFields(record, value))
                    }
                    Keyspaces.withObjectKey(candidate.primaryKey) { key in
                        prepared.batch.put(value, for: key, in: binding.keyspace)
                    }
                }
                if registered && table.lookup(binding.index, candidate.primaryKey) >= 0 {
                    prepared.registered.append((candidate.primaryKey, writer.bytes))
                }
                if unique {
                    prepared.unique.append(
                        (candidate.primaryKey, try storedValues(writer.bytes, binding)))
                }
            }
        }
        prepared.count = candidates.count
        return prepared
    }

    /// The stored field values of an encoded record.
    private func storedValues(_ record: [UInt8], _ binding: EntityBinding) throws
        -> [AttributeValue]
    {
        var values = binding.stored.attributes.map(\.initialValue)
        _ = try record.withUnsafeBytes { raw in
            try binding.codec.decode(raw, key: "") { values[$0] = $1 }
        }
        return values
    }

    /// A registered object whose record a batch rewrote: takes the stored values, except fields
    /// with an unsaved change here (which win, and whose saved value becomes the new one).
    fileprivate func refresh(_ entity: Int, _ pk: UInt64, _ record: [UInt8], generation: UInt64) {
        let e = table.lookup(entity, pk)
        guard e >= 0 else { return }
        record.withUnsafeBytes { refresh(e, core.bindings[entity], $0, generation: generation) }
    }
}

/// A batch update read and rewritten, waiting to be committed.
private struct PreparedUpdate {
    let binding: EntityBinding
    /// The save generation when the records were read.
    let readAt: UInt64
    var batch = WriteBatch()
    /// The save record, listing each rewrite's changed fields in batch order.
    var save: SaveRecord
    var count = 0
    /// New records of objects registered in the context.
    var registered: [(UInt64, [UInt8])] = []
    /// New stored values of entities with unique constraints, by primary key.
    var unique: [(pk: UInt64, values: [AttributeValue])] = []

    /// Commits the batch unless another context saved the entity since it was read (then
    /// returns `nil`); `locked` says the caller already holds the save lock.
    func commit(_ context: ModelContext, locked: Bool) throws -> Int? {
        guard count > 0 else { return 0 }
        let core = context.core
        func run() throws -> Int? {
            guard
                locked || core.latestForeignSave(of: binding.index, saver: context.serial) <= readAt
            else { return nil }
            let rewritten = Set(unique.map(\.pk))
            for (u, definition) in core.indexes.definitions[binding.index].enumerated()
            where definition.isUnique {
                try UniqueCheck(definition: definition, index: u, indexes: core.indexes).check(
                    unique.map { candidate in (candidate.pk, { candidate.values[$0] }) },
                    rewritten: rewritten)
            }
            var batch = batch
            batch.put(save.encoded(), for: Keyspaces.saveKey, in: Keyspaces.history)
            try core.commit(batch)
            let generation = core.recordSave(of: [binding.index], saver: context.serial)
            for (pk, record) in registered {
                context.refresh(binding.index, pk, record, generation: generation)
            }
            return count
        }
        return locked ? try run() : try core.saveLock.withLock { _ in try run() }
    }
}

/// What a batch delete removes, with the records its nullify rules rewrite, entity by entity.
private struct BatchDeletion {
    var deleted: [[UInt64]]
    var deletedSets: [Set<UInt64>]
    var rewritten: [[UInt64: [UInt8]]]
    /// The fields nullify rules cleared in each rewritten record (for the save record).
    var rewrittenFields: [[UInt64: UInt64]]

    /// Whether any entity has relationships (else no delete rule can reach another object,
    /// and the sets that keep cascades from repeating an object are not needed).
    let related: Bool

    init(count: Int, related: Bool) {
        self.related = related
        deleted = Array(repeating: [], count: count)
        deletedSets = Array(repeating: [], count: count)
        rewritten = Array(repeating: [:], count: count)
        rewrittenFields = Array(repeating: [:], count: count)
    }

    var isEmpty: Bool { deleted.allSatisfy(\.isEmpty) }

    var entities: Set<Int> {
        Set(deleted.indices.filter { !deleted[$0].isEmpty || !rewritten[$0].isEmpty })
    }

    /// Adds `pks` of `entity` and applies the delete rules of its to-many relationships to the
    /// objects that point at them (cascade adds them too; nullify rewrites them; deny throws).
    mutating func add(_ pks: [UInt64], of entity: Int, context: ModelContext) throws {
        guard related else {
            // The first and only call: a scan's matches are distinct.
            deleted[entity].append(contentsOf: pks)
            return
        }
        let fresh = pks.filter { !deletedSets[entity].contains($0) }
        guard !fresh.isEmpty else { return }
        deleted[entity].append(contentsOf: fresh)
        deletedSets[entity].formUnion(fresh)
        let core = context.core
        let binding = core.bindings[entity]
        let targets = Set(fresh)
        for (index, relationship) in binding.entity.relationships.enumerated()
        where relationship.isToMany {
            guard let inverse = relationship.inverse,
                let base = try? core.binding(named: relationship.destination)
            else { continue }
            if relationship.storesLinks {
                guard base.entity.relationships.contains(where: { $0.name == inverse }) else {
                    continue
                }
                try addLinked(fresh, binding, index, relationship, base, context: context)
                continue
            }
            // The destination's records, then each sub-entity's (they inherit the inverse).
            for destination in [base] + core.descendants[base.index].map({ core.bindings[$0] }) {
                guard
                    let r = destination.entity.relationships.firstIndex(where: {
                        $0.name == inverse
                    })
                else { continue }
                let slot = destination.relationshipSlots[r]
                // The destination objects whose to-one, or links, reach a deleted object.
                var pointing: [(pk: UInt64, target: UInt64)] = []
                try wrapStoreErrors {
                    try core.store.forEach(in: destination.keyspace) { key, value in
                        guard let pk = Keyspaces.primaryKey(ofObjectKey: key),
                            !deletedSets[destination.index].contains(pk)
                        else { return }
                        var reached: [UInt64] = []
                        _ = try destination.codec.decode(value, key: String(pk)) { i, v in
                            guard i == slot else { return }
                            if case .integer(let k) = v {
                                reached = [UInt64(bitPattern: k)]
                            } else {
                                reached = LinkList.keys(v) ?? []
                            }
                        }
                        for target in reached where targets.contains(target) {
                            pointing.append((pk, target))
                        }
                    }
                }
                guard let first = pointing.first else { continue }
                switch relationship.deleteRule {
                case .deny:
                    throw LogbookError.deleteDenied(
                        entity: binding.entity.name, relationship: relationship.name,
                        object: PersistentIdentifier(
                            entityName: binding.entity.name, primaryKey: first.target
                        ).description)
                case .cascade:
                    try add(pointing.map(\.pk), of: destination.index, context: context)
                case .nullify:
                    for (pk, _) in pointing {
                        try nullify(slot, of: pk, destination, removing: targets, store: core.store)
                    }
                }
            }
        }
    }

    /// The delete rules of the side of a many-to-many that stores the links: deny while a
    /// deleted object links to an existing one, cascade to the linked objects; nullify needs
    /// nothing, the links going with the records.
    private mutating func addLinked(
        _ pks: [UInt64], _ binding: EntityBinding, _ r: Int,
        _ relationship: RelationshipDescription, _ destination: EntityBinding,
        context: ModelContext
    ) throws {
        guard relationship.deleteRule != .nullify else { return }
        let store = context.core.store
        let slot = binding.relationshipSlots[r]
        var linked: [UInt64] = []
        var first: (owner: UInt64, target: UInt64)?
        for pk in pks {
            guard
                let record = try wrapStoreErrors({
                    try store.get(Keyspaces.objectKey(pk), in: binding.keyspace)
                })
            else { continue }
            var links: [UInt64] = []
            _ = try record.withUnsafeBytes { raw in
                try binding.codec.decode(raw, key: String(pk)) { i, v in
                    if i == slot { links = LinkList.keys(v) ?? [] }
                }
            }
            for target in links where !deletedSets[destination.index].contains(target) {
                let exists = try wrapStoreErrors {
                    try store.contains(Keyspaces.objectKey(target), in: destination.keyspace)
                }
                guard exists else { continue }
                linked.append(target)
                if first == nil { first = (pk, target) }
            }
        }
        guard let first else { return }
        if relationship.deleteRule == .deny {
            throw LogbookError.deleteDenied(
                entity: binding.entity.name, relationship: relationship.name,
                object: PersistentIdentifier(
                    entityName: binding.entity.name, primaryKey: first.owner
                )
                .description)
        }
        try add(Array(Set(linked)).sorted(), of: destination.index, context: context)
    }

    /// Rewrites record `pk` of `destination` with stored field `slot` null, or for links
    /// without the keys `removing` (the next version), starting from an earlier rewrite of this
    /// batch if there is one.
    private mutating func nullify(
        _ slot: Int, of pk: UInt64, _ destination: EntityBinding, removing: Set<UInt64>,
        store: LogStore
    ) throws {
        let record =
            try rewritten[destination.index][pk]
            ?? wrapStoreErrors { try store.get(Keyspaces.objectKey(pk), in: destination.keyspace) }
        guard let record else { return }
        var values = destination.stored.attributes.map(\.initialValue)
        let version = try record.withUnsafeBytes { raw in
            try destination.codec.decode(raw, key: String(pk)) { values[$0] = $1 }
        }
        values[slot] =
            LinkList.keys(values[slot]).map { LinkList.value(Set($0).subtracting(removing)) }
            ?? .null
        var writer = ByteWriter(capacity: record.count)
        destination.codec.encode(objectVersion: version + 1, into: &writer) { i, w in
            if values[i].isNull { return false }
            w.value(values[i], as: destination.codec.shape(i))
            return true
        }
        rewritten[destination.index][pk] = writer.bytes
        rewrittenFields[destination.index][pk, default: 0] |= fieldBit(slot)
    }

    /// The deletes and rewrites, in one batch; each rewrite's cleared fields go to `save`.
    func write(into batch: inout WriteBatch, bindings: [EntityBinding], save: inout SaveRecord) {
        for (entity, pks) in deleted.enumerated() {
            for pk in pks {
                Keyspaces.withObjectKey(pk) {
                    batch.delete($0, in: bindings[entity].keyspace)
                }
            }
        }
        for (entity, records) in rewritten.enumerated() {
            for (pk, record) in records where !deletedSets[entity].contains(pk) {
                Keyspaces.withObjectKey(pk) { key in
                    batch.put(record, for: Array(key), in: bindings[entity].keyspace)
                }
                save.updated(fields: rewrittenFields[entity][pk] ?? 0)
            }
        }
    }
}
