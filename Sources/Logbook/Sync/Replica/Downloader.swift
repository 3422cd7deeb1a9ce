import Foundation
import LogStore

/// Applies PostgreSQL's committed transactions to the store: each one a save of its own (its
/// origin as the author, in the history, published to observers), with the position reached
/// in the same commit, so each is applied exactly once.
///
/// Changes the store already has, or must not take, are passed over: the echo of this
/// replica's own saves, corrections meant for another replica, and fields of objects with a
/// local change PostgreSQL has not confirmed that is later on the hybrid logical clock (that
/// change wins there too when it goes up; a delete always wins). Records are written directly,
/// as a batch update does, without unique checks: PostgreSQL's state is the truth, and a
/// value that clashes with a local change not yet sent resolves when that change goes up.
///
/// Not thread-safe: one downloader, used from one thread.
final class Downloader {
    let core: ContainerCore
    let origin: Int32
    let database: SyncDatabase
    let log: LocalLogAccess
    /// Reads rows of objects an update reaches that the store lacks.
    let connection: PostgreSQLConnection
    /// The saver serial of the replica's commits, for the contexts' conflict checks.
    private let serial: UInt64

    /// How far the change log is applied, and the newest own save seen back in it, beyond the
    /// store's down record while ``isDirty`` (passed-over entries are not committed one by one).
    private(set) var position: UInt64
    private(set) var acknowledged: UInt64
    private(set) var isDirty = false

    init(
        core: ContainerCore, origin: Int32, database: SyncDatabase, log: LocalLogAccess,
        connection: PostgreSQLConnection, down: SyncRecords.Down
    ) {
        self.core = core
        self.origin = origin
        self.database = database
        self.log = log
        self.connection = connection
        serial = core.makeContextSerial()
        position = down.position
        acknowledged = down.acknowledged
    }

    /// One object as the group leaves it.
    private struct Working {
        let binding: EntityBinding
        var values: [AttributeValue]
        var version: UInt64
        var existed: Bool
        var deleted = false
        var changed: UInt64 = 0
    }

    /// Applies one transaction of the change log (its entries in position order).
    /// - Returns: the number of objects it changed in the store.
    /// - Throws: ``SyncError/valueNotReadable(table:column:id:text:)``, ``LogbookError/store(_:)``,
    ///   ``LogbookError/postgreSQL(_:)``; then nothing of it is applied.
    @discardableResult
    func apply(_ group: [ChangeEntry]) throws -> Int {
        guard let last = group.last else { return 0 }
        let ownMarker = group.lazy.filter { $0.origin == self.origin && $0.op == UInt8(ascii: "m") }
            .compactMap(\.sequence).max()
        let relevant = group.filter { entry in
            entry.op != UInt8(ascii: "m") && !(entry.origin == origin && entry.echo)
                && (entry.target == nil || entry.target == origin)
        }
        guard !relevant.isEmpty else {
            position = last.position
            if let ownMarker { acknowledge(ownMarker) }
            isDirty = true
            return 0
        }
        let stamp = group.map(\.stamp).max() ?? 0
        let newAck = max(acknowledged, ownMarker ?? 0)
        let changed = try commit(relevant, author: relevant[0].author) { log in
            let down = SyncRecords.Down(
                position: last.position, acknowledged: newAck, clock: max(log.clock, stamp))
            return (SyncRecords.downKey, down.encoded)
        }
        position = last.position
        if let ownMarker { acknowledge(ownMarker) }
        isDirty = false
        return changed
    }

    /// Applies a piece of a first download: `entries` make the store's objects PostgreSQL's as
    /// of `final.position` (inserts and updates of every row, deletes of objects it lacks).
    /// The last piece passes `final`, the down record; the others mark the commit as the
    /// replica's with the `snapshot` key.
    /// - Throws: as ``apply(_:)``.
    @discardableResult
    func applySnapshot(_ entries: [ChangeEntry], final: SyncRecords.Down?) throws -> Int {
        let changed = try commit(entries, author: "postgresql") { log in
            guard let final else { return (SyncRecords.snapshotKey, [SyncRecords.format]) }
            let down = SyncRecords.Down(
                position: final.position, acknowledged: final.acknowledged,
                clock: max(log.clock, final.clock))
            return (SyncRecords.downKey, down.encoded)
        }
        if let final {
            position = final.position
            acknowledged = final.acknowledged
            isDirty = false
        }
        return changed
    }

    /// Writes `entries` and the replica's `record` (made under the locks) in one commit: a save
    /// by `author` when objects change, else bookkeeping only.
    private func commit(
        _ entries: [ChangeEntry], author: String,
        record: @escaping (LocalLog) -> (key: [UInt8], value: [UInt8])
    ) throws -> Int {
        try core.saveLock.withLock { _ in
            try log.withLog { log in
                try log.catchUp()
                var batch = WriteBatch()
                let changed = try build(entries, log, into: &batch)
                let (key, value) = record(log)
                batch.put(value, for: key, in: SyncRecords.keyspace)
                if changed.count > 0 {
                    var save = SaveRecord(time: Date(), author: author)
                    for run in changed.updateRuns { save.updated(fields: run) }
                    batch.put(save.encoded(), for: Keyspaces.saveKey, in: Keyspaces.history)
                    try core.commit(batch)
                    _ = core.recordSave(of: changed.entities, saver: serial)
                } else {
                    try wrapStoreErrors { _ = try core.store.commit(batch) }
                }
                return changed.count
            }
        }
    }

    private func acknowledge(_ sequence: UInt64) {
        acknowledged = max(acknowledged, sequence)
        log.withLog { $0.acknowledge(through: sequence) }
    }

