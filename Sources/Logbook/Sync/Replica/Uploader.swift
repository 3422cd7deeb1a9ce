import Foundation

/// Applies the store's saves in PostgreSQL: each save one transaction, in order, exactly once.
///
/// A transaction takes the sync lock, checks the origin's watermark (`up_sequence`: a save at
/// or below it is already there, so a replay changes nothing), reads the stamps and current
/// values of the objects the save updates or deletes, decides per object what PostgreSQL keeps
/// (last writer wins per field, or the entity's resolver; a delete wins; a unique value stays
/// with the object that held it first), then writes the rows, their stamps, the change log
/// (an echo of what was applied as the save had it, which the origin skips, and a correction
/// for the origin where PostgreSQL keeps something else), the save's marker, and the new
/// watermark, and commits. Three round trips per save: the reads, the change log's rows (one
/// `COPY`, ``ChangeLogRows``), the other writes with the `COMMIT`.
///
/// Not thread-safe: one uploader per connection, used from one thread.
final class Uploader {
    let connection: PostgreSQLConnection
    let origin: Int32
    /// The author of the changes this replica writes (`replica:<name>`).
    let author: String
    let database: SyncDatabase
    let resolvers: [String: @Sendable (SyncConflict) -> SyncResolution]
    let report: (SyncConflictReport) -> Void

    init(
        connection: PostgreSQLConnection, origin: Int32, author: String, database: SyncDatabase,
        resolvers: [String: @Sendable (SyncConflict) -> SyncResolution],
        report: @escaping (SyncConflictReport) -> Void
    ) {
        self.connection = connection
        self.origin = origin
        self.author = author
        self.database = database
        self.resolvers = resolvers
        self.report = report
    }

    /// What PostgreSQL holds for the objects of a save, read under the sync lock.
    private struct Snapshot {
        var upSequence: UInt64 = 0
        var nextPosition: UInt64 = 1
        /// The transaction's `txid_current()`, which its change log rows carry.
        var xact: Int64 = 0
        var rows: [PersistentIdentifier: RowStamps] = [:]
        var current: [PersistentIdentifier: [AttributeValue]] = [:]
        /// Per entity and unique field position: canonical value → ids holding it.
        var holders: [String: [Int: [String: [UInt64]]]] = [:]
    }

    /// What PostgreSQL ends with for one object of the save.
    private struct Outcome {
        var change: ObjectChange
        /// Write the row (insert or update) or delete it; `false`: leave it.
        var write = false
        /// For an update: the fields written, with their values.
        var written: [Int] = []
        var values: [AttributeValue] = []
        /// The row after the transaction (`nil`: gone).
        var final: [AttributeValue]?
        var stamps = RowStamps()
        var refusedInsert = false
        var deletedMeanwhile = false
    }

    /// Applies `changes`, the save `save`, unless PostgreSQL has it already.
    /// - Returns: `false` if PostgreSQL had the save already (nothing was written).
    /// - Throws: ``LogbookError/postgreSQL(_:)`` (then nothing of the save is in PostgreSQL, or,
    ///   for a connection lost during COMMIT, all of it may be: the watermark tells on retry);
    ///   ``SyncError/valueNotReadable(table:column:id:text:)``.
    func upload(_ save: LocalLog.Save, changes: [ObjectChange]) throws -> Bool {
        do {
            let snapshot = try read(save, changes)
            guard snapshot.upSequence < save.sequence else {
                try connection.simpleQuery("ROLLBACK")
                return false
            }
            let outcomes = decide(save, changes, snapshot)
            let (sql, changeLog) = writeSQL(save, outcomes, snapshot)
            try connection.copyIn(ChangeLogRows.copySQL) { write in try write(changeLog.bytes) }
            try connection.simpleQuery(sql + "COMMIT;")
            return true
        } catch {
            if !connection.isClosed && connection.transactionStatus != .idle {
                _ = try? connection.simpleQuery("ROLLBACK")
            }
            throw error
        }
    }

