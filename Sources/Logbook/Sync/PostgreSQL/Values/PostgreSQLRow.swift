/// A column of a result, as the server described it.
package struct PostgreSQLColumn: Sendable, Equatable {
    package var name: String
    /// The table the column comes from (0 if it is computed), and its number there.
    package var tableOID: UInt32
    package var columnNumber: Int16
    /// The type's OID (see ``PostgreSQLType``).
    package var typeOID: UInt32
    package var typeSize: Int16
    package var typeModifier: Int32
    /// How the column's values were sent.
    package var format: PostgreSQLFormat
}

/// A row of a result: its values, read by position or by column name and converted with
/// ``decode(_:as:)``. Holds the bytes of its one message; the columns are shared by all the
/// rows of a result.
package struct PostgreSQLRow: Sendable {
    /// The columns of a result, shared by its rows.
    package final class Columns: Sendable {
        package let list: [PostgreSQLColumn]
        init(_ list: [PostgreSQLColumn]) { self.list = list }

        func index(of name: String) -> Int? { list.firstIndex { $0.name == name } }
    }

    /// Where a value lies in `bytes`; a negative length is NULL.
    struct Field: Sendable {
        var start: Int32
        var length: Int32
    }

    package let columns: Columns
    let bytes: [UInt8]
    let fields: [Field]

    /// The number of values.
    package var count: Int { fields.count }

    /// The value at `index` (0-based).
    package subscript(index: Int) -> PostgreSQLCell {
        let field = fields[index]
        let column = columns.list[index]
        guard field.length >= 0 else { return PostgreSQLCell(column: column, bytes: nil) }
        let start = Int(field.start)
        return PostgreSQLCell(column: column, bytes: bytes[start..<start + Int(field.length)])
    }

    /// The value of the first column called `name`.
    ///
    /// - Throws: ``PostgreSQLError/valueDecoding(column:type:reason:)`` if there is none.
    package func cell(_ name: String) throws -> PostgreSQLCell {
        guard let index = columns.index(of: name) else {
            throw LogbookError.postgreSQL(
                .valueDecoding(column: name, type: "-", reason: "is not a column of the result"))
        }
        return self[index]
    }

    /// The value at `index` as `T` (an optional `T` takes NULL as `nil`).
    ///
    /// - Throws: ``PostgreSQLError/valueDecoding(column:type:reason:)`` for a value that is
    ///   not a `T`, or NULL where `T` is not optional; ``PostgreSQLError/invalidRequest(reason:)``
    ///   for an index out of range.
    package func decode<T: PostgreSQLDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T
    {
        guard fields.indices.contains(index) else {
            throw LogbookError.postgreSQL(
                .invalidRequest(reason: "column \(index) of a row of \(count)"))
        }
        return try T(self[index])
    }

    /// The value of the column called `name` as `T`.
    package func decode<T: PostgreSQLDecodable>(_ name: String, as type: T.Type = T.self) throws
        -> T
    {
        try T(cell(name))
    }
}

/// The outcome of one statement: its columns, its rows (if it returns any), and the command
/// tag (`INSERT 0 5`, `SELECT 100000`, `CREATE TABLE`).
package struct PostgreSQLResult: Sendable {
    package var columns: [PostgreSQLColumn]
    package var rows: [PostgreSQLRow]
    package var commandTag: String

    /// The number of rows the statement inserted, updated, deleted, selected, merged, fetched,
    /// moved or copied: the tag's last number, or `nil` for a statement that reports none.
    package var affectedRows: Int? { Self.affectedRows(commandTag) }

    static func affectedRows(_ tag: String) -> Int? {
        let words = tag.split(separator: " ")
        guard words.count >= 2,
            ["INSERT", "UPDATE", "DELETE", "SELECT", "MERGE", "FETCH", "MOVE", "COPY"].contains(
                words[0])
        else { return nil }
        return words.last.flatMap { Int($0) }
    }
}

/// A `NOTIFY` the connection received: the sending backend's process, the channel, the
/// payload.
package struct PostgreSQLNotification: Sendable, Equatable {
    package var processID: Int32
    package var channel: String
    package var payload: String
}
