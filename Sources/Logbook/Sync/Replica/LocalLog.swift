import Foundation
import LogStore

/// What a replica knows of its store's own saves: the stamp each gets on the hybrid logical
/// clock, which are not yet in PostgreSQL, and which fields of which objects they changed that
/// PostgreSQL has not confirmed yet (the change log has not shown the save's marker back).
///
/// The stamps are a pure function of the log: a save's stamp is the larger of its wall-clock
/// time and one past the clock before it, and the clock also takes in every stamp a change from
/// PostgreSQL brought (each down commit records the clock after it). Any walk of the log from a
/// known point therefore gives each save the stamp it was sent with.
///
/// Not thread-safe: the engine guards it with a lock.
final class LocalLog {
    /// A save of the app.
    struct Save: Sendable {
        let sequence: UInt64
        let stamp: UInt64
        /// The change-log position the store had applied when it saved (what it knew).
        let knowledge: UInt64
        let time: Date
    }

    /// An object, by entity name and primary key.
    struct ObjectKey: Hashable {
        let entity: String
        let id: UInt64
    }

    /// The local changes of one object PostgreSQL has not confirmed: per field, the newest
    /// stamp, and the stamp of a delete.
    struct Pending {
        var fields: [String: UInt64] = [:]
        var deleted: UInt64?
    }

    private var reader: ReplicaCommitReader
    /// The clock after the last commit read, and the position the last down record read gave.
    private(set) var clock: UInt64
    private(set) var knowledge: UInt64
    /// Saves at or before it are in PostgreSQL.
    private(set) var sentThrough: UInt64
    /// Saves at or before it were seen back in the change log.
    private(set) var acknowledged: UInt64
    /// Stamps of saves sent before this walk began, by sequence (from their markers).
    private var sentStamps: [UInt64: UInt64]
    /// Saves after ``sentThrough``, oldest first (from `unsentHead`).
    private var unsentSaves: [Save] = []
    private var unsentHead = 0
    /// Saves after ``acknowledged`` with the objects they updated or deleted, oldest first.
    private var unacknowledged: [(save: Save, objects: [ObjectKey])] = []
    private var unacknowledgedHead = 0
    private var pending: [ObjectKey: Pending] = [:]

    /// A walk of `store`'s log from save `acknowledged` on. Saves up to `sentThrough` are in
    /// PostgreSQL with the stamps `sentStamps` gives; after it the clock stood at `clock` and
    /// the store knew the change log up to `knowledge` (what PostgreSQL recorded with the save).
    /// - Throws: as ``ReplicaCommitReader/init(store:after:values:)``.
    init(
        store: LogStore, acknowledged: UInt64, sentThrough: UInt64, clock: UInt64,
        knowledge: UInt64, sentStamps: [UInt64: UInt64]
    ) throws {
        reader = try ReplicaCommitReader(store: store, after: acknowledged, values: false)
        self.acknowledged = acknowledged
        self.sentThrough = max(sentThrough, acknowledged)
        self.clock = clock
        self.knowledge = knowledge
        self.sentStamps = sentStamps
    }

    /// The sequence number of the last commit read.
    var scanned: UInt64 { reader.lastSequence }

    /// The saves not yet in PostgreSQL, oldest first.
    var unsent: ArraySlice<Save> { unsentSaves[unsentHead...] }

    /// Reads the commits made since the last call.
    /// - Throws: ``SyncError/databaseBehind(store:database:)`` when a save PostgreSQL is said
    ///   to hold has no marker there; the errors of ``ReplicaCommitReader/next()``.
    func catchUp() throws {
        while let commit = try reader.next() {
            switch commit {
            case .save(let sequence, let time, let changes):
                let stamp: UInt64
                if sequence <= sentThrough {
                    guard let sent = sentStamps.removeValue(forKey: sequence) else {
                        throw LogbookError.sync(
                            .databaseBehind(store: sequence, database: sentThrough))
                    }
                    stamp = sent
                } else {
                    stamp = HybridClock.stamp(at: time, after: clock)
                    clock = stamp
                }
                let save = Save(sequence: sequence, stamp: stamp, knowledge: knowledge, time: time)
                if sequence > sentThrough { unsentSaves.append(save) }
                remember(save, changes)
            case .replica(let sequence, let down):
                guard let down, sequence > sentThrough else { continue }
                clock = max(clock, down.clock)
                knowledge = max(knowledge, down.position)
            case .other:
                continue
            }
        }
    }

