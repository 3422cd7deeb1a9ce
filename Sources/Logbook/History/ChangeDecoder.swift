import Foundation
import LogStore

/// Turns the operations of one commit into the changes of a save (FORMAT.md Part 2, "History"):
/// a put of an object record is an insert when its object version is 1 and an update otherwise,
/// a delete of an object key is a delete; the save's ``SaveRecord`` says which fields each
/// update changed. Commits without a save record are not saves (schema and bookkeeping writes).
///
/// The one place the changes of a commit are computed, from any source of operations: records
/// read back from the log, or a ``WriteBatch`` about to be (or just) committed. It learns schema
/// versions written after it was made from the commits it decodes (`logbook.schema` puts), so a
/// reader that follows another process keeps naming fields right across a migration.
///
/// Not thread-safe (it caches names); make one per reader.
struct ChangeDecoder {
    /// What it knows of each entity: the codec of its current version, by slot, and the slot of
    /// each entity's keyspace.
    private var codecs: [RecordCodec] = []
    private var entityNames: [String] = []
    private var slots: [String: Int] = [:]
    private var history: SchemaHistory
    /// Field names by entity slot, schema version and changed-fields mask, as updates report
    /// them; the last one found per slot answers a run of updates of the same fields.
    private var names: [NamesKey: [String]] = [:]
    private var lastNames: [(key: NamesKey, names: [String])?] = []
    /// What each keyspace a commit names is to history, for the few most recently met: names
    /// are compared (the log reader hands out the same string each time, so a hit is a
    /// pointer compare) before a dictionary of all keyspaces met is hashed.
    private var recentRoles: [(keyspace: String, role: Role)] = []
    private var roles: [String: Role] = [:]
    /// Scratch for one commit: its kept updates (where in its changes, the entity's slot, the
    /// record's schema version, and which update of the commit it is; the first `updateCount`
    /// count), and its save record's runs.
    private var updates: [(index: Int, slot: Int, schemaVersion: UInt64, ordinal: Int)] = []
    private var updateCount = 0
    private var runs: [SaveRecord.Run] = []

    private static let recentRoleCount = 8

    private struct NamesKey: Hashable {
        var slot: Int
        var version: UInt64
        var fields: UInt64
    }

    /// What a keyspace's records are to history.
    private enum Role {
        /// The objects of the entity whose codec is in this slot.
        case objects(Int)
        /// The save record (``SaveRecord``).
        case save
        /// Schema versions (``SchemaHistory``).
        case schema
        /// Anything else: indexes, bookkeeping.
        case other
    }

    init(history: SchemaHistory) {
        self.history = history
        rebuildCodecs()
    }

    private mutating func rebuildCodecs() {
        codecs = []
        entityNames = []
        slots = [:]
        names = [:]
        recentRoles = []
        roles = [:]
        if let current = history.current {
            for entity in current.entities {
                slots[entity.name] = codecs.count
                entityNames.append(entity.name)
                codecs.append(
                    RecordCodec(entity: entity, schemaVersion: current.version, history: history))
            }
        }
        lastNames = Array(repeating: nil, count: codecs.count)
    }

    /// What `keyspace` is to history.
    @inline(__always)
    private mutating func role(of keyspace: String) -> Role {
        // Lengths first: a mismatch of equal-length names is what costs a comparison call.
        let length = keyspace.utf8.count
        for recent in recentRoles
        where recent.keyspace.utf8.count == length && recent.keyspace == keyspace {
            return recent.role
        }
        return learnRole(of: keyspace)
    }

    private mutating func learnRole(of keyspace: String) -> Role {
        let role: Role
        if let known = roles[keyspace] {
            role = known
        } else {
            role =
                slots[keyspace].map { .objects($0) }
                ?? (keyspace == Keyspaces.history
                    ? .save : keyspace == Keyspaces.schema ? .schema : .other)
            roles[keyspace] = role
        }
        if recentRoles.count < Self.recentRoleCount { recentRoles.append((keyspace, role)) }
        return role
    }

    /// Calls `operation` with a commit's puts and deletes, in order (value `nil`: a delete).
    typealias Operations = (
        _ operation: (
            _ keyspace: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?
        )
            throws -> Void
    ) throws -> Void

