/// A parsed JSON value. Numbers keep their text, so 64-bit integers survive exactly.
package enum JSONValue: Equatable {
    /// `null`.
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in the order written.
    case object([(key: String, value: JSONValue)])

    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member `key` of an object, or `nil`.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, if this is one.
    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

/// A strict JSON (RFC 8259) parser for one document, with errors that give the column.
///
/// Nesting is limited to 512 levels, so hostile input cannot exhaust the stack.
package struct JSONParser {
    /// What is wrong and where (1-based column in the text).
    package struct SyntaxError: Error, CustomStringConvertible {
        /// 1-based column (in UTF-8 bytes) of the problem.
        package var column: Int
        /// What is wrong there.
        package var message: String
        package var description: String { "invalid JSON at column \(column): \(message)" }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    /// Parses `bytes` (UTF-8), which must hold exactly one JSON value (surrounding whitespace
    /// allowed).
    /// - Throws: ``SyntaxError``.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else {
            throw parser.error("text after the value")
        }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(column: position + 1, message: message)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { position += 1 }
    }

    private mutating func expect(_ word: String) throws {
        for byte in word.utf8 {
            guard current == byte else { throw error("expected \(word)") }
            position += 1
        }
    }

    private mutating func value() throws -> JSONValue {
        guard let c = current else { throw error("unexpected end of text") }
        switch c {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func nest() throws {
        depth += 1
        guard depth <= 512 else { throw error("nested too deeply") }
        position += 1
        skipWhitespace()
    }

    private mutating func object() throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        var members: [(key: String, value: JSONValue)] = []
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected :") }
            position += 1
            skipWhitespace()
            members.append((key, try value()))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
                continue
            }
            guard current == UInt8(ascii: "}") else { throw error("expected , or }") }
            position += 1
            return .object(members)
        }
    }

    private mutating func array() throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        var items: [JSONValue] = []
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            items.append(try value())
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
                continue
            }
            guard current == UInt8(ascii: "]") else { throw error("expected , or ]") }
            position += 1
            return .array(items)
        }
    }

    private mutating func number() throws -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        var digits = 0
        while let c = current,
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: ".")
                || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") || c == UInt8(ascii: "+")
                || c == UInt8(ascii: "-")
        {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) { digits += 1 }
            position += 1
        }
        let text = String(decoding: bytes.part(start..<position), as: UTF8.self)
        guard digits > 0, Self.isNumber(bytes.part(start..<position)), Double(text) != nil else {
            position = start
            throw error("invalid number")
        }
        return .number(text)
    }

    private mutating func string() throws -> String {
        position += 1  // the opening quote
        let begin = position
        // Most strings have no escape: one validation of the bytes between the quotes.
        while let c = current, c != UInt8(ascii: "\""), c != UInt8(ascii: "\\"), c >= 0x20 {
            position += 1
        }
        if current == UInt8(ascii: "\"") {
            guard let text = String(validatingUTF8: bytes.part(begin..<position)) else {
                throw error("invalid UTF-8")
            }
            position += 1
            return text
        }
        var utf8 = Array(bytes[begin..<position])
        while true {
            guard let c = current else { throw error("unterminated string") }
            if c == UInt8(ascii: "\"") {
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw error("invalid UTF-8")
                }
                position += 1
                return text
            }
            if c < 0x20 { throw error("control character in a string") }
            position += 1
            guard c == UInt8(ascii: "\\") else {
                utf8.append(c)
                continue
            }
            guard let escape = current else { throw error("unterminated string") }
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    try expect("\\u")
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("unpaired surrogate") }
                utf8.append(contentsOf: UTF8.encode(scalar)!)
            default: throw error("invalid escape")
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count,
            let code = UInt32(
                String(
                    decoding: bytes.part(position..<position + 4),
                    as: UTF8.self), radix: 16)
        else { throw error("invalid \\u escape") }
        position += 4
        return code
    }
}

extension JSONParser {
    /// Whether `token` is a number as JSON writes one: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
    package static func isNumber(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < token.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(token[i]) {
                i += 1
            }
            return i - start
        }
        if i < token.count, token[i] == UInt8(ascii: "-") { i += 1 }
        let whole = digits()
        guard whole == 1 || (whole > 1 && token[i - whole] != UInt8(ascii: "0")) else {
            return false
        }
        if i < token.count, token[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < token.count, token[i] == UInt8(ascii: "e") || token[i] == UInt8(ascii: "E") {
            i += 1
            if i < token.count, token[i] == UInt8(ascii: "+") || token[i] == UInt8(ascii: "-") {
                i += 1
            }
            guard digits() > 0 else { return false }
        }
        return i == token.count
    }
}

extension UnsafeBufferPointer {
    /// The elements in `range`, as a buffer of their own (no slice type in between).
    @inlinable package func part(_ range: Range<Int>) -> UnsafeBufferPointer {
        UnsafeBufferPointer(start: baseAddress.map { $0 + range.lowerBound }, count: range.count)
    }
}

extension String {
    /// `bytes` as a string if they are valid UTF-8 (quickly when they are ASCII), else `nil`.
    package init?(validatingUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        if ASCIIScan.isASCII(bytes) {
            self = String(decoding: bytes, as: UTF8.self)
        } else {
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            self = text
        }
    }
}
