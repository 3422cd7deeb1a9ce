import Foundation

/// One row of PostgreSQL's change log (`logbook_sync.changes`): a change of one object by one
/// transaction, or the marker of a replica's save.
struct ChangeEntry {
    let position: UInt64
    let xact: Int64
    /// 0 for an SQL client, else the replica's origin number.
    let origin: Int32
    /// For a replica's entry, the sequence number of its save.
    let sequence: UInt64?
    /// The entry repeats the origin's own save exactly: the origin passes over it.
    let echo: Bool
    /// For a correction, the one replica it is for.
    let target: Int32?
    let author: String
    let entity: String?
    let id: UInt64?
    /// `i` insert, `u` update, `d` delete, `m` a replica's save marker.
    let op: UInt8
    let columns: [String]
    let values: [String?]
    let stamp: UInt64
    /// When the transaction began, in seconds since 1970.
    let committedAt: Double

    /// An entry of a first download: row `id` of `entity` as PostgreSQL holds it (`values` in
    /// canonical text, field by field), or, with `values` `nil`, its absence.
    init(snapshotOf entity: SyncedEntity, id: UInt64, values: [String?]?) {
        position = 0
        xact = 0
        origin = 0
        sequence = nil
        echo = false
        target = nil
        author = "postgresql"
        self.entity = entity.name
        self.id = id
        op = values == nil ? UInt8(ascii: "d") : UInt8(ascii: "i")
        columns = values == nil ? [] : entity.fields.map(\.name)
        self.values = values ?? []
        stamp = 0
        committedAt = 0
    }

    static let columnsSQL = """
        position, xact, origin, sequence, echo, target, author, entity, id, op::text, \
        columns::text, "values"::text, stamp, extract(epoch FROM committed_at)::float8
        """

    /// Reads a row of ``columnsSQL``.
    /// - Throws: ``SyncError/unsupportedDatabase(reason:)`` for a row that does not read.
    init(_ row: PostgreSQLRow) throws {
        position = UInt64(clamping: try row.decode(0, as: Int64.self))
        xact = try row.decode(1, as: Int64.self)
        origin = Int32(clamping: try row.decode(2, as: Int64.self))
        sequence = try row.decode(3, as: Int64?.self).map { UInt64(clamping: $0) }
        echo = try row.decode(4, as: Bool.self)
        target = try row.decode(5, as: Int64?.self).map { Int32(clamping: $0) }
        author = try row.decode(6, as: String.self)
        entity = try row.decode(7, as: String?.self)
        id = try row.decode(8, as: Int64?.self).map { UInt64(clamping: $0) }
        op = try row.decode(9, as: String.self).utf8.first ?? 0
        let columnText = try row.decode(10, as: String?.self)
        let valueText = try row.decode(11, as: String?.self)
        let columns = columnText.map { SyncSQL.parseArray($0) } ?? []
        let values = valueText.map { SyncSQL.parseArray($0) } ?? []
        guard let columns, let values, columns.count == values.count else {
            throw LogbookError.sync(
                .unsupportedDatabase(
                    reason: "change \(position) of the change log has unreadable columns or values")
            )
        }
        self.columns = columns.compactMap { $0 }
        self.values = values
        stamp = UInt64(clamping: try row.decode(12, as: Int64.self))
        committedAt = try row.decode(13, as: Double.self)
    }
}

/// Reads PostgreSQL's change log a transaction at a time.
struct ChangeLogReader {
    let connection: PostgreSQLConnection
    /// The replica whose echoes ``transactions(after:)`` leaves out: the entries repeating
    /// its own saves, which it would pass over (its save markers stay, and so do corrections
    /// for it), so a replica does not read its own saves back.
    var echoesOf: Int32?
    /// Rows per query.
    var batchSize = 5_000

    init(connection: PostgreSQLConnection, echoesOf origin: Int32? = nil) {
        self.connection = connection
        echoesOf = origin
    }

    /// The condition on a row that leaves out the echoes of ``echoesOf``.
    private var kept: String {
        guard let origin = echoesOf else { return "" }
        return " AND (origin <> \(origin) OR NOT echo OR op = 'm')"
    }

    /// The next whole transactions after `position` (a transaction is never split), oldest
    /// first; empty when there is none.
    /// - Throws: ``LogbookError/postgreSQL(_:)``, ``SyncError/unsupportedDatabase(reason:)``.
    func transactions(after position: UInt64) throws -> [[ChangeEntry]] {
        var entries: [ChangeEntry] = []
        try connection.query(
            "SELECT \(ChangeEntry.columnsSQL) FROM logbook_sync.changes "
                + "WHERE position > $1::bigint\(kept) ORDER BY position LIMIT $2::bigint",
            [.int(Int64(clamping: position)), .int(Int64(batchSize))]
        ) { entries.append(try ChangeEntry($0)) }
        var groups = Self.group(entries)
        if entries.count == batchSize, let last = groups.last {
            if groups.count > 1 {
                groups.removeLast()
            } else {
                // One transaction larger than a batch: the rest of it, whole.
                var rest: [ChangeEntry] = []
                try connection.query(
                    "SELECT \(ChangeEntry.columnsSQL) FROM logbook_sync.changes "
                        + "WHERE xact = $1::bigint AND position > $2::bigint\(kept) "
                        + "ORDER BY position",
                    [.int(last[0].xact), .int(Int64(clamping: last[last.count - 1].position))]
                ) { rest.append(try ChangeEntry($0)) }
                groups[0] += rest
            }
        }
        return groups
    }

    /// Consecutive entries of one transaction, together.
    static func group(_ entries: [ChangeEntry]) -> [[ChangeEntry]] {
        var groups: [[ChangeEntry]] = []
        for entry in entries {
            if let last = groups.last?.last, last.xact == entry.xact {
                groups[groups.count - 1].append(entry)
            } else {
                groups.append([entry])
            }
        }
        return groups
    }

    /// The newest position in the change log, and how many entries and how old the oldest
    /// are after `position` (the lag of a replica that applied up to it).
    func lag(after position: UInt64) throws -> (newest: UInt64, behind: Int, oldest: Double?) {
        let result = try connection.query(
            """
            SELECT (SELECT coalesce(max(position), 0) FROM logbook_sync.changes),
              count(*), min(extract(epoch FROM committed_at))::float8
            FROM logbook_sync.changes WHERE position > $1::bigint
            """, [.int(Int64(clamping: position))])
        guard let row = result.rows.first else { return (position, 0, nil) }
        return (
            UInt64(clamping: try row.decode(0, as: Int64.self)),
            Int(try row.decode(1, as: Int64.self)), try row.decode(2, as: Double?.self)
        )
    }
}
