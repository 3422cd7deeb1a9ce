/// A response to send: status, header fields and a body, either bytes or a stream written as it
/// is made (chunked). The server adds `Content-Length` or `Transfer-Encoding`, `Connection`, and
/// whatever headers it puts on every response.
struct HTTPResponse {
    /// A body made while it is sent: `write` is called on the connection's thread with a sink
    /// that sends chunks (and throws once the client is gone or too slow).
    typealias Stream = (_ sink: ResponseSink) throws -> Void

    enum Body {
        case bytes([UInt8])
        case stream(Stream)
    }

    var status: Int
    var headers: [(name: String, value: String)]
    var body: Body

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    init(status: Int, headers: [(name: String, value: String)] = [], stream: @escaping Stream) {
        self.status = status
        self.headers = headers
        body = .stream(stream)
    }

    /// A `text/plain` response of `text`.
    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")],
            body: Array(text.utf8))
    }

    /// `303 See Other` to `location` (a path of this server).
    static func seeOther(_ location: String) -> HTTPResponse {
        HTTPResponse(
            status: 303,
            headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")],
            body: Array("see \(location)\n".utf8))
    }

    /// The status line and header fields, ending with the empty line.
    func head(extraHeaders: [(name: String, value: String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers + extraHeaders {
            // Header values are made here, never copied from a request; a line break in one
            // would be a bug, and it is dropped rather than sent.
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" }) else { continue }
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The reason phrase of `status`.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 204: return "No Content"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 422: return "Unprocessable Content"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }
}

/// Where a streamed body goes: buffers what it is given and sends it as chunks.
///
/// Not thread-safe: used by the one thread serving its connection.
final class ResponseSink {
    private let send: ([UInt8]) throws -> Void
    private let chunked: Bool
    private var buffer: [UInt8] = []
    /// Bytes buffered before a chunk is sent.
    private let capacity = 32 << 10

    /// A sink that hands finished bytes to `send`, framed as chunks when `chunked`.
    init(chunked: Bool, send: @escaping ([UInt8]) throws -> Void) {
        self.chunked = chunked
        self.send = send
        buffer.reserveCapacity(capacity)
    }

    /// Appends `text`, sending when the buffer is full.
    /// - Throws: ``HTTPConnectionError`` once the client is gone or stopped reading.
    func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// Appends `bytes`, sending when the buffer is full.
    /// - Throws: ``HTTPConnectionError`` once the client is gone or stopped reading.
    func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    /// Lets `body` append to the buffer, then sends if it is full.
    func render(_ body: (inout [UInt8]) throws -> Void) throws {
        try body(&buffer)
        if buffer.count >= capacity { try flush() }
    }

    /// Sends what is buffered now (an event of a stream must not wait for more).
    func flush() throws {
        guard !buffer.isEmpty else { return }
        if chunked {
            var framed = Array((String(buffer.count, radix: 16) + "\r\n").utf8)
            framed.reserveCapacity(buffer.count + 16)
            framed += buffer
            framed += [13, 10]
            try send(framed)
        } else {
            try send(buffer)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Sends the rest and the last chunk.
    func finish() throws {
        try flush()
        if chunked { try send(Array("0\r\n\r\n".utf8)) }
    }
}
