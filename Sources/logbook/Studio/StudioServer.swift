import Foundation
import LogStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running studio: the store session, the live feed, the access guard and the HTTP server,
/// started together and stopped together. What `logbook studio` runs, and what the tests start
/// on an ephemeral port.
///
/// Thread safety: `Sendable`.
final class StudioServer: Sendable {
    /// What to serve, and where.
    struct Options: Sendable {
        var path: String
        /// 0: a port the system chooses.
        var port: UInt16 = 0
        /// An address other than loopback (`--listen`); `nil` for 127.0.0.1 and ::1.
        var listen: ListenAddress?
        var writable = false
        /// The token to require (tests); `nil` for a fresh random one.
        var token: String?
        var http = HTTPServerConfiguration()
    }

    let session: StoreSession
    let access: AccessGuard
    private let feed: LiveFeed
    private let http: HTTPServer

    /// Opens the store and starts serving.
    /// - Throws: ``CommandError`` if the store does not open or the address cannot be bound.
    init(_ options: Options) throws {
        let listeners = try Self.bind(options)
        let port = listeners[0].port
        session = try StoreSession(path: options.path, writable: options.writable)
        access =
            options.token.map { AccessGuard(token: $0, port: port, listen: options.listen) }
            ?? AccessGuard(port: port, listen: options.listen)
        feed = LiveFeed(session: session)
        let app = StudioApp(session: session, access: access, feed: feed)
        http = HTTPServer(
            listeners: listeners, configuration: options.http,
            commonHeaders: StudioApp.securityHeaders, handler: { app.handle($0) })
    }

    /// The port it listens on.
    var port: UInt16 { http.listeners[0].port }

    /// The URL to open: the first page, with the token.
    var url: String {
        let listener = http.listeners[0]
        let host = listener.address.isWildcard ? "127.0.0.1" : listener.address.urlHost
        return "http://\(host):\(port)/?token=\(access.token)"
    }

    /// Connections being served now.
    var connectionCount: Int { http.connectionCount }

    /// Stops serving (streams included) and following the store, and closes it.
    func stop() {
        feed.stop()
        http.stop()
        session.close()
    }

    /// The listeners: 127.0.0.1 (and ::1 on the same port when the machine has it), or the
    /// `--listen` address alone.
    private static func bind(_ options: Options) throws -> [Listener] {
        let first = options.listen ?? .loopbackV4
        let listener: Listener
        do {
            listener = try Listener(address: first, port: options.port)
        } catch HTTPConnectionError.closed(let code) {
            throw CommandError.failed(
                "cannot listen on \(first.urlHost):\(options.port): \(String(cString: strerror(code)))"
                    + (code == EADDRINUSE ? "; pick another --port (or 0 for any)" : ""))
        }
        guard options.listen == nil,
            let second = try? Listener(address: .loopbackV6, port: listener.port)
        else { return [listener] }
        return [listener, second]
    }
}
