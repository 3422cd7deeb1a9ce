extension PostgreSQLConnection {
    /// Runs `sql`, a `COPY … FROM STDIN`, feeding it what `produce` writes through the
    /// closure it is given (chunks of the COPY format, of any size). Returns the rows copied.
    ///
    /// If `produce` throws, the COPY is abandoned (nothing of it stays) and its error is
    /// rethrown. A server error about the data (a bad row) is thrown at the end.
    ///
    /// - Throws: ``PostgreSQLError/invalidRequest(reason:)`` if `sql` is not a
    ///   `COPY FROM STDIN`; ``PostgreSQLError/server(_:)``; the errors of a lost connection.
    @discardableResult
    package func copyIn(
        _ sql: String, _ produce: (_ write: ([UInt8]) throws -> Void) throws -> Void
    )
        throws -> Int
    {
        try request {
            try send { try $0.query(sql) }
            guard try awaitCopy(UInt8(ascii: "G")) else {
                throw LogbookError.postgreSQL(
                    .invalidRequest(reason: "copyIn takes a COPY … FROM STDIN"))
            }
            var messages = FrontendMessages()
            let deadline = { WireDeadline.after(self.configuration.responseTimeout) }
            var failure: (any Error)?
            var streamFailure: (any Error)?
            do {
                try produce { chunk in
                    // Chunks bounded by the message limit, sent once 256 KiB are waiting.
                    var rest = chunk[...]
                    while !rest.isEmpty {
                        try messages.copyData(rest.prefix(FrontendMessages.maximumMessageBytes - 4))
                        rest = rest.dropFirst(FrontendMessages.maximumMessageBytes - 4)
                        guard messages.bytes.count >= 256 << 10 else { continue }
                        do {
                            try stream.send(messages, deadline: deadline())
                        } catch {
                            streamFailure = error
                            throw error
                        }
                        messages.removeAll()
                    }
                }
                messages.copyDone()
            } catch {
                // The connection failed under the source, or the source itself did.
                if let streamFailure { throw streamFailure }
                failure = error
                messages.removeAll()
                try messages.copyFail("the client's data source failed")
            }
            try stream.send(messages, deadline: deadline())
            var copied = 0
            do {
                try ResponseReader(self, extended: false).read { event in
                    if case .complete(_, let tag) = event {
                        copied = PostgreSQLResult.affectedRows(tag) ?? 0
                    }
                }
            } catch LogbookError.postgreSQL(.server) where failure != nil {
                // The server's report of the CopyFail; the source's error says more.
            }
            if let failure { throw CallerFailure(error: failure) }
            return copied
        }
    }

    /// Runs `sql`, a `COPY … TO STDOUT`, handing each chunk of its output to `consume` (the
    /// server sends a row a chunk). Returns the rows copied. If `consume` throws, the COPY is
    /// cancelled, what the server already sent is read and dropped, and the error rethrown.
    ///
    /// - Throws: ``PostgreSQLError/invalidRequest(reason:)`` if `sql` is not a
    ///   `COPY TO STDOUT`; ``PostgreSQLError/server(_:)``; the errors of a lost connection.
    @discardableResult
    package func copyOut(_ sql: String, _ consume: (ArraySlice<UInt8>) throws -> Void) throws -> Int
    {
        try request {
            try send { try $0.query(sql) }
            guard try awaitCopy(UInt8(ascii: "H")) else {
                throw LogbookError.postgreSQL(
                    .invalidRequest(reason: "copyOut takes a COPY … TO STDOUT"))
            }
            var failure: (any Error)?
            while true {
                var message = try receive()
                switch message.type {
                case UInt8(ascii: "d"):
                    guard failure == nil else { continue }
                    do {
                        try consume(message.rest())
                    } catch {
                        failure = error
                        try? cancelHandle.cancel()  // No need to produce the rest.
                    }
                case UInt8(ascii: "c"):
                    break
                default:
                    // CommandComplete, or an error: the reader takes it from here.
                    var copied = 0
                    do {
                        try ResponseReader(self, extended: false).read(first: message) { event in
                            if case .complete(_, let tag) = event {
                                copied = PostgreSQLResult.affectedRows(tag) ?? 0
                            }
                        }
                    } catch LogbookError.postgreSQL(.server) where failure != nil {
                        // The cancel's report; the consumer's error says more.
                    }
                    if let failure { throw CallerFailure(error: failure) }
                    return copied
                }
            }
        }
    }

    /// Reads to the CopyInResponse (`G`) or CopyOutResponse (`H`) `kind`: `true` there;
    /// `false` after reading the whole answer of a statement that is not that COPY (an error
    /// it reported is thrown).
    private func awaitCopy(_ kind: UInt8) throws -> Bool {
        let message = try receive()
        if message.type == kind { return true }
        try ResponseReader(self, extended: false).read(first: message) { _ in }
        return false
    }
}
