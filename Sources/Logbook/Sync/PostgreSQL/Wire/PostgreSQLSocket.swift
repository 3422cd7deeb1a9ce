#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected stream socket to a PostgreSQL server, Unix or TCP: non-blocking, every wait a
/// `poll(2)` with a deadline, writes that never raise `SIGPIPE`. Every system call of the
/// client goes through here.
///
/// Owned by one connection and used from one thread at a time; closes its descriptor when
/// closed or released.
final class PostgreSQLSocket {
    private var descriptor: Int32
    /// What one `read(2)` fills before its bytes are appended to the caller's buffer, so a
    /// receive costs the bytes that came, not a zeroed chunk.
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    private init(_ descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    /// Whether ``close()`` has run.
    var isClosed: Bool { descriptor < 0 }

    /// A socket connected to `configuration`'s server (its socket path, or every address its
    /// host name resolves to in turn) by `deadline`.
    ///
    /// - Throws: ``PostgreSQLError/connectionFailed(endpoint:reason:)``, or
    ///   ``PostgreSQLError/timedOut(operation:seconds:)``.
    static func open(to configuration: PostgreSQLConfiguration, deadline: WireDeadline?) throws
        -> PostgreSQLSocket
    {
        if configuration.isUnixSocket {
            return try connectUnix(path: configuration.socketPath, deadline: deadline)
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(configuration.host, String(configuration.port), &hints, &list)
        guard status == 0, let first = list else {
            throw failure(configuration.endpoint, String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            do {
                return try open(
                    family: address.pointee.ai_family, address: address.pointee.ai_addr,
                    length: address.pointee.ai_addrlen, endpoint: configuration.endpoint,
                    deadline: deadline)
            } catch LogbookError.postgreSQL(.connectionFailed(_, let reason)) {
                lastError = reason
            }
        }
        throw failure(configuration.endpoint, lastError)
    }

    private static func connectUnix(path: String, deadline: WireDeadline?) throws
        -> PostgreSQLSocket
    {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity, !bytes.contains(0) else {
            throw failure(path, "the socket path is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try open(
                    family: AF_UNIX, address: $0,
                    length: socklen_t(MemoryLayout<sockaddr_un>.size), endpoint: path,
                    deadline: deadline)
            }
        }
    }

    private static func open(
        family: Int32, address: UnsafePointer<sockaddr>?, length: socklen_t, endpoint: String,
        deadline: WireDeadline?
    ) throws -> PostgreSQLSocket {
        #if canImport(Glibc)
            let fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw failure(endpoint, errorText(errno)) }
        let socket = PostgreSQLSocket(fd)
        var on: Int32 = 1
        #if canImport(Darwin)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        if family != AF_UNIX {
            // Small requests and answers: do not wait to coalesce them (Nagle).
            _ = setsockopt(
                fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var result: Int32
        while true {
            result = connect(fd, address, length)
            guard result != 0 else { break }
            if errno == EINTR { continue }
            // A Unix socket whose backlog is full: not in progress, to be tried again.
            if errno == EAGAIN && family == AF_UNIX {
                if let deadline, ContinuousClock.now >= deadline.instant {
                    throw deadline.expired("the connection")
                }
                usleep(10_000)
                continue
            }
            break
        }
        if result != 0 {
            guard errno == EINPROGRESS else {
                throw failure(endpoint, errorText(errno))
            }
            guard try socket.events(Int16(POLLOUT), until: deadline) != 0 else {
                throw deadline.map { $0.expired("the connection") }
                    ?? failure(endpoint, "the connection did not complete")
            }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error == 0 else {
                throw failure(endpoint, errorText(error))
            }
        }
        return socket
    }

    /// Writes all of `bytes` by `deadline`. While the server does not take them (its input is
    /// full because it waits for this client to read its answers), what it sends is read
    /// into `incoming`, so a long pipeline cannot deadlock.
    func send(
        _ bytes: [UInt8], deadline: WireDeadline?, incoming: inout [UInt8]
    ) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                #if canImport(Glibc)
                    Glibc.send(
                        descriptor, raw.baseAddress! + offset, raw.count - offset,
                        Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(descriptor, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
            }
            if n >= 0 {
                offset += n
                continue
            }
            let error = errno
            if error == EINTR { continue }
            guard error == EAGAIN || error == EWOULDBLOCK else {
                throw LogbookError.postgreSQL(
                    .connectionClosed(reason: "sending failed: \(Self.errorText(error))"))
            }
            let ready = try events(Int16(POLLOUT) | Int16(POLLIN), until: deadline)
            if ready == 0, let deadline { throw deadline.expired("a request") }
            if ready & Int16(POLLIN) != 0 {
                // EOF here is found again by the next read; what arrived is kept.
                _ = try receive(into: &incoming)
            }
        }
    }

    /// Reads what is available (at most 64 KiB) and appends it to `buffer`; returns the number
    /// of bytes, 0 at the end of the stream, `nil` if nothing is ready yet.
    func receive(into buffer: inout [UInt8]) throws -> Int? {
        while true {
            let n = scratch.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress!, raw.count)
            }
            if n >= 0 {
                scratch.withUnsafeBufferPointer {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<n]))
                }
                return n
            }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { return nil }
            throw LogbookError.postgreSQL(
                .connectionClosed(reason: "receiving failed: \(Self.errorText(error))"))
        }
    }

    /// Waits until the socket is readable (`true`) or `deadline` passes (`false`).
    func waitReadable(until deadline: WireDeadline?) throws -> Bool {
        try events(Int16(POLLIN), until: deadline) != 0
    }

    /// The events that occurred, 0 on timeout. Errors and hang-ups count as readable and
    /// writable, so the following call reports them.
    private func events(_ events: Int16, until deadline: WireDeadline?) throws -> Int16 {
        guard descriptor >= 0 else {
            throw LogbookError.postgreSQL(.connectionClosed(reason: "it was closed"))
        }
        while true {
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            var timeout: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline.instant)
                let milliseconds =
                    left.components.seconds * 1000
                    + (left.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                timeout = Int32(clamping: max(0, milliseconds))
            }
            let n = poll(&entry, 1, timeout)
            if n < 0 {
                if errno == EINTR { continue }
                throw LogbookError.postgreSQL(
                    .connectionClosed(reason: "waiting failed: \(Self.errorText(errno))"))
            }
            if n == 0 {
                if let deadline, ContinuousClock.now < deadline.instant { continue }
                return 0
            }
            let problems = Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)
            return entry.revents & problems != 0 ? events : entry.revents & events
        }
    }

    /// Closes the descriptor (once).
    func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
        descriptor = -1
    }

    private static func failure(_ endpoint: String, _ reason: String) -> LogbookError {
        .postgreSQL(.connectionFailed(endpoint: endpoint, reason: reason))
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// When a wait ends, and the configured time it stands for (which the error names).
struct WireDeadline {
    let instant: ContinuousClock.Instant
    let seconds: Double

    /// `duration` from now, or `nil` (no limit) for `nil`.
    static func after(_ duration: Duration?) -> WireDeadline? {
        duration.map {
            WireDeadline(
                instant: .now + $0,
                seconds: Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18)
        }
    }

    /// The error for `operation` not finishing in time.
    func expired(_ operation: String) -> LogbookError {
        .postgreSQL(.timedOut(operation: operation, seconds: seconds))
    }
}
