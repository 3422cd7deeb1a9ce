/// The socket seen as a stream of whole messages: frontend messages out, backend messages in.
///
/// A message's length is checked against the limit before its body is read, and the body is
/// gathered as it arrives, never allocated up front from the length a server claims: a broken
/// or hostile server can make the client hold at most the limit, and only by sending it.
final class MessageStream {
    let socket: PostgreSQLSocket
    private let maximumMessageBytes: Int
    /// Received bytes; `start` is where the first unread message begins.
    private var incoming: [UInt8] = []
    private var start = 0

    init(socket: PostgreSQLSocket, maximumMessageBytes: Int) {
        self.socket = socket
        self.maximumMessageBytes = maximumMessageBytes
        incoming.reserveCapacity(128 << 10)
    }

    /// Sends `messages` (all of them, by `deadline`).
    func send(_ messages: FrontendMessages, deadline: WireDeadline?) throws {
        try socket.send(messages.bytes, deadline: deadline, incoming: &incoming)
    }

    /// The next message, waiting for it until `deadline`; `nil` if the deadline passes first
    /// (then nothing was consumed).
    ///
    /// - Throws: ``PostgreSQLError/connectionClosed(reason:)`` at the end of the stream,
    ///   ``PostgreSQLError/protocolViolation(reason:)`` for a length out of bounds.
    func next(until deadline: WireDeadline?) throws -> BackendMessage? {
        while true {
            if let message = try buffered() { return message }
            guard try socket.waitReadable(until: deadline) else { return nil }
            compact()
            guard let n = try socket.receive(into: &incoming) else { continue }
            if n == 0 {
                let partial = incoming.count > start ? " in the middle of a message" : ""
                throw LogbookError.postgreSQL(
                    .connectionClosed(reason: "the server closed the connection\(partial)"))
            }
        }
    }

    /// The length word of the message at `start` (which counts itself), if its header is in.
    private func pendingLength() throws -> Int? {
        guard incoming.count - start >= 5 else { return nil }
        let length = Int(BackendMessage.uint32(incoming, at: start + 1))
        let type = Character(Unicode.Scalar(incoming[start]))
        guard length >= 4 else {
            throw LogbookError.postgreSQL(
                .protocolViolation(
                    reason: "a '\(type)' message claims \(length) bytes, less than its length word")
            )
        }
        guard length - 4 <= maximumMessageBytes else {
            throw LogbookError.postgreSQL(
                .protocolViolation(
                    reason: "a '\(type)' message of \(length - 4) bytes is over the configured "
                        + "maximum of \(maximumMessageBytes) (maximumMessageBytes)"))
        }
        return length
    }

    private func buffered() throws -> BackendMessage? {
        guard let length = try pendingLength(), incoming.count - start >= 1 + length else {
            return nil
        }
        let message = BackendMessage(
            type: incoming[start], body: Array(incoming[(start + 5)..<(start + 1 + length)]))
        start += 1 + length
        if start == incoming.count {
            incoming.removeAll(keepingCapacity: incoming.capacity <= 1 << 20)
            start = 0
        }
        return message
    }

    /// Drops consumed bytes once they are most of the buffer, so it holds at most about
    /// twice what is unread.
    private func compact() {
        guard start > 0, start >= incoming.count - start else { return }
        incoming.removeSubrange(0..<start)
        start = 0
    }
}
