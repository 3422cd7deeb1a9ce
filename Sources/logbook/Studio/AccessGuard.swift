/// Who may use the studio: the holder of its token, through a host name that is this machine.
///
/// - A random 128-bit token, printed once in the URL, is required on every request: in the
///   query (`?token=…`, which also sets a cookie), in the cookie, or in the `X-Logbook-Token`
///   header. Anything else is refused with a bare 403.
/// - The `Host` header must name this machine (`localhost`, a loopback address, or the address
///   given with `--listen`), so a page of another site whose name an attacker points at
///   127.0.0.1 (DNS rebinding) is refused.
/// - A request that writes needs the token in the header (a cross-site form can send a cookie,
///   never a header), and an `Origin` or `Sec-Fetch-Site`, when sent, that is this server.
///
/// A value type, `Sendable`.
struct AccessGuard: Sendable {
    /// The token: 32 lower-case hex digits.
    let token: String
    /// The port the server listens on (cookies are not separated by port: the name is).
    let port: UInt16
    /// The address given with `--listen`, if any.
    let listen: ListenAddress?

    /// The header a writing request carries the token in.
    static let tokenHeader = "x-logbook-token"

    /// A guard with a fresh token from the system's secure random source.
    init(port: UInt16, listen: ListenAddress?) {
        var generator = SystemRandomNumberGenerator()
        let words = (generator.next() as UInt64, generator.next() as UInt64)
        self.init(token: Self.hex(words.0) + Self.hex(words.1), port: port, listen: listen)
    }

    init(token: String, port: UInt16, listen: ListenAddress?) {
        self.token = token
        self.port = port
        self.listen = listen
    }

    /// The cookie that carries the token after the first visit.
    var cookieName: String { "logbook_studio_\(port)" }

    /// What to do with a request.
    enum Verdict: Equatable {
        /// Serve it; `setCookie` when the token came in the query.
        case allowed(setCookie: Bool)
        /// Answer a bare 403.
        case refused
    }

    /// Whether `request` may be served, and how it proved it.
    func check(_ request: HTTPRequest, writing: Bool) -> Verdict {
        guard hostIsAllowed(request.header("host")) else { return .refused }
        if writing {
            guard matches(request.header(Self.tokenHeader)), isSameOrigin(request) else {
                return .refused
            }
            return .allowed(setCookie: false)
        }
        if matches(request.queryValue("token")) { return .allowed(setCookie: true) }
        if matches(request.header(Self.tokenHeader)) || matches(cookie(in: request)) {
            return .allowed(setCookie: false)
        }
        return .refused
    }

    /// The `Set-Cookie` value that stores the token: for this server only, never sent by
    /// another site's requests, never read by scripts.
    var setCookie: String {
        "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }

    /// Whether `host` (a `Host` header) names this machine: `localhost`, a loopback address,
    /// the `--listen` address, or, when that is a wildcard, any IP address (never a name). A
    /// port, when given, must be this server's.
    func hostIsAllowed(_ host: String?) -> Bool {
        guard let host, let (name, port) = Self.split(host: host) else { return false }
        if let port, port != self.port { return false }
        if name == "localhost" { return true }
        guard let address = ListenAddress(name) else { return false }
        if address.isLoopback { return true }
        guard let listen else { return false }
        return listen.isWildcard ? address.family == listen.family : address == listen
    }

    /// `name[:port]` or `[v6][:port]`, the name lower-cased; `nil` if malformed.
    static func split(host: String) -> (name: String, port: UInt16?)? {
        let text = host.lowercased()
        var name = Substring(text)
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[...close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !name.isEmpty else { return nil }
        guard let portText else { return (String(name), nil) }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
            let port = UInt16(portText)
        else { return nil }
        return (String(name), port)
    }

    /// For a writing request: an `Origin` header, when sent, is `http://` and the request's
    /// own host; a `Sec-Fetch-Site` header, when sent, says `same-origin`.
    private func isSameOrigin(_ request: HTTPRequest) -> Bool {
        if let site = request.header("sec-fetch-site"), site != "same-origin" { return false }
        guard let origin = request.header("origin") else { return true }
        return origin.lowercased() == "http://" + (request.header("host") ?? "").lowercased()
    }

    /// The token in the request's cookie header, if any.
    private func cookie(in request: HTTPRequest) -> String? {
        for header in request.headers where header.name == "cookie" {
            for pair in header.value.split(separator: ";") {
                let trimmed = Substring(pair).trimmingSpaces
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == cookieName {
                    return String(trimmed[trimmed.index(after: equals)...])
                }
            }
        }
        return nil
    }

    /// Whether `candidate` is the token, compared in time that does not depend on where they
    /// differ.
    private func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let a = Array(candidate.utf8)
        let b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    private static func hex(_ word: UInt64) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension Character {
    /// Whether it is one of `0`–`9`.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