    /// The save record and changes of the commit `sequence` whose operations `operations` gives;
    /// `nil` if the commit holds no save record. Only the changes `selection` keeps are returned
    /// (all by default); `tally` counts them all. With `values`, kept inserts and updates carry
    /// the object's decoded record.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a save record, schema
    ///   record or object record that does not decode, or updates that do not match the save
    ///   record's runs.
    /// - Complexity: O(bytes of the commit); no allocation per operation beyond the kept
    ///   changes, and their records when `values` asks for them.
    mutating func decode(
        sequence: UInt64, values: Bool, keeping selection: ChangeSelection = ChangeSelection(),
        _ operations: Operations
    ) throws -> (time: Date, author: String?, changes: [HistoryChange], tally: ChangeTally)? {
        var changes: [HistoryChange] = []
        var tally = ChangeTally()
        updateCount = 0
        // (`removeAll(keepingCapacity:)` costs a call even on an empty array.)
        if !runs.isEmpty { runs.removeAll(keepingCapacity: true) }
        var save: (time: Date, author: String?)?
        var learned = false
        try operations { keyspace, key, value in
            switch role(of: keyspace) {
            case .objects(let slot):
                guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else { return }
                let kept = changes.count < selection.limit && selection.keeps(entityNames[slot], pk)
                guard let value else {
                    tally.count(.delete, entityNames[slot])
                    if kept {
                        changes.append(
                            HistoryChange(
                                kind: .delete,
                                identifier: PersistentIdentifier(
                                    entityName: entityNames[slot], primaryKey: pk)))
                    }
                    return
                }
                var r = ByteReader(value)
                guard let schemaVersion = try? r.varint(), let objectVersion = try? r.varint()
                else {
                    throw LogbookError.corruptRecord(
                        entity: keyspace, key: String(pk), reason: "the record ends early")
                }
                let kind: HistoryChange.Kind = objectVersion == 1 ? .insert : .update
                tally.count(kind, entityNames[slot])
                if kind == .update && kept {
                    let update = (changes.count, slot, schemaVersion, tally.updated - 1)
                    if updateCount < updates.count {
                        updates[updateCount] = update
                    } else {
                        updates.append(update)
                    }
                    updateCount += 1
                }
                guard kept else { return }
                changes.append(
                    HistoryChange(
                        kind: kind,
                        identifier: PersistentIdentifier(
                            entityName: entityNames[slot], primaryKey: pk),
                        record: values ? try Self.record(value, pk, codecs[slot]) : nil))
            case .save:
                guard let value else { return }
                if !runs.isEmpty { runs.removeAll(keepingCapacity: true) }
                save = try SaveRecord.decode(value, sequence: sequence, runs: &runs)
            case .schema:
                guard let value, let version = Keyspaces.schemaVersion(ofKey: key) else { return }
                if history.versions[version] == nil {
                    history.add(try SchemaCodec.decode(value, key: String(version)))
                    learned = true
                }
            case .other: return
            }
        }
        if learned {
            rebuildCodecs()
            // Records of this commit may use the version it adds: decode them again.
            if tally.total > 0 || save != nil {
                return try decode(
                    sequence: sequence, values: values, keeping: selection, operations)
            }
        }
        guard let save else { return nil }
        try nameUpdatedFields(in: &changes, updates: tally.updated, sequence: sequence)
        return (save.time, save.author, changes, tally)
    }

    /// Gives each kept update in `changes` the fields its run (in ``runs``) names; the commit
    /// holds `total` updates in all, which the runs must describe.
    private mutating func nameUpdatedFields(
        in changes: inout [HistoryChange], updates total: Int, sequence: UInt64
    ) throws {
        guard total <= runs.reduce(0, { $0 + Int($1.count) }) else {
            throw LogbookError.corruptRecord(
                entity: Keyspaces.history, key: "save of commit \(sequence)",
                reason: "the commit holds more updates than the record describes")
        }
        // The run holding update `ordinal`: runs[run] covers updates from `first` on.
        var run = 0
        var first = 0
        for u in 0..<updateCount {
            let (index, slot, schemaVersion, ordinal) = updates[u]
            while first + Int(runs[run].count) <= ordinal {
                first += Int(runs[run].count)
                run += 1
            }
            let names = fieldNames(slot, schemaVersion, runs[run].fields)
            guard !names.isEmpty else { continue }
            let change = changes[index]
            changes[index] = HistoryChange(
                kind: .update, identifier: change.identifier, updatedAttributes: names,
                record: change.record)
        }
    }

    /// The names of the stored fields `fields` marks in schema `version` of the entity in
    /// `slot`.
    private mutating func fieldNames(_ slot: Int, _ version: UInt64, _ fields: UInt64)
        -> [String]
    {
        let key = NamesKey(slot: slot, version: version, fields: fields)
        if let last = lastNames[slot], last.key == key { return last.names }
        let found: [String]
        if let known = names[key] {
            found = known
        } else {
            let entity = entityNames[slot]
            let stored =
                version <= UInt64(UInt32.max)
                ? history.versions[UInt32(version)]?.entity(named: entity)?.storedFields
                    .attributes ?? [] : []
            found = stored.indices.filter { fields & fieldBit($0) != 0 }.map { stored[$0].name }
            names[key] = found
        }
        lastNames[slot] = (key, found)
        return found
    }

    /// The decoded record of an insert or update.
    private static func record(
        _ value: UnsafeRawBufferPointer, _ pk: UInt64, _ codec: RecordCodec
    ) throws -> DecodedRecord {
        let attributes = codec.entity.attributes
        var values = attributes.map(\.initialValue)
        let version = try codec.decode(value, key: String(pk)) { i, v in values[i] = v }
        return DecodedRecord(
            id: PersistentIdentifier(entityName: codec.entity.name, primaryKey: pk),
            version: version, attributes: zip(attributes, values).map { ($0.name, $1) })
    }
}