    /// What a group wrote into the batch.
    private struct Built {
        var count = 0
        var entities: Set<Int> = []
        /// The changed-fields mask of each update, in batch order.
        var updateRuns: [UInt64] = []
    }

    /// Writes the relevant entries' effect into `batch`.
    private func build(_ entries: [ChangeEntry], _ log: LocalLog, into batch: inout WriteBatch)
        throws -> Built
    {
        var objects: [PersistentIdentifier: Working] = [:]
        var order: [PersistentIdentifier] = []
        for entry in entries {
            guard let entityName = entry.entity, let pk = entry.id,
                let binding = try? core.binding(named: entityName),
                let synced = database.entities[entityName]
            else { continue }
            let id = PersistentIdentifier(entityName: entityName, primaryKey: pk)
            let key = LocalLog.ObjectKey(entity: entityName, id: pk)
            if objects[id] == nil {
                objects[id] = try load(id, binding)
                order.append(id)
            }
            if entry.op == UInt8(ascii: "d") {
                objects[id]!.deleted = true
                continue
            }
            // A local delete not yet confirmed wins; so does a later local change of a field.
            if log.isDeletedLocally(key) || objects[id]!.deleted { continue }
            if !objects[id]!.existed && objects[id]!.changed == 0 && entry.op == UInt8(ascii: "u") {
                // An update of an object the store lacks: take the whole row.
                guard let row = try fetchRow(synced, pk) else { continue }
                for (i, value) in row.enumerated() {
                    objects[id]!.values[i] = value
                    objects[id]!.changed |= fieldBit(i)
                }
            }
            for (name, text) in zip(entry.columns, entry.values) {
                guard let slot = binding.stored.attributeIndex(name) else { continue }
                if let local = log.localStamp(of: key, field: name),
                    HybridClock.isLater(local, origin, than: entry.stamp, entry.origin)
                {
                    continue
                }
                // The replica's description: a many-to-many's links read as keys.
                let field =
                    synced.fieldIndex[name].map { synced.fields[$0] }
                    ?? binding.stored.attributes[slot]
                guard let value = CanonicalText.value(text, field) else {
                    throw LogbookError.sync(
                        .valueNotReadable(
                            table: entityName, column: name, id: Int64(clamping: pk),
                            text: text ?? ""))
                }
                if !Self.identical(objects[id]!.values[slot], value) || !objects[id]!.existed {
                    objects[id]!.values[slot] = value
                    objects[id]!.changed |= fieldBit(slot)
                }
            }
        }
        var built = Built()
        var writer = ByteWriter(capacity: 128)
        for id in order {
            let object = objects[id]!
            let binding = object.binding
            if object.deleted {
                guard object.existed else { continue }
                Keyspaces.withObjectKey(id.primaryKey) { batch.delete($0, in: binding.keyspace) }
            } else {
                guard object.changed != 0 else { continue }
                let version = object.existed ? object.version + 1 : 1
                writer.bytes.removeAll(keepingCapacity: true)
                binding.codec.encode(objectVersion: version, into: &writer) { i, w in
                    if object.values[i].isNull { return false }
                    w.value(object.values[i], as: binding.codec.shape(i))
                    return true
                }
                writer.bytes.withUnsafeBytes { value in
                    Keyspaces.withObjectKey(id.primaryKey) { key in
                        batch.put(value, for: key, in: binding.keyspace)
                    }
                }
                if object.existed { built.updateRuns.append(object.changed) }
            }
            built.count += 1
            built.entities.insert(binding.index)
        }
        return built
    }

    /// Whether two values are the same down to their bits (`-0.0` is not `0.0`, which `==`
    /// says it is).
    static func identical(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.float(let x), .float(let y)): return x.bitPattern == y.bitPattern
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case (.composite(let x), .composite(let y)):
            return x.fields == y.fields && x.values.count == y.values.count
                && zip(x.values, y.values).allSatisfy { identical($0, $1) }
        default: return a == b
        }
    }

    /// The stored state of `id` (defaults if the store lacks it).
    private func load(_ id: PersistentIdentifier, _ binding: EntityBinding) throws -> Working {
        var values = binding.stored.attributes.map(\.initialValue)
        let stored = try wrapStoreErrors {
            try core.store.get(Keyspaces.objectKey(id.primaryKey), in: binding.keyspace)
        }
        guard let stored else {
            return Working(binding: binding, values: values, version: 0, existed: false)
        }
        let version = try stored.withUnsafeBytes { raw in
            try binding.codec.decode(raw, key: id.description) { values[$0] = $1 }
        }
        return Working(binding: binding, values: values, version: version, existed: true)
    }

    /// The row of `id` as PostgreSQL holds it now, or `nil` if it is gone.
    private func fetchRow(_ entity: SyncedEntity, _ id: UInt64) throws -> [AttributeValue]? {
        let result = try connection.query(
            "SELECT \"id\", \(entity.canonicalColumns) FROM \(entity.table) "
                + "WHERE \"id\" = $1::bigint", [.int(Int64(clamping: id))])
        guard let row = result.rows.first else { return nil }
        return try Uploader.decodeRow(row, entity).1
    }

    /// Writes the position and acknowledgement reached into the store, if entries were passed
    /// over since the last commit (a commit that is not a save, so history skips it).
    func flush() throws {
        guard isDirty else { return }
        try core.saveLock.withLock { _ in
            try log.withLog { log in
                try log.catchUp()
                var batch = WriteBatch()
                let down = SyncRecords.Down(
                    position: position, acknowledged: acknowledged, clock: log.clock)
                batch.put(down.encoded, for: SyncRecords.downKey, in: SyncRecords.keyspace)
                try wrapStoreErrors { _ = try core.store.commit(batch) }
            }
        }
        isDirty = false
    }
}
