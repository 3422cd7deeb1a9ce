/// The bounds a request must stay within; beyond them it is refused, not read further.
struct HTTPLimits: Sendable, Equatable {
    /// Bytes of the request line, without its CRLF.
    var requestLine = 8 * 1024
    /// Bytes of the whole head: request line, header fields, and the empty line.
    var head = 16 * 1024
    /// Header fields.
    var headerFields = 64
    /// Bytes of a body (`Content-Length`).
    var body = 64 * 1024
    /// Query or form parameters.
    var parameters = 64
}

/// Why a request was refused, with the status to answer. The reason is for tests and logs;
/// the client gets only the status line.
struct HTTPParseError: Error, Equatable, Sendable {
    /// 400, 413 (body too large), 414 (request line too long), 431 (head too large), 501 (a
    /// transfer coding), 505 (an HTTP version other than 1.0 and 1.1).
    var status: Int
    var reason: String
}

/// What the bytes received so far hold.
enum HTTPParseResult: Equatable, Sendable {
    /// Not a whole request yet, and nothing wrong so far: read more.
    case incomplete
    /// A whole request, which took the first `consumed` bytes (the rest belongs to the next).
    case request(HTTPRequest, consumed: Int)
    /// Not a request this server takes; answer with the status and close.
    case invalid(HTTPParseError)
}

/// Parses HTTP/1.0 and HTTP/1.1 requests (RFC 9112) from bytes: a pure function of the bytes and
/// the limits, with no state, no I/O and nothing but the standard library, so that it can be
/// tested and fuzzed alone.
///
/// Strict where leniency has led to request smuggling and confusion: lines end with CRLF; no
/// whitespace before a field's colon; no obsolete line folding; one `Host`; one
/// `Content-Length` of digits only; no `Transfer-Encoding` at all (this server takes small
/// bodies with a length); the target in origin form only (`/path?query`), its path segments
/// decoded one by one and `.`/`..` segments refused. Empty lines before the request line are
/// skipped (RFC 9112 section 2.2).
enum HTTPRequestParser {
    /// Parses the request at the start of `bytes`.
    /// - Complexity: O(bytes of the head and body); it never reads past the limits.
    static func parse(_ bytes: [UInt8], limits: HTTPLimits = HTTPLimits()) -> HTTPParseResult {
        bytes.withUnsafeBufferPointer { parse($0, limits: limits) }
    }

    /// Parses the request at the start of `bytes`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPLimits = HTTPLimits())
        -> HTTPParseResult
    {
        do {
            return try Parser(bytes: bytes, limits: limits).run()
        } catch {
            return .invalid(error)
        }
    }
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: HTTPLimits

    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    func run() throws(HTTPParseError) -> HTTPParseResult {
        var start = 0
        // Empty lines before the request line, as many as the head's limit allows.
        while start + 1 < bytes.count && bytes[start] == Self.cr && bytes[start + 1] == Self.lf {
            start += 2
            guard start <= limits.head else { throw refuse(431, "empty lines before the request") }
        }
        guard let firstLineEnd = lineEnd(from: start, max: limits.requestLine) else {
            try checkPartialRequestLine(from: start)
            return .incomplete
        }
        var request = try requestLine(start..<firstLineEnd)
        var position = firstLineEnd + 2
        var fields = 0
        while true {
            let room = limits.head - position
            guard let end = lineEnd(from: position, max: room) else {
                if bytes.count - position >= room + 2 { throw refuse(431, "the head is too large") }
                try checkPartialField(from: position)
                return .incomplete
            }
            if end == position {
                position += 2
                break
            }
            fields += 1
            guard fields <= limits.headerFields else { throw refuse(431, "too many header fields") }
            request.headers.append(try field(position..<end))
            position = end + 2
        }
        let length = try bodyLength(of: request)
        guard bytes.count - position >= length else { return .incomplete }
        request.body = Array(bytes[position..<(position + length)])
        return .request(request, consumed: position + length)
    }

    /// The index of the CR of the first CRLF at or after `start` within `max` bytes, `nil` if
    /// there is none there (yet, or a stray CR or LF comes first: the partial checks refuse
    /// those).
    private func lineEnd(from start: Int, max: Int) -> Int? {
        var i = start
        let limit = min(bytes.count, start + max + 2)
        while i < limit {
            let byte = bytes[i]
            if byte == Self.lf { return nil }  // a bare LF: the field checks refuse it
            if byte == Self.cr {
                guard i + 1 < bytes.count else { return nil }
                return bytes[i + 1] == Self.lf && i - start <= max ? i : nil
            }
            i += 1
        }
        return nil
    }

    /// Refuses an unfinished request line that is already too long or not a request line.
    private func checkPartialRequestLine(from start: Int) throws(HTTPParseError) {
        let seen = bytes.count - start
        var i = start
        // A method made of token characters, as far as it goes.
        while i < bytes.count && isTokenCharacter(bytes[i]) { i += 1 }
        if i < bytes.count && bytes[i] != UInt8(ascii: " ") && bytes[i] != Self.cr
            && bytes[i] != Self.lf
        {
            throw refuse(400, "the request line does not start with a method")
        }
        for j in start..<bytes.count where bytes[j] == Self.lf || bytes[j] == Self.cr {
            // A CR not followed by LF, or an LF alone, within the line.
            if bytes[j] == Self.lf || (j + 1 < bytes.count && bytes[j + 1] != Self.lf) {
                throw refuse(400, "a line does not end with CRLF")
            }
            if j - start > limits.requestLine { throw refuse(414, "the request line is too long") }
        }
        if seen > limits.requestLine + 1 { throw refuse(414, "the request line is too long") }
    }

