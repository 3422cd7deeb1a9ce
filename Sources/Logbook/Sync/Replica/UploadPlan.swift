import Foundation

/// One object as a local save left it, for the upload: what happened to it, which fields
/// changed, and its values after the save.
struct ObjectChange {
    let entity: SyncedEntity
    let id: UInt64
    var kind: HistoryChange.Kind
    /// Positions of the fields the save changed (every field for an insert).
    var changed: [Int]
    /// Every field after the save (empty for a delete).
    var values: [AttributeValue]

    var identifier: PersistentIdentifier {
        PersistentIdentifier(entityName: entity.name, primaryKey: id)
    }

    /// The changed fields by name, with their values.
    var changedValues: [String: AttributeValue] {
        Dictionary(uniqueKeysWithValues: changed.map { (entity.fields[$0].name, values[$0]) })
    }

    /// The changes of one save, one per object (a commit may write an object twice: the last
    /// write's values count, an insert stays an insert, a delete wins), in first-write order.
    /// Entities the database does not sync are left out.
    /// - Throws: ``SyncError/valueNotRepresentable(entity:attribute:object:reason:)``.
    static func collapse(_ changes: [HistoryChange], in database: SyncDatabase) throws
        -> [ObjectChange]
    {
        var result: [ObjectChange] = []
        var positions: [PersistentIdentifier: Int] = [:]
        for change in changes {
            guard let entity = database.entities[change.identifier.entityName] else { continue }
            var values: [AttributeValue] = []
            if let record = change.record {
                values = Array(repeating: .null, count: entity.fields.count)
                for (name, value) in record.attributes {
                    if let i = entity.fieldIndex[name] { values[i] = value }
                }
            }
            let changed: [Int] =
                switch change.kind {
                case .insert: Array(entity.fields.indices)
                case .update: change.updatedAttributes.compactMap { entity.fieldIndex[$0] }
                case .delete: []
                }
            let next = ObjectChange(
                entity: entity, id: change.identifier.primaryKey, kind: change.kind,
                changed: changed, values: values)
            try next.checkRepresentable()
            guard let earlier = positions[change.identifier] else {
                positions[change.identifier] = result.count
                result.append(next)
                continue
            }
            var merged = result[earlier]
            if next.kind == .delete {
                merged.kind = .delete
                merged.changed = []
                merged.values = []
            } else if merged.kind != .delete {
                merged.changed = Array(Set(merged.changed).union(next.changed)).sorted()
                merged.values = next.values
            }
            result[earlier] = merged
        }
        return result
    }

    /// Throws if a changed value cannot be stored in PostgreSQL.
    private func checkRepresentable() throws {
        for i in changed {
            let reason: String?
            switch values[i] {
            case .string(let text) where text.utf8.contains(0):
                reason = "PostgreSQL text cannot hold the NUL character"
            case .date(let date) where PostgreSQLValue.microsecondsSince2000(date) == nil:
                reason = "the date is outside PostgreSQL's range (4713 BC to 294276 AD)"
            default: reason = nil
            }
            if let reason {
                throw LogbookError.sync(
                    .valueNotRepresentable(
                        entity: entity.name, attribute: entity.fields[i].name,
                        object: identifier.description, reason: reason))
            }
        }
    }
}

/// The state of a row in `logbook_sync.rows`: whether it was deleted, the change-log position
/// and origin of its last change, and per field place the stamp and origin of its last write.
struct RowStamps {
    var deleted = false
    var position: UInt64 = 0
    var writer: Int32 = 0
    var stamps: [UInt64?] = []
    var writers: [Int32?] = []

    /// The stamp and origin of the last write of the field at 1-based `place` ((0, 0): none).
    func stamp(at place: Int) -> (UInt64, Int32) {
        guard place >= 1, place <= stamps.count, let stamp = stamps[place - 1] else {
            return (0, 0)
        }
        return (stamp, place <= writers.count ? writers[place - 1] ?? 0 : 0)
    }

    /// Records a write of the field at `place`.
    mutating func set(place: Int, stamp: UInt64, origin: Int32) {
        while stamps.count < place { stamps.append(nil) }
        while writers.count < place { writers.append(nil) }
        stamps[place - 1] = stamp
        writers[place - 1] = origin
    }

    /// Reads the columns `deleted, position, writer, stamps, writers` of `row` from `start`.
    init(_ row: PostgreSQLRow, from start: Int) throws {
        deleted = try row.decode(start, as: Bool.self)
        position = UInt64(clamping: try row.decode(start + 1, as: Int64.self))
        writer = Int32(clamping: try row.decode(start + 2, as: Int64.self))
        let stampText = try row.decode(start + 3, as: String.self)
        let writerText = try row.decode(start + 4, as: String.self)
        stamps = (SyncSQL.parseArray(stampText) ?? []).map { $0.flatMap { UInt64($0) } }
        writers = (SyncSQL.parseArray(writerText) ?? []).map { $0.flatMap { Int32($0) } }
    }

    init() {}
}
