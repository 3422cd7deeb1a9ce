/// A token of a string predicate, with where it starts (1-based line and column).
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case keyword(String)  // upper-cased
        case string(String)
        case integer(Int64)
        case double(Double)
        case symbol(String)  // operators, parentheses, braces, comma, modifiers like [c]
        case argument(Character)  // %@, %d, %K …
        case end
    }
    let kind: Kind
    let line: Int
    let column: Int
}

/// Splits a string predicate into tokens.
struct PredicateLexer {
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "MATCHES",
        "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "FALSE", "YES", "NO", "NIL", "NULL", "ANY",
        "ALL", "SOME", "NONE",
    ]

    /// - Throws: ``LogbookError/predicateSyntax(message:line:column:)``.
    static func tokenize(_ text: String) throws -> [PredicateToken] {
        let chars = Array(text)
        var tokens: [PredicateToken] = []
        var i = 0
        var line = 1
        var lineStart = 0
        func error(_ message: String, at index: Int) -> LogbookError {
            .predicateSyntax(message: message, line: line, column: index - lineStart + 1)
        }
        while i < chars.count {
            let c = chars[i]
            if c == "\n" {
                line += 1
                i += 1
                lineStart = i
                continue
            }
            if c.isWhitespace {
                i += 1
                continue
            }
            let start = i
            let column = start - lineStart + 1
            func add(_ kind: PredicateToken.Kind) {
                tokens.append(PredicateToken(kind: kind, line: line, column: column))
            }
            if c.isLetter || c == "_" || c == "$" {
                while i < chars.count
                    && (chars[i].isLetter || chars[i].isNumber || chars[i] == "_" || chars[i] == "."
                        || chars[i] == "$" || (chars[i] == "@" && chars[i - 1] == "."))
                { i += 1 }
                let word = String(chars[start..<i])
                if keywords.contains(word.uppercased()) {
                    add(.keyword(word.uppercased()))
                } else {
                    add(.identifier(word))
                }
            } else if c.isNumber
                || (c == "-" && i + 1 < chars.count && chars[i + 1].isNumber
                    && Self.expectsOperand(tokens))
            {
                i += 1
                var isDouble = false
                while i < chars.count
                    && (chars[i].isNumber || chars[i] == "." || chars[i] == "e" || chars[i] == "E"
                        || ((chars[i] == "-" || chars[i] == "+")
                            && (chars[i - 1] == "e" || chars[i - 1] == "E")))
                {
                    if !chars[i].isNumber { isDouble = true }
                    i += 1
                }
                let literal = String(chars[start..<i])
                if !isDouble, let v = Int64(literal) {
                    add(.integer(v))
                } else if let v = Double(literal) {
                    add(.double(v))
                } else {
                    throw error("\"\(literal)\" is not a number", at: start)
                }
            } else if c == "\"" || c == "'" {
                i += 1
                var value = ""
                var closed = false
                while i < chars.count {
                    let d = chars[i]
                    if d == "\\" && i + 1 < chars.count {
                        let e = chars[i + 1]
                        value.append(e == "n" ? "\n" : e == "t" ? "\t" : e)
                        i += 2
                        continue
                    }
                    i += 1
                    if d == c {
                        closed = true
                        break
                    }
                    value.append(d)
                }
                if !closed {
                    throw error("the string starting here has no closing \(c)", at: start)
                }
                add(.string(value))
            } else if c == "%" {
                guard i + 1 < chars.count, "@dKfi".contains(chars[i + 1]) else {
                    throw error("expected %@, %d or %K", at: start)
                }
                add(.argument(chars[i + 1]))
                i += 2
            } else if c == "[" {
                guard let close = chars[i...].firstIndex(of: "]") else {
                    throw error("\"[\" without \"]\"", at: start)
                }
                let modifier = String(chars[(i + 1)..<close]).lowercased()
                guard !modifier.isEmpty, modifier.allSatisfy({ $0 == "c" || $0 == "d" }) else {
                    throw error("unknown modifier [\(modifier)]; use [c], [d] or [cd]", at: start)
                }
                add(.symbol("[" + modifier + "]"))
                i = close + 1
            } else {
                let two = i + 1 < chars.count ? String(chars[i...(i + 1)]) : ""
                if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
                    add(.symbol(two))
                    i += 2
                } else if "=<>!(){},".contains(c) {
                    add(.symbol(String(c)))
                    i += 1
                } else {
                    throw error("unexpected character \"\(c)\"", at: start)
                }
            }
        }
        tokens.append(PredicateToken(kind: .end, line: line, column: chars.count - lineStart + 1))
        return tokens
    }

    /// Whether a `-` here starts a negative number (after an operator, not after an operand).
    private static func expectsOperand(_ tokens: [PredicateToken]) -> Bool {
        guard let last = tokens.last else { return true }
        switch last.kind {
        case .symbol(let s): return s != ")" && s != "}"
        case .keyword(let k): return !["TRUE", "FALSE", "YES", "NO", "NIL", "NULL"].contains(k)
        default: return false
        }
    }
}