    /// Refuses an unfinished header field that holds a stray line break.
    private func checkPartialField(from start: Int) throws(HTTPParseError) {
        for j in start..<bytes.count where bytes[j] == Self.lf || bytes[j] == Self.cr {
            if bytes[j] == Self.lf || (j + 1 < bytes.count && bytes[j + 1] != Self.lf) {
                throw refuse(400, "a line does not end with CRLF")
            }
        }
    }

    /// `method SP target SP HTTP/1.x`.
    private func requestLine(_ range: Range<Int>) throws(HTTPParseError) -> HTTPRequest {
        let line = bytes[range]
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenCharacter) else {
            throw refuse(400, "the request line is not METHOD TARGET VERSION")
        }
        let version = Array(parts[2])
        let minor: Int
        if version == Array("HTTP/1.1".utf8) {
            minor = 1
        } else if version == Array("HTTP/1.0".utf8) {
            minor = 0
        } else if version.starts(with: Array("HTTP/".utf8)) {
            throw refuse(505, "only HTTP/1.0 and HTTP/1.1")
        } else {
            throw refuse(400, "the request line has no HTTP version")
        }
        let target = Array(parts[1])
        let (segments, query) = try parseTarget(target)
        return HTTPRequest(
            method: String(decoding: parts[0], as: UTF8.self),
            target: String(decoding: target, as: UTF8.self), pathSegments: segments,
            query: query, minorVersion: minor, headers: [], body: [])
    }

    /// The path segments and query of an origin-form target.
    private func parseTarget(_ target: [UInt8]) throws(HTTPParseError) -> (
        [String], [(name: String, value: String)]
    ) {
        guard target.first == UInt8(ascii: "/") else {
            throw refuse(400, "the target is not a path (origin form)")
        }
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else {
            throw refuse(400, "the target holds a character a URL cannot")
        }
        let question = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        var segments: [String] = []
        for raw in target[1..<question].split(
            separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        {
            guard let segment = PercentDecoding.decode(raw, plusIsSpace: false) else {
                throw refuse(400, "a path segment does not decode")
            }
            guard segment != "." && segment != ".." else {
                throw refuse(400, "a path segment is a dot segment")
            }
            segments.append(segment)
        }
        // `/` and a trailing slash give an empty last segment: the routes see none.
        if segments.last == "" { segments.removeLast() }
        var query: [(name: String, value: String)] = []
        if question < target.endIndex {
            guard let pairs = PercentDecoding.queryPairs(target[(question + 1)...]) else {
                throw refuse(400, "the query does not decode")
            }
            guard pairs.count <= limits.parameters else {
                throw refuse(400, "too many query parameters")
            }
            query = pairs
        }
        return (segments, query)
    }

    /// `name: value` with optional whitespace around the value.
    private func field(_ range: Range<Int>) throws(HTTPParseError) -> (
        name: String, value: String
    ) {
        let line = bytes[range]
        if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            throw refuse(400, "obsolete line folding")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
            line[..<colon].allSatisfy(isTokenCharacter)
        else { throw refuse(400, "a header field is not NAME: VALUE") }
        var value = line[(colon + 1)...]
        while let f = value.first, f == UInt8(ascii: " ") || f == UInt8(ascii: "\t") {
            value.removeFirst()
        }
        while let l = value.last, l == UInt8(ascii: " ") || l == UInt8(ascii: "\t") {
            value.removeLast()
        }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw refuse(400, "a header value holds a control character")
        }
        return (
            String(decoding: line[..<colon], as: UTF8.self).lowercased(),
            String(decoding: value, as: UTF8.self)
        )
    }

    /// The body's length, from the head's fields; checks `Host` and transfer codings too.
    private func bodyLength(of request: HTTPRequest) throws(HTTPParseError) -> Int {
        let hosts = request.headers.filter { $0.name == "host" }
        if hosts.count > 1 { throw refuse(400, "more than one Host") }
        if request.minorVersion == 1 && hosts.isEmpty { throw refuse(400, "no Host") }
        if request.headers.contains(where: { $0.name == "transfer-encoding" }) {
            throw refuse(501, "transfer codings are not accepted")
        }
        let lengths = request.headers.filter { $0.name == "content-length" }
        guard let text = lengths.first?.value else { return 0 }
        guard lengths.count == 1 else { throw refuse(400, "more than one Content-Length") }
        guard !text.isEmpty, text.utf8.count <= 19,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let length = Int(text)
        else { throw refuse(400, "Content-Length is not a number") }
        guard length <= limits.body else { throw refuse(413, "the body is too large") }
        return length
    }

    /// RFC 9110 `tchar`.
    private func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private func refuse(_ status: Int, _ reason: String) -> HTTPParseError {
        HTTPParseError(status: status, reason: reason)
    }
}