    // MARK: Reading

    private func read(_ save: LocalLog.Save, _ changes: [ObjectChange]) throws -> Snapshot {
        var sql = """
            BEGIN;
            SELECT pg_advisory_xact_lock(\(SyncCatalog.lock));
            SELECT set_config('\(SyncCatalog.originSetting)', '\(origin)', true);
            SELECT up_sequence, (SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END
              FROM logbook_sync.positions), txid_current() FROM logbook_sync.replicas
              WHERE origin = \(origin) FOR UPDATE;

            """
        enum Read {
            case rows(SyncedEntity)
            case current(SyncedEntity)
            case holders(SyncedEntity, Int)
        }
        var reads: [Read] = []
        var byEntity:
            [String: (entity: SyncedEntity, touched: [UInt64], unique: [Int: Set<String>])] =
                [:]
        var order: [String] = []
        for change in changes {
            let name = change.entity.name
            if byEntity[name] == nil {
                byEntity[name] = (change.entity, [], [:])
                order.append(name)
            }
            if change.kind != .insert { byEntity[name]!.touched.append(change.id) }
            for u in change.entity.unique where change.changed.contains(u) {
                if !change.values[u].isNull {
                    var literal: [UInt8] = []
                    PostgreSQLLiteral.append(
                        change.values[u], as: change.entity.fields[u], to: &literal)
                    byEntity[name]!.unique[u, default: []].insert(
                        String(decoding: literal, as: UTF8.self))
                }
            }
        }
        for name in order {
            let (entity, touched, unique) = byEntity[name]!
            if !touched.isEmpty {
                let ids = touched.map { String($0) }.joined(separator: ", ")
                sql +=
                    "SELECT id, deleted, position, writer, stamps::text, writers::text "
                    + "FROM logbook_sync.rows WHERE entity = \(SyncSQL.literal(name)) "
                    + "AND id IN (\(ids));\n"
                sql +=
                    "SELECT \"id\", \(entity.canonicalColumns) FROM \(entity.table) "
                    + "WHERE \"id\" IN (\(ids));\n"
                reads += [.rows(entity), .current(entity)]
            }
            for (u, literals) in unique.sorted(by: { $0.key < $1.key }) {
                let field = entity.fields[u]
                let column = PostgreSQLTable.identifier(field.name)
                sql +=
                    "SELECT \"id\", \(CanonicalText.expression(column, field)) "
                    + "FROM \(entity.table) WHERE \(column) IN ("
                    + literals.sorted().joined(separator: ", ") + ");\n"
                reads.append(.holders(entity, u))
            }
        }
        let results = try connection.simpleQuery(sql)
        // BEGIN, the lock, the setting, the watermark, then the reads in order.
        guard results.count == 4 + reads.count else {
            throw LogbookError.postgreSQL(
                .protocolViolation(reason: "a batch of statements gave \(results.count) results"))
        }
        var snapshot = Snapshot()
        guard let watermark = results[3].rows.first else {
            throw LogbookError.sync(
                .unsupportedDatabase(reason: "replica \(origin) is not in logbook_sync.replicas"))
        }
        snapshot.upSequence = UInt64(clamping: try watermark.decode(0, as: Int64.self))
        snapshot.nextPosition = UInt64(clamping: try watermark.decode(1, as: Int64.self))
        snapshot.xact = try watermark.decode(2, as: Int64.self)
        for (read, result) in zip(reads, results[4...]) {
            switch read {
            case .rows(let entity):
                for row in result.rows {
                    let id = PersistentIdentifier(
                        entityName: entity.name,
                        primaryKey: UInt64(clamping: try row.decode(0, as: Int64.self)))
                    snapshot.rows[id] = try RowStamps(row, from: 1)
                }
            case .current(let entity):
                for row in result.rows {
                    let (id, values) = try Self.decodeRow(row, entity)
                    snapshot.current[
                        PersistentIdentifier(entityName: entity.name, primaryKey: id)] = values
                }
            case .holders(let entity, let u):
                for row in result.rows {
                    let id = UInt64(clamping: try row.decode(0, as: Int64.self))
                    guard let text = try row.decode(1, as: String?.self) else { continue }
                    snapshot.holders[entity.name, default: [:]][u, default: [:]][text, default: []]
                        .append(id)
                }
            }
        }
        return snapshot
    }

