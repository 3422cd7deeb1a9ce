/// Markup that is safe to send: written in this file's literals, or text escaped on the way
/// in. Interpolating a `String` (or a number) into an `HTML` literal escapes it; only another
/// `HTML` goes in as markup. A store's contents reach a page only as interpolated text, so
/// `<script>` in a value shows as those characters.
///
/// ```swift
/// let cell: HTML = "<td>\(value)</td>"      // value escaped
/// let row: HTML = "<tr>\(cell)</tr>"        // markup kept
/// ```
/// A value type.
struct HTML: ExpressibleByStringInterpolation, Sendable, CustomStringConvertible {
    /// The markup.
    private(set) var text: String

    init(stringLiteral value: String) { text = value }

    init(stringInterpolation: Interpolation) { text = stringInterpolation.text }

    /// Markup made elsewhere and already safe: the embedded style sheet's and script's text,
    /// never a store value.
    init(trusted: String) { text = trusted }

    /// `text` escaped.
    init(escaping text: String) { self.text = Self.escape(text) }

    var description: String { text }

    static let empty = HTML(trusted: "")

    /// The pieces, one after the other.
    static func join(_ pieces: some Sequence<HTML>, separator: HTML = .empty) -> HTML {
        HTML(trusted: pieces.map(\.text).joined(separator: separator.text))
    }

    mutating func append(_ other: HTML) { text += other.text }

    static func + (a: HTML, b: HTML) -> HTML { HTML(trusted: a.text + b.text) }

    static func += (a: inout HTML, b: HTML) { a.text += b.text }

    /// `text` with `&`, `<`, `>`, `"` and `'` as character references: safe inside an element
    /// and inside a quoted attribute value.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var text = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        mutating func appendLiteral(_ literal: String) { text += literal }

        /// Text, escaped.
        mutating func appendInterpolation(_ value: String) { text += HTML.escape(value) }

        /// Text, escaped.
        mutating func appendInterpolation(_ value: Substring) { text += HTML.escape(String(value)) }

        /// Markup, as it is.
        mutating func appendInterpolation(_ value: HTML) { text += value.text }

        /// A number.
        mutating func appendInterpolation<N: BinaryInteger>(_ value: N) { text += String(value) }

        /// A URL, escaped for the attribute it goes in.
        mutating func appendInterpolation(_ value: StudioURL) { text += HTML.escape(value.text) }
    }
}

/// A URL of this server: a path made of segments and a query, each percent-encoded, so that
/// an entity or attribute name from the store can only ever be one segment or one value.
struct StudioURL: Sendable, Equatable, CustomStringConvertible {
    /// The encoded path and query.
    let text: String

    /// `/segment/segment?name=value&…`, parameters with `nil` values left out.
    init(_ segments: [String], _ query: [(String, String?)] = []) {
        var text = "/" + segments.map(PercentDecoding.encode).joined(separator: "/")
        let present = query.compactMap { name, value in value.map { (name, $0) } }
        if !present.isEmpty {
            text +=
                "?"
                + present.map {
                    PercentDecoding.encode($0.0) + "=" + PercentDecoding.encode($0.1)
                }.joined(separator: "&")
        }
        self.text = text
    }

    var description: String { text }
}
