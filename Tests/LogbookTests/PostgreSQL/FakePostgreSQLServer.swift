import Foundation
import Synchronization
import TestSupport

@testable import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server that speaks only what a test scripts, on a Unix socket in a temporary directory:
/// it accepts one connection, reads the startup message, then runs the script with the
/// connection's descriptor. For what a real server never sends: oversized, truncated and
/// malformed messages, a forged SCRAM signature.
final class FakePostgreSQLServer: Sendable {
    let directory = TemporaryDirectory("pgfake")
    private let listener: Int32
    private let done = DispatchSemaphore(value: 0)

    /// Starts listening, and accepts on a thread of its own.
    init(_ script: @escaping @Sendable (FakeClient) throws -> Void) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((directory.path + "/.s.PGSQL.5432").utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0, listen(fd, 4) == 0 else {
            throw LogbookError.invalidSchema("the fake server cannot listen: errno \(errno)")
        }
        listener = fd
        Thread.detachNewThread { [listener, done] in
            let client = accept(listener, nil, nil)
            if client >= 0 {
                #if canImport(Darwin)
                    var on: Int32 = 1
                    setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, 4)
                #endif
                let connection = FakeClient(client)
                if (try? connection.readStartup()) != nil { try? script(connection) }
                // The end of what was sent, so that the client reads all of it and then the
                // end; then what the client still sends is read until it closes (at most
                // 0.2 s), so that the close leaves nothing unread, which would reset the
                // client's side instead of ending it.
                shutdown(client, Int32(SHUT_WR))
                connection.drain(seconds: 0.2)
                close(client)
            }
            done.signal()
        }
    }

    /// Settings that connect to this server.
    var configuration: PostgreSQLConfiguration {
        var configuration = PostgreSQLConfiguration(
            host: directory.path, port: 5432, user: "ann", database: "app", password: "pencil")
        configuration.passwordFile = nil
        configuration.connectTimeout = .seconds(10)
        configuration.responseTimeout = .seconds(10)
        return configuration
    }

    /// Waits for the script to end, then cleans up.
    func finish() {
        _ = done.wait(timeout: .now() + 30)
        close(listener)
        directory.remove()
    }
}

/// The fake server's side of a connection.
struct FakeClient: Sendable {
    let fd: Int32

    init(_ fd: Int32) { self.fd = fd }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            // Never SIGPIPE: the client may have closed already (it is meant to, after a
            // violation), and the signal would end the whole test process.
            let n = bytes.withUnsafeBytes {
                #if canImport(Glibc)
                    Glibc.send(
                        fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, $0.baseAddress! + offset, bytes.count - offset, 0)
                #endif
            }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// A message: type, big-endian length (which counts itself), body.
    func send(_ type: Character, _ body: [UInt8]) {
        send([type.asciiValue!] + Self.int32(Int32(body.count + 4)) + body)
    }

    static func int32(_ value: Int32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> Int32($0)) }
    }

    static func string(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    /// AuthenticationOk, then ReadyForQuery (idle).
    func acceptLogin() {
        send("R", Self.int32(0))
        send("Z", Array("I".utf8))
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let n = bytes.withUnsafeMutableBytes {
                read(fd, $0.baseAddress! + offset, count - offset)
            }
            guard n > 0 else { throw LogbookError.objectNotFound("the client closed") }
            offset += n
        }
        return bytes
    }

    /// Reads and drops what the client sends until it closes its side, for at most `seconds`.
    func drain(seconds: Double) {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var buffer = [UInt8](repeating: 0, count: 4096)
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            let milliseconds =
                Int32(left.components.seconds * 1000)
                + Int32(left.components.attoseconds / 1_000_000_000_000_000) + 1
            guard poll(&descriptor, 1, milliseconds) > 0 else { return }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n <= 0 { return }
        }
    }

    func readStartup() throws {
        let length = try readExactly(4)
        let total = Int(BackendMessage.uint32(length, at: 0))
        _ = try readExactly(total - 4)
    }

    /// The client's next message: its type and body.
    func readMessage() throws -> (type: Character, body: [UInt8]) {
        let header = try readExactly(5)
        let length = Int(BackendMessage.uint32(header, at: 1))
        return (Character(Unicode.Scalar(header[0])), try readExactly(length - 4))
    }
}
