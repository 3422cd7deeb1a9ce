extension PostgreSQLConnection {
    /// Runs `sql` through the simple query protocol: any number of statements separated by
    /// semicolons, no parameters, text results; one result per statement. Without an explicit
    /// transaction the statements run in one implicit transaction, so an error undoes them all.
    ///
    /// - Throws: ``PostgreSQLError/server(_:)`` for the first statement that fails (the rest
    ///   did not run); ``PostgreSQLError/invalidRequest(reason:)`` for a `COPY` (use
    ///   ``copyIn(_:_:)`` or ``copyOut(_:_:)``); the errors of a lost connection.
    /// - Complexity: holds every row of every result; stream a large one with
    ///   ``query(_:_:format:eachRow:)``.
    @discardableResult
    package func simpleQuery(_ sql: String) throws -> [PostgreSQLResult] {
        try request {
            try send { try $0.query(sql) }
            var results: [PostgreSQLResult] = []
            var rows: [PostgreSQLRow] = []
            try ResponseReader(self, extended: false, collecting: true).read { event in
                switch event {
                case .row(let row): rows.append(row)
                case .complete(let columns, let tag):
                    results.append(
                        PostgreSQLResult(columns: columns?.list ?? [], rows: rows, commandTag: tag))
                    rows = []
                }
            }
            return results
        }
    }

    /// Runs one statement with `parameters` (`$1`, `$2`, … in `sql`) through the extended
    /// protocol, and returns its rows in `format`.
    ///
    /// - Throws: ``PostgreSQLError/server(_:)`` if it fails,
    ///   ``PostgreSQLError/invalidRequest(reason:)`` for a parameter this client cannot send;
    ///   the errors of a lost connection.
    /// - Complexity: holds every row; stream a large result with
    ///   ``query(_:_:format:eachRow:)``.
    @discardableResult
    package func query(
        _ sql: String, _ parameters: [PostgreSQLValue] = [], format: PostgreSQLFormat = .text
    ) throws -> PostgreSQLResult {
        var rows: [PostgreSQLRow] = []
        var columns: [PostgreSQLColumn] = []
        let tag = try query(
            sql, parameters, format: format, collecting: true, eachRow: { rows.append($0) },
            columns: { columns = $0 })
        return PostgreSQLResult(columns: columns, rows: rows, commandTag: tag)
    }

    /// Runs one statement with `parameters` and hands each row to `eachRow` as it arrives,
    /// holding one row at a time; returns the command tag. If `eachRow` throws, the rest of
    /// the result is read and dropped, and its error is rethrown.
    @discardableResult
    package func query(
        _ sql: String, _ parameters: [PostgreSQLValue] = [], format: PostgreSQLFormat = .text,
        eachRow: (PostgreSQLRow) throws -> Void
    ) throws -> String {
        try query(
            sql, parameters, format: format, collecting: false, eachRow: eachRow, columns: { _ in })
    }

    /// Runs one statement that returns no rows (or whose rows do not matter), and returns the
    /// number of rows it affected (0 for a statement that reports none).
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws -> Int {
        let tag = try query(sql, parameters, eachRow: { _ in })
        return PostgreSQLResult.affectedRows(tag) ?? 0
    }

    private func query(
        _ sql: String, _ parameters: [PostgreSQLValue], format: PostgreSQLFormat, collecting: Bool,
        eachRow: (PostgreSQLRow) throws -> Void, columns: ([PostgreSQLColumn]) -> Void
    ) throws -> String {
        try request {
            let types = parameters.map(\.declaredType)
            let encoded = try zip(parameters, types).map { try EncodedParameter($0, type: $1) }
            try send {
                try $0.parse(name: "", sql, parameterTypes: types)
                try $0.bind(statement: "", encoded, resultFormat: format)
                try $0.describe("P", name: "")
                try $0.execute()
                $0.sync()
            }
            var tag = ""
            try ResponseReader(self, extended: true, collecting: collecting).read { event in
                switch event {
                case .row(let row): try eachRow(row)
                case .complete(let described, let commandTag):
                    columns(described?.list ?? [])
                    tag = commandTag
                }
            }
            return tag
        }
    }
}
