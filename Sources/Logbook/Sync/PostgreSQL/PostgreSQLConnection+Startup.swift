extension PostgreSQLConnection {
    /// Connects and logs in: the socket, the startup message (with `client_encoding=UTF8` and
    /// `DateStyle=ISO`, which the value decoders rely on), the login the server asks for, and
    /// the session's settings, all within ``PostgreSQLConfiguration/connectTimeout``.
    ///
    /// - Throws: ``LogbookError/postgreSQL(_:)``:
    ///   ``PostgreSQLError/tlsUnsupported(sslmode:)`` for an `sslmode` that requires TLS,
    ///   ``PostgreSQLError/connectionFailed(endpoint:reason:)`` when the server cannot be
    ///   reached, ``PostgreSQLError/authentication(reason:)`` when the client cannot log in,
    ///   ``PostgreSQLError/server(_:)`` when the server refuses (SQLSTATE `28P01` for a wrong
    ///   password, `3D000` for a missing database), and the errors of a lost connection.
    package static func connect(_ configuration: PostgreSQLConfiguration) throws
        -> PostgreSQLConnection
    {
        if configuration.sslMode.requiresTLS {
            throw LogbookError.postgreSQL(.tlsUnsupported(sslmode: configuration.sslMode.rawValue))
        }
        let deadline = WireDeadline.after(configuration.connectTimeout)
        let socket = try PostgreSQLSocket.open(to: configuration, deadline: deadline)
        let connection = PostgreSQLConnection(
            configuration: configuration,
            stream: MessageStream(
                socket: socket, maximumMessageBytes: configuration.maximumMessageBytes))
        try connection.request {
            try connection.startUp(deadline: deadline)
        }
        return connection
    }

    private func startUp(deadline: WireDeadline?) throws {
        var parameters = [
            ("user", configuration.user), ("database", configuration.database),
            ("client_encoding", "UTF8"), ("DateStyle", "ISO"),
        ]
        if let name = configuration.applicationName {
            parameters.append(("application_name", name))
        }
        if let options = configuration.options { parameters.append(("options", options)) }
        var messages = FrontendMessages()
        try messages.startup(parameters)
        try stream.send(messages, deadline: deadline)
        try authenticate(deadline: deadline)
        // Then the session's settings, its cancel key, and ReadyForQuery.
        while true {
            let message = try receive(until: deadline)
            switch message.type {
            case UInt8(ascii: "K"):
                var reader = message
                processID = try reader.int32()
                secretKey = try reader.int32()
            case UInt8(ascii: "Z"):
                try readyForQuery(message)
                return
            case UInt8(ascii: "E"):
                throw LogbookError.postgreSQL(.server(try message.serverError()))
            case UInt8(ascii: "v"):
                try negotiateProtocolVersion(message)
            default:
                throw unexpected(message, "the startup")
            }
        }
    }

    /// NegotiateProtocolVersion: a server of a newer minor version, or one that does not know
    /// a startup option, says so; version 3.0 itself is always fine.
    func negotiateProtocolVersion(_ message: BackendMessage) throws {
        var reader = message
        let newest = try reader.int32()
        guard newest >= 0 else { throw message.violation("a negative protocol minor version") }
    }
}
