/// A connection to a PostgreSQL server over its wire protocol (version 3), written here: no
/// libpq, no TLS. Unix socket or TCP; login by trust, clear-text password, MD5 or
/// SCRAM-SHA-256; the simple and extended query protocols, prepared statements, pipelined
/// batches, transactions, `COPY`, and `LISTEN`/`NOTIFY`.
///
/// Blocking: each call sends its request and waits for the whole answer. One request at a
/// time, from one thread at a time (the type is not `Sendable`; hand it to the thread or
/// actor that uses it). ``cancelHandle`` is the one piece another thread may use, to cancel
/// a running statement.
///
/// Every failure is a ``LogbookError/postgreSQL(_:)``. A server error in a statement leaves the
/// connection usable; a lost connection, a timeout, a protocol violation or a fatal server
/// error (an administrator ending the session, a server shutting down) closes it, and every
/// later call throws ``PostgreSQLError/connectionClosed(reason:)``.
package final class PostgreSQLConnection {
    /// Where the session stands between requests, as the server last reported it.
    package enum TransactionStatus: Sendable {
        case idle
        case inTransaction
        /// In a transaction where a statement failed: only `ROLLBACK` does anything now.
        case failed
    }

    package let configuration: PostgreSQLConfiguration
    let stream: MessageStream
    /// The server's settings it reported (`server_version`, `TimeZone`, …).
    package internal(set) var serverParameters: [String: String] = [:]
    /// The server process serving this connection (as `pg_backend_pid()` returns it).
    package internal(set) var processID: Int32 = 0
    var secretKey: Int32 = 0
    package internal(set) var transactionStatus = TransactionStatus.idle
    /// Why the connection closed, once it has.
    private(set) var closedReason: String?
    /// Whether a request is running (a row handler calling back in is refused).
    private var isBusy = false
    /// Notifications received and not yet taken, oldest first from `notificationHead`.
    var pendingNotifications: [PostgreSQLNotification] = []
    var notificationHead = 0
    /// How many notifications were dropped because ``PostgreSQLConfiguration/maximumPendingNotifications``
    /// were waiting: a listener that sees this grow has missed some and should re-read.
    package internal(set) var droppedNotificationCount = 0
    /// Called with each notice (a non-error message such as a warning) the server sends.
    package var noticeHandler: ((PostgreSQLServerError) -> Void)?
    /// The number in the name of the last prepared statement.
    var statementCounter = 0
    /// See ``serial``; 0 until first asked for.
    var serialNumber = 0

    init(configuration: PostgreSQLConfiguration, stream: MessageStream) {
        self.configuration = configuration
        self.stream = stream
    }

    deinit { close() }

    /// Whether the connection is closed (by ``close()`` or by a failure).
    package var isClosed: Bool { closedReason != nil }

    /// Ends the session (a Terminate message, then the socket closes). Safe to call again.
    package func close() {
        guard closedReason == nil else { return }
        var goodbye = FrontendMessages()
        goodbye.terminate()
        var ignored: [UInt8] = []
        // Best effort and bounded: a dead peer must not hold up closing.
        try? stream.socket.send(
            goodbye.bytes, deadline: WireDeadline.after(.seconds(1)), incoming: &ignored)
        shut("it was closed by the client")
    }

    /// Marks the connection closed for `reason` and closes the socket.
    private func shut(_ reason: String) {
        if closedReason == nil { closedReason = reason }
        stream.socket.close()
    }

    // MARK: Requests

    /// Runs one request: refused while closed or while another is running; a failure that
    /// leaves the protocol state unknown closes the connection.
    func request<T>(_ body: () throws -> T) throws -> T {
        if let closedReason {
            throw LogbookError.postgreSQL(.connectionClosed(reason: closedReason))
        }
        guard !isBusy else {
            throw LogbookError.postgreSQL(
                .invalidRequest(
                    reason: "the connection is running another request (a call from inside a "
                        + "row handler?)"))
        }
        isBusy = true
        defer { isBusy = false }
        do {
            return try body()
        } catch let failure as CallerFailure {
            throw failure.error
        } catch LogbookError.postgreSQL(let error) {
            if let reason = Self.closingReason(error) { shut(reason) }
            throw LogbookError.postgreSQL(error)
        }
    }

    /// An error a caller's closure threw (a row handler, a COPY source), carried through
    /// ``request(_:)`` untouched: it says nothing about this connection, even when it is a
    /// lost connection of another.
    struct CallerFailure: Error {
        let error: any Error
    }

    /// Why `error` leaves the connection closed, or `nil` if it does not.
    private static func closingReason(_ error: PostgreSQLError) -> String? {
        switch error {
        case .server(let error) where error.isFatal:
            return "the server ended the session (\(error.sqlState): \(error.message))"
        case .connectionClosed(let reason): return reason
        case .connectionFailed(_, let reason): return "the connection failed (\(reason))"
        case .timedOut(let operation, let seconds):
            return "PostgreSQL did not answer \(operation) within \(seconds) s"
        case .protocolViolation(let reason): return "the server broke the protocol (\(reason))"
        case .resultTooLarge(let limit): return "a result grew past \(limit) bytes"
        case .server, .authentication, .configuration, .tlsUnsupported, .invalidRequest,
            .valueDecoding:
            return nil
        }
    }

    /// Builds messages with `build` and sends them.
    func send(_ build: (inout FrontendMessages) throws -> Void) throws {
        var messages = FrontendMessages()
        try build(&messages)
        try stream.send(messages, deadline: WireDeadline.after(configuration.responseTimeout))
    }

    /// The next message that answers a request. Notifications, notices and parameter changes
    /// are taken care of on the way; a fatal error is thrown, any other error returned (the
    /// request reads on to ReadyForQuery).
    func receive(until deadline: WireDeadline? = nil) throws -> BackendMessage {
        while true {
            let wait = deadline ?? WireDeadline.after(configuration.responseTimeout)
            guard let message = try stream.next(until: wait) else {
                throw (wait ?? WireDeadline(instant: .now, seconds: 0)).expired("a request")
            }
            guard try handleAsynchronous(message) == false else { continue }
            return message
        }
    }

    /// Handles a message the server may send at any time; `false` if `message` is not one.
    func handleAsynchronous(_ message: BackendMessage) throws -> Bool {
        switch message.type {
        case UInt8(ascii: "A"):
            enqueue(try message.notification())
        case UInt8(ascii: "N"):
            let notice = try message.serverError()
            noticeHandler?(notice)
        case UInt8(ascii: "S"):
            var reader = message
            let name = try reader.string()
            serverParameters[name] = try reader.string()
        case UInt8(ascii: "E"):
            let error = try message.serverError()
            guard error.isFatal else { return false }
            throw LogbookError.postgreSQL(.server(error))
        default:
            return false
        }
        return true
    }

    /// Reads ReadyForQuery's status.
    func readyForQuery(_ message: BackendMessage) throws {
        var reader = message
        switch try reader.byte() {
        case UInt8(ascii: "I"): transactionStatus = .idle
        case UInt8(ascii: "T"): transactionStatus = .inTransaction
        case UInt8(ascii: "E"): transactionStatus = .failed
        default: throw message.violation("ReadyForQuery with an unknown transaction status")
        }
    }

    /// The error for a message a request did not expect.
    func unexpected(_ message: BackendMessage, _ during: String) -> LogbookError {
        message.violation("an unexpected \(message.name) message during \(during)")
    }

    private func enqueue(_ notification: PostgreSQLNotification) {
        let limit = max(1, configuration.maximumPendingNotifications)
        if pendingNotifications.count - notificationHead >= limit {
            notificationHead += 1
            droppedNotificationCount += 1
        }
        if notificationHead > 1024, notificationHead * 2 > pendingNotifications.count {
            pendingNotifications.removeSubrange(0..<notificationHead)
            notificationHead = 0
        }
        pendingNotifications.append(notification)
    }

    /// The oldest notification not yet taken.
    func dequeueNotification() -> PostgreSQLNotification? {
        guard notificationHead < pendingNotifications.count else { return nil }
        defer {
            notificationHead += 1
            if notificationHead == pendingNotifications.count {
                pendingNotifications.removeAll(keepingCapacity: true)
                notificationHead = 0
            }
        }
        return pendingNotifications[notificationHead]
    }
}
