extension PostgreSQLConnection {
    /// A transaction's isolation level.
    package enum IsolationLevel: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` in a transaction: `BEGIN` (with `isolation`, if given), then `COMMIT` if
    /// `body` returns, `ROLLBACK` if it throws (the error is rethrown).
    ///
    /// A COMMIT can fail (a deferred constraint, a serialization failure: its server error is
    /// thrown). If the connection is lost during COMMIT, whether the transaction committed is
    /// unknown; make what it writes idempotent.
    ///
    /// - Throws: the error of `body`; ``PostgreSQLError/server(_:)`` from BEGIN or COMMIT;
    ///   ``PostgreSQLError/invalidRequest(reason:)`` inside another transaction, or when a
    ///   statement of the transaction failed and `body` went on (COMMIT then rolled back).
    package func transaction<T>(isolation: IsolationLevel? = nil, _ body: () throws -> T) throws
        -> T
    {
        guard transactionStatus == .idle else {
            throw LogbookError.postgreSQL(
                .invalidRequest(reason: "a transaction is already open on this connection"))
        }
        let begin = isolation.map { "BEGIN ISOLATION LEVEL \($0.rawValue)" } ?? "BEGIN"
        try simpleQuery(begin)
        let value: T
        do {
            value = try body()
        } catch {
            if !isClosed && transactionStatus != .idle { _ = try? simpleQuery("ROLLBACK") }
            throw error
        }
        let results = try simpleQuery("COMMIT")
        if results.first?.commandTag == "ROLLBACK" {
            throw LogbookError.postgreSQL(
                .invalidRequest(
                    reason: "a statement of the transaction failed and its error was caught, so "
                        + "COMMIT rolled the transaction back"))
        }
        return value
    }
}