    /// Records which fields `save` changed, for ``localStamp(of:field:)``.
    private func remember(_ save: Save, _ changes: [HistoryChange]) {
        var objects: [ObjectKey] = []
        for change in changes where change.kind != .insert {
            let key = ObjectKey(
                entity: change.identifier.entityName, id: change.identifier.primaryKey)
            objects.append(key)
            var entry = pending[key] ?? Pending()
            if change.kind == .delete {
                entry.deleted = save.stamp
            } else {
                for name in change.updatedAttributes { entry.fields[name] = save.stamp }
            }
            pending[key] = entry
        }
        unacknowledged.append((save, objects))
    }

    /// The newest stamp of a local change of `field` of `object` that PostgreSQL has not
    /// confirmed, if there is one.
    func localStamp(of object: ObjectKey, field: String) -> UInt64? {
        pending[object]?.fields[field]
    }

    /// Whether a local delete of `object` is not confirmed yet.
    func isDeletedLocally(_ object: ObjectKey) -> Bool { pending[object]?.deleted != nil }

    /// The save `sequence` and those before it are in PostgreSQL.
    func sent(through sequence: UInt64) {
        sentThrough = max(sentThrough, sequence)
        while unsentHead < unsentSaves.count && unsentSaves[unsentHead].sequence <= sequence {
            unsentHead += 1
        }
        if unsentHead > 1024 && unsentHead * 2 > unsentSaves.count {
            unsentSaves.removeFirst(unsentHead)
            unsentHead = 0
        }
    }

    /// The change log showed the marker of save `sequence`: it and every save before it are
    /// in PostgreSQL, and every change written before them was read, so their local changes
    /// no longer need to win over older changes coming down.
    func acknowledge(through sequence: UInt64) {
        guard sequence > acknowledged else { return }
        acknowledged = sequence
        sent(through: sequence)
        while unacknowledgedHead < unacknowledged.count,
            unacknowledged[unacknowledgedHead].save.sequence <= sequence
        {
            let (save, objects) = unacknowledged[unacknowledgedHead]
            unacknowledgedHead += 1
            for key in objects {
                guard var entry = pending[key] else { continue }
                entry.fields = entry.fields.filter { $0.value > save.stamp }
                if let deleted = entry.deleted, deleted <= save.stamp { entry.deleted = nil }
                pending[key] = entry.fields.isEmpty && entry.deleted == nil ? nil : entry
            }
        }
        if unacknowledgedHead > 1024 && unacknowledgedHead * 2 > unacknowledged.count {
            unacknowledged.removeFirst(unacknowledgedHead)
            unacknowledgedHead = 0
        }
    }

    /// The save with sequence number `sequence`, if it is one not yet sent.
    func unsentSave(_ sequence: UInt64) -> Save? {
        unsent.first { $0.sequence == sequence }
    }
}

/// A ``LocalLog`` behind a lock, shared by the replica's threads. Lock order: the container's
/// save lock first, then this one; no code holding this lock takes the save lock.
final class LocalLogAccess: Sendable {
    private let locked: Locked<LocalLog>

    init(_ log: consuming sending LocalLog) { locked = Locked(log) }

    /// Runs `body` with the log, under the lock.
    func withLog<T: Sendable>(_ body: (LocalLog) throws -> T) throws -> T {
        try locked.withLock { log throws -> T in try body(log) }
    }

    /// Runs `body` with the log, under the lock.
    func withLog<T: Sendable>(_ body: (LocalLog) -> T) -> T {
        locked.withLock { log -> T in body(log) }
    }
}
