import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the server answered.
struct TestResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.name == name.lowercased() }?.value
    }
}

enum TestClientError: Error {
    case connect(Int32)
    case closedBeforeResponse
    case malformed(String)
}

/// A raw HTTP/1.1 client for the tests: sends exactly the bytes it is given, reads one
/// response (by `Content-Length`, chunks, or to the close).
final class TestConnection {
    let descriptor: Int32

    /// Connects to `host:port` (an IPv4 or IPv6 literal).
    init(port: UInt16, host: String = "127.0.0.1") throws {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError.connect(errno) }
        var status: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard status == 0 else {
            let error = errno
            close(fd)
            throw TestClientError.connect(error)
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends `bytes` (a write to a closed peer fails quietly).
    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(
                    descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return }
            sent += n
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    private var buffer: [UInt8] = []

    /// Reads more bytes; `false` at the end (or a timeout).
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let n = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }

    /// Whether the server closed the connection (reads to the end, up to the timeout).
    func isClosedByServer() -> Bool {
        while fill() {}
        var probe: UInt8 = 0
        return recv(descriptor, &probe, 1, Int32(MSG_DONTWAIT)) == 0
    }

    /// Everything until the server closes.
    func readToClose() -> [UInt8] {
        while fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Reads one response.
    func readResponse(head: Bool = false) throws -> TestResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while end == nil {
            if let range = buffer.firstRange(of: separator) {
                end = range.upperBound
            } else if !fill() {
                throw TestClientError.closedBeforeResponse
            }
        }
        let headText = String(decoding: buffer[..<end!], as: UTF8.self)
        buffer.removeFirst(end!)
        var lines = headText.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestClientError.malformed(headText)
        }
        let headers = lines.map { line -> (name: String, value: String) in
            let colon = line.firstIndex(of: ":")!
            return (
                line[..<colon].lowercased(),
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        var response = TestResponse(status: status, headers: headers, body: [])
        if head { return response }
        if let length = response.header("content-length").flatMap(Int.init) {
            while buffer.count < length { guard fill() else { break } }
            response.body = Array(buffer.prefix(length))
            buffer.removeFirst(min(length, buffer.count))
        } else if response.header("transfer-encoding") == "chunked" {
            response.body = try readChunks()
        } else {
            response.body = readToClose()
        }
        return response
    }

    /// A chunked body, whole.
    private func readChunks() throws -> [UInt8] {
        var body: [UInt8] = []
        while let size = try nextChunkSize() {
            if size == 0 {
                _ = try line()
                return body
            }
            while buffer.count < size + 2 {
                guard fill() else { throw TestClientError.closedBeforeResponse }
            }
            body += buffer[..<size]
            buffer.removeFirst(size + 2)
        }
        return body
    }

    /// The next chunk's size line; `nil` at the end of the stream.
    func nextChunkSize() throws -> Int? {
        guard let text = try line() else { return nil }
        guard let size = Int(text, radix: 16) else { throw TestClientError.malformed(text) }
        return size
    }

    /// One chunk's bytes (after ``nextChunkSize()``).
    func chunk(_ size: Int) throws -> [UInt8] {
        while buffer.count < size + 2 {
            guard fill() else { throw TestClientError.closedBeforeResponse }
        }
        let bytes = Array(buffer[..<size])
        buffer.removeFirst(size + 2)
        return bytes
    }

    private func line() throws -> String? {
        while true {
            if let range = buffer.firstRange(of: [13, 10]) {
                let text = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeFirst(range.upperBound)
                return text
            }
            guard fill() else { return nil }
        }
    }
}

/// One request on a new connection, closed after the response.
func request(
    port: UInt16, _ target: String, method: String = "GET", host: String? = nil,
    headers: [String: String] = [:], body: [UInt8] = [], head: Bool = false
) throws -> TestResponse {
    let connection = try TestConnection(port: port)
    var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
    if !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
    text += "Connection: close\r\n\r\n"
    connection.send(Array(text.utf8) + body)
    return try connection.readResponse(head: head || method == "HEAD")
}

/// Runs `body` on a thread of its own and returns what it returns (or throws what it throws),
/// for a test that blocks while it waits on a timer: it holds none of the cooperative threads
/// meanwhile, and its clock readings wait for none of them.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