    /// A row read as `id, <canonical columns>`.
    static func decodeRow(_ row: PostgreSQLRow, _ entity: SyncedEntity) throws -> (
        UInt64, [AttributeValue]
    ) {
        let id = try row.decode(0, as: Int64.self)
        var values: [AttributeValue] = []
        values.reserveCapacity(entity.fields.count)
        for (i, field) in entity.fields.enumerated() {
            let text = try row.decode(i + 1, as: String?.self)
            guard let value = CanonicalText.value(text, field) else {
                throw LogbookError.sync(
                    .valueNotReadable(
                        table: entity.name, column: field.name, id: id, text: text ?? ""))
            }
            values.append(value)
        }
        return (UInt64(clamping: id), values)
    }

    // MARK: Deciding

    private func decide(_ save: LocalLog.Save, _ changes: [ObjectChange], _ snapshot: Snapshot)
        -> [Outcome]
    {
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(changes.count)
        for change in changes {
            var outcome = Outcome(change: change)
            let id = change.identifier
            outcome.stamps = snapshot.rows[id] ?? RowStamps()
            switch change.kind {
            case .insert:
                outcome.write = true
                outcome.written = change.changed
                outcome.values = change.values
                outcome.final = change.values
            case .delete:
                outcome.write = snapshot.current[id] != nil
                outcome.final = nil
            case .update:
                guard let current = snapshot.current[id] else {
                    outcome.deletedMeanwhile = true
                    report(.deletedMeanwhile(id, lostValues: change.changedValues))
                    outcomes.append(outcome)
                    continue
                }
                decideUpdate(&outcome, save, current)
            }
            outcomes.append(outcome)
        }
        refuseUniqueClashes(&outcomes, snapshot)
        return outcomes
    }

    /// Last writer wins per field, or the entity's resolver when the object changed in
    /// PostgreSQL since the store last read its changes (by another origin).
    private func decideUpdate(
        _ outcome: inout Outcome, _ save: LocalLog.Save, _ current: [AttributeValue]
    ) {
        let change = outcome.change
        let entity = change.entity
        let stamps = outcome.stamps
        let newer = Set(
            change.changed.filter { i in
                let (stamp, writer) = stamps.stamp(at: entity.places[entity.fields[i].name] ?? 0)
                return HybridClock.isLater(stamp, writer, than: save.stamp, origin)
            })
        let concurrent = stamps.position > save.knowledge && stamps.writer != origin
        var resolution = SyncResolution.lastWriterWins
        if concurrent, let resolver = resolvers[entity.name] {
            resolution = resolver(
                SyncConflict(
                    identifier: change.identifier, local: change.changedValues,
                    remote: Dictionary(
                        uniqueKeysWithValues: entity.fields.indices.map {
                            (entity.fields[$0].name, current[$0])
                        }),
                    newerRemotely: Set(newer.map { entity.fields[$0].name })))
            report(.resolved(change.identifier, resolution))
        }
        var values = current
        var written: [Int] = []
        switch resolution {
        case .lastWriterWins:
            written = change.changed.filter { !newer.contains($0) }
            for i in written { values[i] = change.values[i] }
        case .keepLocal:
            written = change.changed
            for i in written { values[i] = change.values[i] }
        case .keepRemote:
            break
        case .values(let chosen):
            for (name, value) in chosen {
                guard let i = entity.fieldIndex[name] else { continue }
                written.append(i)
                values[i] = value
            }
            written.sort()
        }
        outcome.write = !written.isEmpty
        outcome.written = written
        outcome.values = values
        outcome.final = values
    }

