import Foundation
import LogStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long and how much a connection may take.
struct HTTPServerConfiguration: Sendable {
    var limits = HTTPLimits()
    /// From a request's first byte (or the connection's start) to its last.
    var requestTimeout: Duration = .seconds(10)
    /// Waiting for the next request on a kept-alive connection.
    var idleTimeout: Duration = .seconds(5)
    /// Sending a response of bytes, whole.
    var responseTimeout: Duration = .seconds(30)
    /// Sending one chunk of a streamed response (a stream may last; a stall may not).
    var chunkTimeout: Duration = .seconds(10)
    /// Connections served at once (a thread each); more are answered 503 and closed. A client
    /// that closes and reconnects at once can hold two for a moment.
    var maximumConnections = 128
    /// Requests on one connection before it is closed.
    var maximumRequestsPerConnection = 1000
}

/// A small HTTP/1.1 server on the platform's sockets: a thread accepts connections on the
/// listeners, and each connection is served on a thread of its own, one request at a time
/// (keep-alive, no pipelining ahead of the response). Requests are parsed by
/// ``HTTPRequestParser``; every wait has a deadline (``HTTPServerConfiguration``), so a peer that
/// sends or reads slowly loses its connection instead of holding a thread.
///
/// Thread safety: `handler` is called on many threads at once.
final class HTTPServer: Sendable {
    /// Answers one request; runs on the connection's thread.
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    let listeners: [Listener]
    private let configuration: HTTPServerConfiguration
    private let handler: Handler
    /// Header fields put on every response, refusals included.
    private let commonHeaders: [(name: String, value: String)]
    private let stopping = Atomic<Bool>(false)
    /// Descriptors of the connections being served: ``stop()`` shuts them down.
    private let open = Locked<Set<Int32>>([])
    private let accepting = DispatchSemaphore(value: 0)

    /// Starts serving on `listeners`.
    init(
        listeners: [Listener], configuration: HTTPServerConfiguration,
        commonHeaders: [(name: String, value: String)], handler: @escaping Handler
    ) {
        self.listeners = listeners
        self.configuration = configuration
        self.commonHeaders = commonHeaders
        self.handler = handler
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Connections being served now.
    var connectionCount: Int { open.withLock { $0.count } }

    /// Stops accepting, ends every connection (streams included), and returns once the accept
    /// thread is gone and the connections' threads are (or after two seconds).
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiring) else { return }
        accepting.wait()
        open.withLock { descriptors in
            for descriptor in descriptors { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while connectionCount > 0 && ContinuousClock.now < deadline { usleep(5_000) }
    }

    private func acceptLoop() {
        defer { accepting.signal() }
        var entries = listeners.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        while !stopping.load(ordering: .acquiring) {
            let ready = poll(&entries, nfds_t(entries.count), 100)
            guard ready > 0 else { continue }
            for (i, entry) in entries.enumerated() where entry.revents & Int16(POLLIN) != 0 {
                guard let socket = listeners[i].accept() else { continue }
                admit(socket)
            }
        }
        for listener in listeners { listener.close() }
    }

    /// Serves `socket` on a new thread, or refuses it when the server is full.
    private func admit(_ socket: Socket) {
        let admitted = open.withLock { descriptors -> Bool in
            guard descriptors.count < configuration.maximumConnections else { return false }
            descriptors.insert(socket.descriptor)
            return true
        }
        guard admitted else {
            let refusal = HTTPResponse.text(503, "busy\n")
            try? socket.send(
                refusal.head(extraHeaders: commonHeaders + closing(length: 5))
                    + Array("busy\n".utf8),
                deadline: .now + .milliseconds(50))
            socket.close()
            return
        }
        let box = UncheckedBox(socket)
        Thread.detachNewThread { [self] in
            let socket = box.value
            serve(socket)
            open.withLock { descriptors in
                descriptors.remove(socket.descriptor)
                socket.close()
            }
        }
    }

    /// Serves requests on one connection until it closes, times out or errs.
    private func serve(_ socket: Socket) {
        var buffer: [UInt8] = []
        var served = 0
        var requestDeadline = ContinuousClock.now + configuration.requestTimeout
        while !stopping.load(ordering: .relaxed) {
            let request: HTTPRequest
            switch HTTPRequestParser.parse(buffer, limits: configuration.limits) {
            case .incomplete:
                let waitingForFirstByte = buffer.isEmpty && served > 0
                let deadline =
                    waitingForFirstByte
                    ? ContinuousClock.now + configuration.idleTimeout : requestDeadline
                do {
                    try socket.receive(into: &buffer, maximum: 16 << 10, deadline: deadline)
                } catch .timedOut {
                    if !buffer.isEmpty { refuse(socket, status: 408) }
                    return
                } catch {
                    return
                }
                if waitingForFirstByte {
                    requestDeadline = ContinuousClock.now + configuration.requestTimeout
                }
                continue
            case .invalid(let error):
                refuse(socket, status: error.status)
                return
            case .request(let parsed, let consumed):
                buffer.removeFirst(consumed)
                request = parsed
            }
            served += 1
            let response = handler(request)
            let keepAlive =
                request.keepsAlive && served < configuration.maximumRequestsPerConnection
                && response.status < 400 && !stopping.load(ordering: .relaxed)
            do {
                try send(response, for: request, keepAlive: keepAlive, on: socket)
            } catch {
                return
            }
            guard keepAlive else { return }
            requestDeadline = ContinuousClock.now + configuration.requestTimeout
        }
    }

    /// Writes `response` (its body unless the request was `HEAD`).
    private func send(
        _ response: HTTPResponse, for request: HTTPRequest, keepAlive: Bool, on socket: Socket
    ) throws {
        let connection = ("Connection", keepAlive ? "keep-alive" : "close")
        let withBody = request.method != "HEAD"
        switch response.body {
        case .bytes(let body):
            let head = response.head(
                extraHeaders: commonHeaders + [("Content-Length", String(body.count)), connection])
            try socket.send(
                withBody ? head + body : head,
                deadline: .now + configuration.responseTimeout)
        case .stream(let stream):
            // HTTP/1.0 has no chunks: the body then ends with the connection.
            let chunked = request.minorVersion == 1
            var extra = commonHeaders
            if chunked { extra.append(("Transfer-Encoding", "chunked")) }
            extra.append(chunked ? connection : ("Connection", "close"))
            try socket.send(
                response.head(extraHeaders: extra),
                deadline: .now + configuration.chunkTimeout)
            guard withBody else { return }
            let timeout = configuration.chunkTimeout
            let sink = ResponseSink(chunked: chunked) { bytes in
                try socket.send(bytes, deadline: .now + timeout)
            }
            try stream(sink)
            try sink.finish()
            if !chunked { throw HTTPConnectionError.closed(0) }  // the end of the body
        }
    }

    /// Answers `status` with a one-line body and no more.
    private func refuse(_ socket: Socket, status: Int) {
        let body = Array("\(HTTPResponse.reason(status))\n".utf8)
        let head = HTTPResponse.text(status, "").head(
            extraHeaders: commonHeaders + closing(length: body.count))
        try? socket.send(head + body, deadline: .now + .seconds(1))
    }

    private func closing(length: Int) -> [(name: String, value: String)] {
        [("Content-Length", String(length)), ("Connection", "close")]
    }
}

/// Hands a non-`Sendable` value to the one thread that will own it from then on.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
