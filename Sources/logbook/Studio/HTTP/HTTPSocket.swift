#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a connection stopped: the peer went away, or it was too slow for a deadline.
enum HTTPConnectionError: Error, Equatable {
    /// The peer closed the connection, or it failed (`errno`).
    case closed(Int32)
    /// A deadline passed with the peer neither sending nor reading.
    case timedOut
}

/// An IP address to listen on, parsed from its literal form (never a host name: no lookup).
struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    enum Family: Sendable, Equatable { case v4, v6 }

    let family: Family
    /// The address's 4 or 16 bytes, in network order.
    let bytes: [UInt8]

    /// `127.0.0.1`, `::1`, `[::1]`, `0.0.0.0`…; `nil` for anything else.
    init?(_ text: String) {
        var literal = Substring(text)
        if literal.hasPrefix("[") && literal.hasSuffix("]") {
            literal = literal.dropFirst().dropLast()
        }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, String(literal), &v4) == 1 {
            family = .v4
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, String(literal), &v6) == 1 {
            family = .v6
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    static let loopbackV4 = ListenAddress("127.0.0.1")!
    static let loopbackV6 = ListenAddress("::1")!

    /// Whether it is a loopback address (127.0.0.0/8 or ::1).
    var isLoopback: Bool {
        family == .v4 ? bytes[0] == 127 : bytes == Self.loopbackV6.bytes
    }

    /// Whether it is the wildcard (`0.0.0.0` or `::`): every address of the machine.
    var isWildcard: Bool { bytes.allSatisfy { $0 == 0 } }

    /// The address as it appears in a URL's host (`127.0.0.1`, `[::1]`).
    var urlHost: String { family == .v4 ? description : "[\(description)]" }

    var description: String {
        var text = [CChar](repeating: 0, count: 64)
        var copy = bytes
        _ = inet_ntop(family == .v4 ? AF_INET : AF_INET6, &copy, &text, socklen_t(text.count))
        return String(
            decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A listening TCP socket (close-on-exec, so children the process starts never hold it).
final class Listener: @unchecked Sendable {  // the descriptor is fixed; only close changes it
    let descriptor: Int32
    let address: ListenAddress
    /// The port it listens on (the one the system chose for port 0).
    let port: UInt16

    /// Binds `address:port` and listens.
    /// - Throws: ``HTTPConnectionError/closed(_:)`` with the `errno` of the failing call
    ///   (`EADDRINUSE`, `EADDRNOTAVAIL`, `EACCES`…).
    init(address: ListenAddress, port: UInt16) throws {
        let domain = address.family == .v4 ? AF_INET : AF_INET6
        #if canImport(Glibc)
            let fd = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(domain, SOCK_STREAM, 0)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        guard fd >= 0 else { throw HTTPConnectionError.closed(errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var status: Int32
        if address.family == .v4 {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin_addr) {
                $0.copyBytes(from: address.bytes)
            }
            status = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, 4)
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin6_addr) {
                $0.copyBytes(from: address.bytes)
            }
            status = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        if status == 0 { status = listen(fd, 128) }
        guard status == 0 else {
            let error = errno
            _ = closeDescriptor(fd)
            throw HTTPConnectionError.closed(error)
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(fd, $0, &length)
            }
        }
        let boundPort = withUnsafeBytes(of: &bound) { raw -> UInt16 in
            // sin_port and sin6_port are both at offset 2, in network order.
            UInt16(raw[2]) << 8 | UInt16(raw[3])
        }
        descriptor = fd
        self.address = address
        self.port = boundPort
    }

    /// Accepts a waiting connection, or returns `nil` (none waiting, or it failed).
    func accept() -> Socket? {
        #if canImport(Glibc)
            let fd = Glibc.accept(descriptor, nil, nil)
        #else
            let fd = Darwin.accept(descriptor, nil, nil)
        #endif
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd >= 0 ? Socket(descriptor: fd) : nil
    }

    /// Stops listening.
    func close() { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }

    deinit { _ = closeDescriptor(descriptor) }
}

/// One accepted TCP connection: reads and writes with deadlines (through `poll`), so a peer
/// that sends or reads too slowly gets ``HTTPConnectionError/timedOut`` instead of a thread.
///
/// Not thread-safe: one thread serves a connection.
final class Socket {
    let descriptor: Int32
    private var closed = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4)
        #if canImport(Darwin)
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, 4)
        #endif
    }

    /// Reads what is there (at most `maximum` bytes) into `buffer`, waiting until `deadline`.
    /// - Throws: ``HTTPConnectionError/timedOut``; ``HTTPConnectionError/closed(_:)`` when the
    ///   peer closed (errno 0) or the read failed.
    func receive(into buffer: inout [UInt8], maximum: Int, deadline: ContinuousClock.Instant)
        throws(HTTPConnectionError)
    {
        try wait(for: Int16(POLLIN), until: deadline)
        var chunk = [UInt8](repeating: 0, count: maximum)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, maximum, 0) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            throw .closed(errno)
        }
        if count == 0 { throw .closed(0) }
        buffer.append(contentsOf: chunk[..<count])
    }

    /// Sends all of `bytes`, each wait for room lasting until `deadline` at most.
    /// - Throws: ``HTTPConnectionError``.
    func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(HTTPConnectionError) {
        var sent = 0
        while sent < bytes.count {
            try wait(for: Int16(POLLOUT), until: deadline)
            #if canImport(Glibc)
                let flags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
            #else
                let flags = Int32(MSG_DONTWAIT)
            #endif
            let count = bytes.withUnsafeBytes {
                systemSend(descriptor, $0.baseAddress! + sent, bytes.count - sent, flags)
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw .closed(errno)
            }
            sent += count
        }
    }

    /// Waits until the socket is ready for `events` or `deadline` passes.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant)
        throws(HTTPConnectionError)
    {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .timedOut }
            let milliseconds = max(
                1,
                Int32(
                    clamping: left.components.seconds * 1000
                        + left.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .closed(errno)
            }
            if ready == 0 { continue }  // the deadline check above ends it
            if entry.revents & Int16(POLLNVAL) != 0 { throw .closed(EBADF) }
            return  // readable, writable, or an error/hang-up the next call reports
        }
    }

    /// Closes the connection (once).
    func close() {
        guard !closed else { return }
        closed = true
        _ = closeDescriptor(descriptor)
    }

    deinit { close() }
}

/// `close(2)`, named apart from the methods called `close`.
func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.close(descriptor)
    #else
        Darwin.close(descriptor)
    #endif
}

/// `send(2)`, named apart from ``Socket/send(_:deadline:)``.
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32)
    -> Int
{
    #if canImport(Glibc)
        Glibc.send(fd, bytes, count, flags)
    #else
        Darwin.send(fd, bytes, count, flags)
    #endif
}