    /// A unique value stays with the object that holds it in PostgreSQL (or, within the save,
    /// with the object written first): a clashing update keeps PostgreSQL's value of that
    /// field, a clashing insert is refused.
    private func refuseUniqueClashes(_ outcomes: inout [Outcome], _ snapshot: Snapshot) {
        var inSave: [PersistentIdentifier: Int] = [:]
        for (k, outcome) in outcomes.enumerated() { inSave[outcome.change.identifier] = k }
        for k in outcomes.indices {
            let entity = outcomes[k].change.entity
            for u in entity.unique where outcomes[k].write && outcomes[k].written.contains(u) {
                guard let final = outcomes[k].final,
                    let text = CanonicalText.text(final[u], entity.fields[u])
                else { continue }
                let id = outcomes[k].change.id
                var holder: UInt64?
                for other in snapshot.holders[entity.name]?[u]?[text] ?? [] where other != id {
                    let key = PersistentIdentifier(entityName: entity.name, primaryKey: other)
                    if let j = inSave[key] {
                        // It holds the value after this save only if the save left it so.
                        if j < k, let theirs = outcomes[j].final,
                            CanonicalText.text(theirs[u], entity.fields[u]) == text
                        {
                            holder = other
                        } else if j > k, !outcomes[j].written.contains(u),
                            outcomes[j].final != nil
                        {
                            holder = other
                        }
                    } else {
                        holder = other
                    }
                    if holder != nil { break }
                }
                if holder == nil {
                    for j in 0..<k where outcomes[j].change.entity.name == entity.name {
                        if let theirs = outcomes[j].final,
                            CanonicalText.text(theirs[u], entity.fields[u]) == text
                        {
                            holder = outcomes[j].change.id
                            break
                        }
                    }
                }
                guard let holder else { continue }
                let change = outcomes[k].change
                let insert = change.kind == .insert
                report(
                    .uniqueClash(
                        attribute: entity.fields[u].name, value: final[u].description,
                        kept: PersistentIdentifier(entityName: entity.name, primaryKey: holder),
                        refused: change.identifier, insertRefused: insert,
                        lostValues: insert
                            ? change.changedValues : [entity.fields[u].name: final[u]]))
                if insert {
                    outcomes[k].write = false
                    outcomes[k].final = nil
                    outcomes[k].refusedInsert = true
                } else if let current = snapshot.current[change.identifier] {
                    outcomes[k].written.removeAll { $0 == u }
                    outcomes[k].values[u] = current[u]
                    outcomes[k].final?[u] = current[u]
                    outcomes[k].write = !outcomes[k].written.isEmpty
                }
            }
        }
    }

    // MARK: Writing

