import Foundation
import LogStore
import Logbook

/// A request the studio cannot answer as asked: the status, and one line for the page.
struct StudioError: Error {
    var status: Int
    var message: String

    static func notFound(_ message: String) -> StudioError {
        StudioError(status: 404, message: message)
    }

    static func badRequest(_ message: String) -> StudioError {
        StudioError(status: 400, message: message)
    }
}

/// The studio's request handler: the access check, then the route. Every page and stream is
/// made from the session's store; nothing is ever read from disk by a name in a URL.
///
/// Thread safety: `Sendable`; the server calls ``handle(_:)`` on many threads at once.
final class StudioApp: Sendable {
    let session: StoreSession
    let access: AccessGuard
    let feed: LiveFeed

    init(session: StoreSession, access: AccessGuard, feed: LiveFeed) {
        self.session = session
        self.access = access
        self.feed = feed
    }

    /// Header fields on every response, refusals included: no caching, no sniffing, no
    /// framing, no referrer, and a content security policy that allows only this server's own
    /// style sheet and script (no inline script, no other origin). No CORS header, ever.
    static let securityHeaders: [(name: String, value: String)] = [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
                + "base-uri 'none'"
        ),
    ]

    /// Answers `request`.
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let start = ContinuousClock.now
        let writing = !(request.method == "GET" || request.method == "HEAD")
        let verdict = access.check(request, writing: writing && session.writable)
        guard case .allowed(let setCookie) = verdict else {
            return .text(403, "Forbidden\n")
        }
        var response: HTTPResponse
        do {
            response = try route(request)
        } catch let error as StudioError {
            response = errorPage(error, for: request)
        } catch let error as CommandError {
            response = errorPage(StudioError(status: 500, message: error.description), for: request)
        } catch {
            response = errorPage(StudioError(status: 500, message: "\(error)"), for: request)
        }
        if setCookie { response.headers.append(("Set-Cookie", access.setCookie)) }
        let elapsed = ContinuousClock.now - start
        let milliseconds =
            Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds)
            * 1e-15
        response.headers.append(
            ("Server-Timing", "app;dur=\(Formatting.fixed(milliseconds, digits: 3))"))
        return response
    }

    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        let path = request.pathSegments
        if request.method == "POST" {
            guard session.writable else { return methodNotAllowed("GET, HEAD") }
            return try StudioWrites(app: self).handle(path, request)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return methodNotAllowed(session.writable ? "GET, HEAD, POST" : "GET, HEAD")
        }
        let pages = StudioPages(app: self, request: request)
        switch path.count {
        case 0: return try pages.overview()
        case 1:
            switch path[0] {
            case "schema": return try pages.schema()
            case "schema.svg": return try pages.schemaImage()
            case "entity": return try pages.entities()
            case "history": return try pages.history()
            case "log": return try pages.log()
            case "events": return events(request)
            default: break
            }
        case 2:
            switch path[0] {
            case "entity": return try pages.objects(entity: path[1])
            case "history": return try pages.save(sequence: path[1])
            case "assets":
                if let asset = StudioAssets.named(path[1]) {
                    return HTTPResponse(
                        status: 200, headers: [("Content-Type", asset.contentType)],
                        body: asset.bytes)
                }
            default: break
            }
        case 3 where path[0] == "entity":
            switch path[2] {
            case "export.csv": return try QueryExport(app: self, request: request).csv(path[1])
            case "export.jsonl": return try QueryExport(app: self, request: request).jsonl(path[1])
            default: return try pages.object(entity: path[1], key: path[2])
            }
        default: break
        }
        throw StudioError.notFound("no page at this address")
    }

    private func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = HTTPResponse.text(405, "Method Not Allowed\n")
        response.headers.append(("Allow", allowed))
        return response
    }

    /// The error as a page (or as text for a script's request).
    private func errorPage(_ error: StudioError, for request: HTTPRequest) -> HTTPResponse {
        if request.method == "POST" || request.header("accept") == "text/plain" {
            return .text(error.status, error.message + "\n")
        }
        let page = StudioPages(app: self, request: request)
        return page.document(
            status: error.status, title: HTTPResponse.reason(error.status), section: nil,
            body: """
                <h1>\(HTTPResponse.reason(error.status))</h1>
                <p class="error" role="alert">\(error.message)</p>
                <p><a href="/">Back to the overview</a></p>
                """)
    }

    /// `text/event-stream` of the store's saves, as ``LiveFeed`` sees them.
    private func events(_ request: HTTPRequest) -> HTTPResponse {
        let type = ("Content-Type", "text/event-stream; charset=utf-8")
        // A HEAD gets the head alone, and follows nothing.
        guard request.method == "GET" else { return HTTPResponse(status: 200, headers: [type]) }
        let seen = request.queryValue("seen").flatMap { UInt64($0) }
        guard let subscription = feed.subscribe(seen: seen) else {
            return .text(503, "too many pages follow the store\n")
        }
        return HTTPResponse(status: 200, headers: [type]) { sink in
            defer { subscription.close() }
            try sink.write("retry: 3000\n: following \(self.session.current.generation)\n\n")
            try sink.flush()
            while !subscription.isClosed {
                if let event = subscription.next(timeout: .seconds(15)) {
                    try sink.write("event: save\ndata: \(event)\n\n")
                } else {
                    try sink.write(": still here\n\n")
                }
                try sink.flush()
            }
        }
    }
}
