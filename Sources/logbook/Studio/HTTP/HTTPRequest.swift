/// One parsed HTTP/1.x request, as ``HTTPRequestParser`` makes it from bytes. A value type.
///
/// Everything in it came from the network: the path segments and query values are decoded
/// text, never a file name, and are matched against the routes only.
struct HTTPRequest: Sendable, Equatable {
    /// The method, as sent (`GET`, `POST`, …): a token, case-sensitive.
    var method: String
    /// The request target as sent (`/entity/Employee?where=…`), for logs and redirects.
    var target: String
    /// The path's segments, each percent-decoded on its own (so `%2F` stays inside its
    /// segment): `/entity/Employee/12` is `["entity", "Employee", "12"]`, `/` is `[]`.
    var pathSegments: [String]
    /// The query's name–value pairs, decoded (`+` is a space), in order.
    var query: [(name: String, value: String)]
    /// The minor version: 1 for HTTP/1.1, 0 for HTTP/1.0.
    var minorVersion: Int
    /// The header fields, names lower-cased, values without surrounding whitespace, in order.
    var headers: [(name: String, value: String)]
    /// The body (at most the parser's limit; empty without `Content-Length`).
    var body: [UInt8]

    /// The value of the first header field called `name` (lower case), or `nil`.
    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The value of the first query parameter called `name`, or `nil`.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// Whether the client allows the connection to stay open after the response: HTTP/1.1
    /// unless it sent `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    var keepsAlive: Bool {
        let tokens = (header("connection") ?? "").lowercased().split(separator: ",").map {
            $0.trimmingSpaces
        }
        if minorVersion == 0 { return tokens.contains("keep-alive") }
        return !tokens.contains("close")
    }

    /// The form fields of an `application/x-www-form-urlencoded` body.
    var formFields: [(name: String, value: String)] {
        PercentDecoding.queryPairs(body[...]) ?? []
    }

    static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.target == b.target && a.pathSegments == b.pathSegments
            && a.query.elementsEqual(b.query, by: ==) && a.minorVersion == b.minorVersion
            && a.headers.elementsEqual(b.headers, by: ==) && a.body == b.body
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

/// Percent-decoding of request targets and form bodies (RFC 3986 section 2.1), strict: a `%`
/// not followed by two hex digits, bytes that are not UTF-8, and control characters (NUL
/// included) are refused rather than passed on.
enum PercentDecoding {
    /// `bytes` with `%XX` decoded (and `+` as a space when `plusIsSpace`), as text; `nil` if it
    /// is malformed or decodes to something other than UTF-8 text without control characters.
    static func decode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, let high = hexValue(bytes[i + 1]),
                    let low = hexValue(bytes[i + 2])
                else { return nil }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                i += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { return nil }
        for scalar in text.unicodeScalars
        where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
            // Tabs and line breaks are allowed in form values (a filter typed over lines).
            guard plusIsSpace, scalar == "\t" || scalar == "\n" || scalar == "\r" else {
                return nil
            }
        }
        return text
    }

    /// The `name=value&…` pairs of a query or form body, decoded; `nil` if one is malformed.
    /// Empty pieces (`a=1&&b=2`) are skipped; a piece without `=` has an empty value.
    static func queryPairs(_ bytes: ArraySlice<UInt8>) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            guard let name = decode(piece[..<(equals ?? piece.endIndex)], plusIsSpace: true),
                let value = decode(
                    equals.map { piece[($0 + 1)...] } ?? [][...], plusIsSpace: true)
            else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// `text` percent-encoded for a URL query value: everything but unreserved characters
    /// (`A–Z a–z 0–9 - . _ ~`) as `%XX` of its UTF-8 bytes.
    static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0xF)]))
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