    /// The statements of the save's writes but the change log, and the change log's rows.
    private func writeSQL(
        _ save: LocalLog.Save, _ outcomes: [Outcome], _ snapshot: Snapshot
    ) -> (sql: String, changeLog: ChangeLogRows) {
        var sql = ""
        var position = snapshot.nextPosition
        var changeRows = ChangeLogRows()
        var stampRows: [String] = []
        func changeRow(
            echo: Bool, entity: String?, id: UInt64?, op: Character, columns: [String]?,
            values: [String?]?
        ) {
            changeRows.append(
                position: position, xact: snapshot.xact, origin: origin,
                sequence: save.sequence, echo: echo, target: echo ? nil : origin, author: author,
                entity: entity, id: id, op: op, columns: columns, values: values,
                stamp: save.stamp)
            position += 1
        }
        var links: [PostgreSQLJoinTable: [UInt8]] = [:]
        var inserts: [String: (entity: SyncedEntity, rows: [String])] = [:]
        var insertOrder: [String] = []
        for outcome in outcomes {
            let change = outcome.change
            let entity = change.entity
            let fields = entity.fields
            if outcome.write {
                switch change.kind {
                case .insert:
                    if inserts[entity.name] == nil {
                        inserts[entity.name] = (entity, [])
                        insertOrder.append(entity.name)
                    }
                    var row: [UInt8] = Array("(\(change.id)".utf8)
                    for (i, (value, field)) in zip(change.values, fields).enumerated() {
                        if let join = entity.joins[i] {
                            let keys = PostgreSQLJoinTable.keys(value) ?? []
                            join.appendRows(
                                owner: change.id, keys: keys, to: &links[join, default: []])
                            continue
                        }
                        row.append(contentsOf: ", ".utf8)
                        PostgreSQLLiteral.append(value, as: field, to: &row)
                    }
                    row.append(UInt8(ascii: ")"))
                    inserts[entity.name]!.rows.append(String(decoding: row, as: UTF8.self))
                    changeRow(
                        echo: true, entity: entity.name, id: change.id, op: "i",
                        columns: fields.map(\.name),
                        values: zip(change.values, fields).map { CanonicalText.text($0, $1) })
                case .update:
                    var assignments: [UInt8] = []
                    for i in outcome.written {
                        if let join = entity.joins[i] {
                            sql += linkChanges(
                                join, change.id, from: snapshot.current[change.identifier]?[i],
                                to: outcome.values[i])
                            continue
                        }
                        if !assignments.isEmpty { assignments.append(contentsOf: ", ".utf8) }
                        assignments.append(
                            contentsOf: (PostgreSQLTable.identifier(fields[i].name) + " = ").utf8)
                        PostgreSQLLiteral.append(outcome.values[i], as: fields[i], to: &assignments)
                    }
                    if !assignments.isEmpty {
                        sql +=
                            "UPDATE \(entity.table) SET "
                            + String(decoding: assignments, as: UTF8.self)
                            + " WHERE \"id\" = \(change.id);\n"
                    }
                    var stamps = outcome.stamps
                    stamps.deleted = false
                    stamps.position = position
                    stamps.writer = origin
                    for i in outcome.written {
                        stamps.set(
                            place: entity.places[fields[i].name] ?? 0, stamp: save.stamp,
                            origin: origin)
                    }
                    stampRows.append(stampRow(entity.name, change.id, stamps))
                    // The echo: what was applied as the save had it.
                    let echoed = outcome.written.filter {
                        CanonicalText.text(outcome.values[$0], fields[$0])
                            == CanonicalText.text(change.values[$0], fields[$0])
                    }
                    if !echoed.isEmpty {
                        changeRow(
                            echo: true, entity: entity.name, id: change.id, op: "u",
                            columns: echoed.map { fields[$0].name },
                            values: echoed.map { CanonicalText.text(change.values[$0], fields[$0]) }
                        )
                    }
                case .delete:
                    for join in entity.joins.values { sql += join.deleteLinks(of: [change.id]) }
                    sql += "DELETE FROM \(entity.table) WHERE \"id\" = \(change.id);\n"
                    var stamps = outcome.stamps
                    stamps.deleted = true
                    stamps.position = position
                    stamps.writer = origin
                    stampRows.append(stampRow(entity.name, change.id, stamps))
                    changeRow(
                        echo: true, entity: entity.name, id: change.id, op: "d", columns: nil,
                        values: nil)
                }
            }
            // The correction: where PostgreSQL ends with something else than the save left.
            if outcome.refusedInsert || outcome.deletedMeanwhile {
                changeRow(
                    echo: false, entity: entity.name, id: change.id, op: "d", columns: nil,
                    values: nil)
            } else if change.kind != .delete, let final = outcome.final {
                let differing = Set(change.changed + outcome.written).sorted().filter {
                    CanonicalText.text(final[$0], fields[$0])
                        != CanonicalText.text(change.values[$0], fields[$0])
                }
                if !differing.isEmpty {
                    changeRow(
                        echo: false, entity: entity.name, id: change.id, op: "u",
                        columns: differing.map { fields[$0].name },
                        values: differing.map { CanonicalText.text(final[$0], fields[$0]) })
                }
            }
        }
        var inserted = ""
        for name in insertOrder {
            let (entity, rows) = inserts[name]!
            let fields = entity.columnFields.map { entity.fields[$0] }
            let columns = ["\"id\""] + fields.map { PostgreSQLTable.identifier($0.name) }
            let update = fields.map {
                let column = PostgreSQLTable.identifier($0.name)
                return "\(column) = EXCLUDED.\(column)"
            }
            var start = 0
            while start < rows.count {
                let end = min(start + 1000, rows.count)
                inserted +=
                    "INSERT INTO \(entity.table) (\(columns.joined(separator: ", "))) VALUES\n"
                inserted += rows[start..<end].joined(separator: ",\n")
                inserted +=
                    "\nON CONFLICT (\"id\") DO UPDATE SET \(update.joined(separator: ", "));\n"
                start = end
            }
        }
        for (join, rows) in links.sorted(by: { $0.key.name < $1.key.name }) {
            inserted += join.insert(rows)
        }
        // The marker: the save is in PostgreSQL.
        changeRow(echo: true, entity: nil, id: nil, op: "m", columns: nil, values: nil)
        sql = inserted + sql
        var start = 0
        while start < stampRows.count {
            let end = min(start + 1000, stampRows.count)
            sql +=
                "INSERT INTO logbook_sync.rows (entity, id, deleted, position, writer, stamps, "
                + "writers) VALUES\n" + stampRows[start..<end].joined(separator: ",\n")
                + "\nON CONFLICT (entity, id) DO UPDATE SET deleted = EXCLUDED.deleted, "
                + "position = EXCLUDED.position, writer = EXCLUDED.writer, "
                + "stamps = EXCLUDED.stamps, writers = EXCLUDED.writers;\n"
            start = end
        }
        sql += """
            SELECT setval('logbook_sync.positions', \(position - 1));
            UPDATE logbook_sync.replicas SET up_sequence = \(save.sequence), up_clock = \(save.stamp),
              up_knowledge = \(save.knowledge), seen_at = now() WHERE origin = \(origin);
            UPDATE logbook_sync.clock SET hlc = greatest(hlc, \(save.stamp));
            SELECT pg_notify('\(SyncCatalog.channel)', '');

            """
        return (sql, changeRows)
    }

