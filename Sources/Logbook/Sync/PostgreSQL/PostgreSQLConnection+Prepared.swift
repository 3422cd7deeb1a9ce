import Synchronization

/// A statement parsed once on a connection, to run many times with different parameters
/// (``PostgreSQLConnection/query(_:_:format:)-(PostgreSQLStatement,_,_)``,
/// ``PostgreSQLConnection/executeBatch(_:_:)``). Valid on the connection that prepared it,
/// until ``PostgreSQLConnection/deallocate(_:)`` or the end of the session.
package struct PostgreSQLStatement: Sendable {
    /// The server-side name (`lb_1`, `lb_2`, …).
    package let name: String
    /// The parameter types the server settled on (declared, or inferred from the statement).
    package let parameterTypes: [UInt32]
    /// The columns of its rows (empty for a statement that returns none).
    package let columns: [PostgreSQLColumn]
    let connectionSerial: Int
}

extension PostgreSQLConnection {
    /// Serial numbers that tell connections apart, so a statement is not run on another.
    private static let serials = Atomic<Int>(0)

    /// This connection's serial number (assigned on first use).
    var serial: Int {
        if serialNumber == 0 {
            serialNumber = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue
        }
        return serialNumber
    }

    /// Parses `sql` into a named prepared statement; `parameterTypes` fixes the type of the
    /// first parameters (an OID, 0 to let the server infer it), the server infers the rest.
    ///
    /// - Throws: ``PostgreSQLError/server(_:)`` if the statement does not parse or plan.
    package func prepare(_ sql: String, parameterTypes: [UInt32] = []) throws
        -> PostgreSQLStatement
    {
        try request {
            statementCounter += 1
            let name = "lb_\(statementCounter)"
            try send {
                try $0.parse(name: name, sql, parameterTypes: parameterTypes)
                try $0.describe("S", name: name)
                $0.sync()
            }
            let reader = ResponseReader(self, extended: true)
            try reader.read { _ in }
            return PostgreSQLStatement(
                name: name, parameterTypes: reader.parameterTypes,
                columns: reader.columns?.list ?? [], connectionSerial: serial)
        }
    }

    /// Runs `statement` with `parameters` and returns its rows in `format`.
    @discardableResult
    package func query(
        _ statement: PostgreSQLStatement, _ parameters: [PostgreSQLValue] = [],
        format: PostgreSQLFormat = .text
    ) throws -> PostgreSQLResult {
        var rows: [PostgreSQLRow] = []
        let tag = try run(statement, parameters, format: format, collecting: true) {
            rows.append($0)
        }
        return PostgreSQLResult(
            columns: statement.columns.map { with($0) { $0.format = format } }, rows: rows,
            commandTag: tag)
    }

    /// Runs `statement` with `parameters`, handing each row to `eachRow` as it arrives; returns
    /// the command tag.
    @discardableResult
    package func query(
        _ statement: PostgreSQLStatement, _ parameters: [PostgreSQLValue] = [],
        format: PostgreSQLFormat = .text, eachRow: (PostgreSQLRow) throws -> Void
    ) throws -> String {
        try run(statement, parameters, format: format, collecting: false, eachRow: eachRow)
    }

    private func run(
        _ statement: PostgreSQLStatement, _ parameters: [PostgreSQLValue],
        format: PostgreSQLFormat, collecting: Bool, eachRow: (PostgreSQLRow) throws -> Void
    ) throws -> String {
        try request {
            let columns = PostgreSQLRow.Columns(
                statement.columns.map { with($0) { $0.format = format } })
            try send {
                try bind(statement, parameters, format: format, into: &$0)
                $0.sync()
            }
            var tag = ""
            let reader = ResponseReader(
                self, extended: true, collecting: collecting, columns: columns)
            try reader.read { event in
                switch event {
                case .row(let row): try eachRow(row)
                case .complete(_, let commandTag): tag = commandTag
                }
            }
            return tag
        }
    }

    /// Runs `statement` once per parameter set, pipelined: all the sets go out before the
    /// answers are read, so the whole batch costs about one round trip. Returns the rows each
    /// run affected.
    ///
    /// Outside a transaction the batch is one implicit transaction: if a run fails, none of
    /// the batch stays, and the error is thrown. Inside one, the transaction is failed.
    ///
    /// - Complexity: the requests are sent in chunks of about 256 KiB; the answers are
    ///   read while sending when the server waits for the client to read them.
    @discardableResult
    package func executeBatch(
        _ statement: PostgreSQLStatement, _ parameterSets: [[PostgreSQLValue]]
    )
        throws -> [Int]
    {
        try request {
            var messages = FrontendMessages()
            for parameters in parameterSets {
                try bind(statement, parameters, format: .text, into: &messages)
                if messages.bytes.count >= 256 << 10 {
                    try stream.send(
                        messages, deadline: WireDeadline.after(configuration.responseTimeout))
                    messages.removeAll()
                }
            }
            messages.sync()
            try stream.send(messages, deadline: WireDeadline.after(configuration.responseTimeout))
            var counts: [Int] = []
            counts.reserveCapacity(parameterSets.count)
            let columns = PostgreSQLRow.Columns(statement.columns)
            try ResponseReader(self, extended: true, columns: columns).read { event in
                if case .complete(_, let tag) = event {
                    counts.append(PostgreSQLResult.affectedRows(tag) ?? 0)
                }
            }
            return counts
        }
    }

    /// Runs `statement` with `parameters` and returns the number of rows it affected.
    @discardableResult
    package func execute(_ statement: PostgreSQLStatement, _ parameters: [PostgreSQLValue] = [])
        throws -> Int
    {
        let tag = try query(statement, parameters, eachRow: { _ in })
        return PostgreSQLResult.affectedRows(tag) ?? 0
    }

    /// Frees `statement` on the server.
    package func deallocate(_ statement: PostgreSQLStatement) throws {
        try request {
            try checkOwnership(statement)
            try send {
                try $0.closeStatement(statement.name)
                $0.sync()
            }
            try ResponseReader(self, extended: true).read { _ in }
        }
    }

    /// Bind and Execute for one run of `statement`: each value in binary when its type is the
    /// parameter's, in text otherwise.
    private func bind(
        _ statement: PostgreSQLStatement, _ parameters: [PostgreSQLValue],
        format: PostgreSQLFormat, into messages: inout FrontendMessages
    ) throws {
        try checkOwnership(statement)
        guard parameters.count == statement.parameterTypes.count else {
            throw LogbookError.postgreSQL(
                .invalidRequest(
                    reason: "the statement takes \(statement.parameterTypes.count) parameters, "
                        + "not \(parameters.count)"))
        }
        let encoded = try zip(parameters, statement.parameterTypes).map {
            try EncodedParameter($0, type: $1)
        }
        try messages.bind(statement: statement.name, encoded, resultFormat: format)
        try messages.execute()
    }

    private func checkOwnership(_ statement: PostgreSQLStatement) throws {
        guard statement.connectionSerial == serial else {
            throw LogbookError.postgreSQL(
                .invalidRequest(reason: "the statement was prepared on another connection"))
        }
    }
}

/// `value` changed by `change`.
private func with<T>(_ value: T, _ change: (inout T) -> Void) -> T {
    var copy = value
    change(&copy)
    return copy
}
