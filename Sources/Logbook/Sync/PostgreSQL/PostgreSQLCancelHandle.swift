/// What it takes to cancel the statement a connection is running, from another thread: a
/// CancelRequest on a new connection to the same server, with the session's key.
///
/// Cancelling is a request: the server may receive it after the statement finished (then
/// nothing happens) or, if the connection has started another, cancel that one. A cancelled
/// statement fails with SQLSTATE `57014`. The key is not shown by ``description``.
package struct PostgreSQLCancelHandle: Sendable, CustomStringConvertible {
    let configuration: PostgreSQLConfiguration
    let processID: Int32
    let secretKey: Int32

    /// Sends the CancelRequest and waits (bounded by the connect timeout) for the server to
    /// take it.
    ///
    /// - Throws: ``PostgreSQLError/connectionFailed(endpoint:reason:)`` or
    ///   ``PostgreSQLError/timedOut(operation:seconds:)`` if the server cannot be reached.
    package func cancel() throws {
        let deadline = WireDeadline.after(configuration.connectTimeout ?? .seconds(30))
        let socket = try PostgreSQLSocket.open(to: configuration, deadline: deadline)
        defer { socket.close() }
        var ignored: [UInt8] = []
        try socket.send(
            FrontendMessages.cancelRequest(processID: processID, secretKey: secretKey),
            deadline: deadline, incoming: &ignored)
        // The server answers nothing and closes the socket once it has read the request.
        var buffer: [UInt8] = []
        while try socket.waitReadable(until: deadline) {
            guard let n = try? socket.receive(into: &buffer), n != 0 else { return }
            buffer.removeAll()
        }
    }

    package var description: String {
        "cancel handle for process \(processID) at \(configuration.endpoint)"
    }
}

extension PostgreSQLConnection {
    /// A handle another thread can use to cancel the statement this connection runs.
    package var cancelHandle: PostgreSQLCancelHandle {
        PostgreSQLCancelHandle(
            configuration: configuration, processID: processID, secretKey: secretKey)
    }
}