    /// The statements that take the links of `owner` in `join` from `old` to `new` (stored
    /// link lists): a `DELETE` of those gone, an `INSERT` of those added.
    private func linkChanges(
        _ join: PostgreSQLJoinTable, _ owner: UInt64, from old: AttributeValue?,
        to new: AttributeValue
    ) -> String {
        let before = Set(old.flatMap { PostgreSQLJoinTable.keys($0) } ?? [])
        let after = PostgreSQLJoinTable.keys(new) ?? []
        let gone = before.subtracting(after).sorted()
        var sql = ""
        if !gone.isEmpty {
            sql +=
                "DELETE FROM \(join.table) WHERE \(join.owner) = \(owner) AND \(join.target) IN ("
                + gone.map { String($0) }.joined(separator: ", ") + ");\n"
        }
        var rows: [UInt8] = []
        join.appendRows(owner: owner, keys: after.filter { !before.contains($0) }, to: &rows)
        return sql + join.insert(rows)
    }

    private func stampRow(_ entity: String, _ id: UInt64, _ stamps: RowStamps) -> String {
        "(\(SyncSQL.literal(entity)), \(id), \(stamps.deleted), \(stamps.position), "
            + "\(stamps.writer), \(SyncSQL.numberArray(stamps.stamps)), "
            + "\(SyncSQL.numberArray(stamps.writers, type: "integer")))"
    }
}
