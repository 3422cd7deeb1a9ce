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
    /// What it knows of each entity: the codec of its current version, by keyspace name.
    private var codecs: [String: RecordCodec] = [:]
    private var history: SchemaHistory
    /// Field names by entity, schema version and changed-fields mask, as updates report them.
    private var names: [NamesKey: [String]] = [:]
    /// Scratch for one commit's object operations, reused.
    private var pending: [Pending] = []

    private struct NamesKey: Hashable {
        var entity: String
        var version: UInt64
        var fields: UInt64
    }

    private struct Pending {
        var kind: HistoryChange.Kind
        var entity: String
        var primaryKey: UInt64
        /// The schema version of an update's record (its fields' names depend on it).
        var schemaVersion: UInt64
        var record: DecodedRecord?
    }

    init(history: SchemaHistory) {
        self.history = history
        rebuildCodecs()
    }

    private mutating func rebuildCodecs() {
        codecs = [:]
        guard let current = history.current else { return }
        for entity in current.entities {
            codecs[entity.name] = RecordCodec(
                entity: entity, schemaVersion: current.version, history: history)
        }
    }

    /// Calls `operation` with a commit's puts and deletes, in order (value `nil`: a delete).
    typealias Operations = (
        _ operation: (
            _ keyspace: String, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?
        )
            throws -> Void
    ) throws -> Void

    /// The save record and changes of the commit `sequence` whose operations `operations` gives;
    /// `nil` if the commit holds no save record. With `values`, inserts and updates carry the
    /// object's decoded record.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a save record, schema
    ///   record or object record that does not decode, or updates that do not match the save
    ///   record's runs.
    mutating func decode(sequence: UInt64, values: Bool, _ operations: Operations) throws -> (
        save: SaveRecord, changes: [HistoryChange]
    )? {
        pending.removeAll(keepingCapacity: true)
        var save: SaveRecord?
        var learned = false
        try operations { keyspace, key, value in
            if let codec = codecs[keyspace] {
                guard let pk = RecordCodec.primaryKey(key) else { return }
                guard let value else {
                    pending.append(
                        Pending(
                            kind: .delete, entity: codec.entity.name, primaryKey: pk,
                            schemaVersion: 0, record: nil))
                    return
                }
                var r = ByteReader(value)
                guard let schemaVersion = try? r.varint(), let objectVersion = try? r.varint()
                else {
                    throw LogbookError.corruptRecord(
                        entity: keyspace, key: String(pk), reason: "the record ends early")
                }
                pending.append(
                    Pending(
                        kind: objectVersion == 1 ? .insert : .update, entity: codec.entity.name,
                        primaryKey: pk, schemaVersion: schemaVersion,
                        record: values ? try Self.record(value, pk, codec) : nil))
            } else if keyspace == SaveRecord.keyspace, let value {
                save = try SaveRecord(decoding: value, sequence: sequence)
            } else if keyspace == SchemaHistory.keyspace, let value, key.count == 4 {
                let version = key.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                if history.versions[version] == nil {
                    history.add(try SchemaCodec.decode(value, key: String(version)))
                    learned = true
                }
            }
        }
        if learned {
            rebuildCodecs()
            // Records of this commit may use the version it adds: decode them again.
            if pending.isEmpty == false || save != nil {
                return try decode(sequence: sequence, values: values, operations)
            }
        }
        guard let save else { return nil }
        return (save, try changes(of: save, sequence: sequence))
    }

    /// The pending operations as changes, each update with the fields its run names.
    private mutating func changes(of save: SaveRecord, sequence: UInt64) throws -> [HistoryChange] {
        var changes: [HistoryChange] = []
        changes.reserveCapacity(pending.count)
        var run = 0
        var left = save.runs.first?.count ?? 0
        for operation in pending {
            let id = PersistentIdentifier(
                entityName: operation.entity, primaryKey: operation.primaryKey)
            guard operation.kind == .update else {
                changes.append(
                    HistoryChange(kind: operation.kind, identifier: id, record: operation.record))
                continue
            }
            while left == 0 && run < save.runs.count - 1 {
                run += 1
                left = save.runs[run].count
            }
            guard left > 0 else {
                throw LogbookError.corruptRecord(
                    entity: SaveRecord.keyspace, key: "save of commit \(sequence)",
                    reason: "the commit holds more updates than the record describes")
            }
            left -= 1
            changes.append(
                HistoryChange(
                    kind: .update, identifier: id,
                    updatedAttributes: fieldNames(
                        operation.entity, operation.schemaVersion, save.runs[run].fields),
                    record: operation.record))
        }
        return changes
    }

    /// The names of the stored fields `fields` marks in `entity`'s schema `version`.
    private mutating func fieldNames(_ entity: String, _ version: UInt64, _ fields: UInt64)
        -> [String]
    {
        let key = NamesKey(entity: entity, version: version, fields: fields)
        if let known = names[key] { return known }
        let stored =
            version <= UInt64(UInt32.max)
            ? history.versions[UInt32(version)]?.entity(named: entity)?.storedFields.attributes
                ?? [] : []
        let found = stored.indices.filter { fields & fieldBit($0) != 0 }.map { stored[$0].name }
        names[key] = found
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
