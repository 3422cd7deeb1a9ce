/// A failure of Logbook's PostgreSQL client, carried by ``LogbookError/postgreSQL(_:)``.
///
/// Match on the case: ``server(_:)`` is PostgreSQL's own error with its SQLSTATE; the others
/// say whether the server could not be reached, the connection was lost, or the settings are
/// wrong. No case ever holds a password: not the configured one, nor a URL that contains one.
public enum PostgreSQLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error: a failed statement, a refused login, a connection it
    /// ended (``PostgreSQLServerError/isFatal`` is then `true`).
    case server(PostgreSQLServerError)
    /// The server could not be reached at `endpoint` (a socket path, or `host:port`).
    case connectionFailed(endpoint: String, reason: String)
    /// The connection was lost or had been closed: the server went away, the network dropped
    /// it, or an earlier failure left it unusable. Open a new connection.
    case connectionClosed(reason: String)
    /// The server did not answer within the configured time; the connection is closed.
    case timedOut(operation: String, seconds: Double)
    /// Logging in cannot go on: a method this client does not speak or the configuration
    /// refuses, no password to give, or a server that could not prove it knows the password.
    case authentication(reason: String)
    /// The connection settings are invalid: a malformed URL, an unknown parameter, a bad port.
    case configuration(reason: String)
    /// The settings require TLS (`sslmode` `require`, `verify-ca` or `verify-full`), which this
    /// client does not implement.
    case tlsUnsupported(sslmode: String)
    /// The server sent something outside protocol version 3: a malformed message, one out of
    /// order, or one over the size limit. The connection is closed.
    case protocolViolation(reason: String)
    /// Something this client cannot send: a string with a NUL character, too many parameters,
    /// a prepared statement of another connection, a call made while a request is running.
    case invalidRequest(reason: String)
    /// A result value does not convert to the type asked for.
    case valueDecoding(column: String, type: String, reason: String)
    /// A result collected in memory grew past the configured limit, in bytes; the connection
    /// is closed. Read a result that large row by row.
    case resultTooLarge(limit: Int)

    /// The SQLSTATE of a server error, if this is one.
    public var sqlState: String? {
        if case .server(let error) = self { return error.sqlState }
        return nil
    }

    public var description: String {
        switch self {
        case .server(let error):
            return error.description
        case .connectionFailed(let endpoint, let reason):
            return "cannot connect to PostgreSQL at \(endpoint): \(reason)."
        case .connectionClosed(let reason):
            return "the PostgreSQL connection is closed: \(reason); open a new connection."
        case .timedOut(let operation, let seconds):
            return
                "PostgreSQL did not answer \(operation) within \(seconds) s; the connection was closed."
        case .authentication(let reason):
            return "cannot log in to PostgreSQL: \(reason)."
        case .configuration(let reason):
            return "invalid PostgreSQL connection settings: \(reason)."
        case .tlsUnsupported(let mode):
            return
                "sslmode=\(mode) needs TLS, which Logbook's PostgreSQL client does not implement. "
                + "Connect over the server's Unix socket (host=/var/run/postgresql), or through "
                + "an encrypted local tunnel (ssh -L 6432:localhost:5432 server, then "
                + "postgresql://user@localhost:6432/db), with sslmode=disable."
        case .protocolViolation(let reason):
            return
                "the PostgreSQL server broke the protocol: \(reason); the connection was closed."
        case .invalidRequest(let reason):
            return "cannot send this to PostgreSQL: \(reason)."
        case .valueDecoding(let column, let type, let reason):
            return "the PostgreSQL value of column \"\(column)\" (\(type)) \(reason)."
        case .resultTooLarge(let limit):
            return
                "the PostgreSQL result is larger than the \(limit) bytes a collected result may "
                + "hold, so the connection was closed; read it row by row instead."
        }
    }
}

/// An error PostgreSQL reported (its ErrorResponse): the SQLSTATE to match on, and the
/// fields a person reads.
public struct PostgreSQLServerError: Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE, such as `23505` (unique violation) or `57P01` (the
    /// connection was terminated by an administrator).
    public var sqlState: String
    /// `ERROR`, `FATAL` or `PANIC` (not localized).
    public var severity: String
    /// The primary message.
    public var message: String
    /// A secondary message with more detail, such as the duplicate key.
    public var detail: String?
    /// A suggestion of what to do.
    public var hint: String?
    /// The 1-based character position in the statement the error points at.
    public var position: Int?
    /// The schema, table, column, data type and constraint the error concerns, where the
    /// server names them.
    public var schema: String?
    /// See ``schema``.
    public var table: String?
    /// See ``schema``.
    public var column: String?
    /// See ``schema``.
    public var dataType: String?
    /// See ``schema``.
    public var constraint: String?

    /// An error with the given fields.
    public init(
        sqlState: String, severity: String, message: String, detail: String? = nil,
        hint: String? = nil, position: Int? = nil, schema: String? = nil, table: String? = nil,
        column: String? = nil, dataType: String? = nil, constraint: String? = nil
    ) {
        self.sqlState = sqlState
        self.severity = severity
        self.message = message
        self.detail = detail
        self.hint = hint
        self.position = position
        self.schema = schema
        self.table = table
        self.column = column
        self.dataType = dataType
        self.constraint = constraint
    }

    /// Whether the server ended the connection with this error (severity `FATAL` or `PANIC`).
    public var isFatal: Bool { severity == "FATAL" || severity == "PANIC" }

    public var description: String {
        var text = "PostgreSQL \(severity) \(sqlState): \(message)"
        if let detail { text += " (\(detail))" }
        if let hint { text += " Hint: \(hint)" }
        return text
    }
}
