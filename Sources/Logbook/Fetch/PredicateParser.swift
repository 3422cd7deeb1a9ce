import Foundation

/// Where a comparison's two operands start in a string predicate (1-based).
struct PredicatePosition: Sendable, Hashable {
    let lhsLine: Int
    let lhsColumn: Int
    let rhsLine: Int
    let rhsColumn: Int

    init(lhs: PredicateToken, rhs: PredicateToken) {
        lhsLine = lhs.line
        lhsColumn = lhs.column
        rhsLine = rhs.line
        rhsColumn = rhs.column
    }

    init(lhsLine: Int, lhsColumn: Int, rhsLine: Int, rhsColumn: Int) {
        self.lhsLine = lhsLine
        self.lhsColumn = lhsColumn
        self.rhsLine = rhsLine
        self.rhsColumn = rhsColumn
    }
}

/// Parses the Core Data predicate format subset into a ``FilterNode``.
///
/// ```
/// predicate  := or
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison := operand operator modifier? operand | operand "BETWEEN" operand
/// operator   := == = != <> < <= =< > >= => BEGINSWITH ENDSWITH CONTAINS IN
/// modifier   := [c] | [d] | [cd]
/// operand    := keyPath | string | number | TRUE | FALSE | YES | NO | NIL | NULL
///             | %@ | %d | %K | "{" operand ("," operand)* "}"
/// ```
/// Keywords are case-insensitive.
///
/// Nesting is bounded (``StringPredicate/maximumDepth``), so that no input can exhaust the stack
/// here or in anything that walks the tree later (binding, planning, evaluation): each `NOT`,
/// each pair of parentheses, each level of `AND`/`OR` and each `.` of a key path counts one
/// level. A chain of one operator (`a AND b AND c …`) is built as a balanced tree, which
/// evaluates its terms in the same order and stops at the same one as the left-leaning tree of
/// the grammar, so a chain of n terms is ⌈log₂ n⌉ levels. A list `{…}` holds constants only,
/// so it never nests.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var position = 0
    private var arguments: [Any?]
    private var nextArgument = 0
    /// Where each comparison's operands start, in the order the comparisons were parsed.
    private var positions: [PredicatePosition] = []
    /// The `NOT`s and parentheses open around the current token: each adds a level to what is
    /// parsed inside it, so the parser refuses to go deeper than the limit before it recurses.
    private var open = 0

    /// A parsed part and how many levels deep it is (a comparison is 1).
    private typealias Parsed = (node: FilterNode, depth: Int)

    /// - Returns: the filter and where each of its comparisons' operands are (for errors found
    ///   when it is bound to an entity).
    /// - Throws: ``LogbookError/predicateSyntax(message:line:column:)``.
    static func parse(_ text: String, arguments: [Any?]) throws -> (
        FilterNode, [PredicatePosition]
    ) {
        var parser = PredicateParser(
            tokens: try PredicateLexer.tokenize(text), arguments: arguments)
        let node = try parser.parseOr().node
        guard parser.current.kind == .end else {
            throw parser.error("expected AND, OR or the end of the predicate")
        }
        return (node, parser.positions)
    }

    private init(tokens: [PredicateToken], arguments: [Any?]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    private var current: PredicateToken { tokens[position] }

    private func error(_ message: String, at token: PredicateToken? = nil) -> LogbookError {
        let t = token ?? current
        return .predicateSyntax(message: message, line: t.line, column: t.column)
    }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private mutating func accept(symbol: String) -> Bool {
        if current.kind == .symbol(symbol) {
            advance()
            return true
        }
        return false
    }

    private mutating func accept(keyword: String) -> Bool {
        if current.kind == .keyword(keyword) {
            advance()
            return true
        }
        return false
    }

    private mutating func parseOr() throws -> Parsed {
        let start = current
        var terms = [try parseAnd()]
        while accept(keyword: "OR") || accept(symbol: "||") { terms.append(try parseAnd()) }
        return try chain(terms[...], FilterNode.or, start)
    }

    private mutating func parseAnd() throws -> Parsed {
        let start = current
        var terms = [try parseNot()]
        while accept(keyword: "AND") || accept(symbol: "&&") { terms.append(try parseNot()) }
        return try chain(terms[...], FilterNode.and, start)
    }

    /// `terms` joined by `join` as a balanced tree (see the type's comment).
    private func chain(
        _ terms: ArraySlice<Parsed>, _ join: (FilterNode, FilterNode) -> FilterNode,
        _ start: PredicateToken
    ) throws -> Parsed {
        guard terms.count > 1 else { return terms[terms.startIndex] }
        let middle = terms.startIndex + terms.count / 2
        let left = try chain(terms[..<middle], join, start)
        let right = try chain(terms[middle...], join, start)
        return (join(left.node, right.node), try level(max(left.depth, right.depth) + 1, start))
    }

    /// `depth`, if it is within the limit.
    private func level(_ depth: Int, _ token: PredicateToken) throws -> Int {
        guard depth <= StringPredicate.maximumDepth else {
            throw error(
                "the predicate nests more than \(StringPredicate.maximumDepth) levels deep "
                    + "(each NOT, pair of parentheses, level of AND or OR, and . of a key path "
                    + "is one)", at: token)
        }
        return depth
    }

    private mutating func parseNot() throws -> Parsed {
        let token = current
        if accept(keyword: "NOT") || accept(symbol: "!") {
            let inner = try nested(token) { try $0.parseNot() }
            return (.not(inner.node), try level(inner.depth + 1, token))
        }
        if accept(keyword: "TRUEPREDICATE") { return (.constant(true), 1) }
        if accept(keyword: "FALSEPREDICATE") { return (.constant(false), 1) }
        if current.kind == .symbol("(") {
            advance()
            let inner = try nested(token) { try $0.parseOr() }
            guard accept(symbol: ")") else {
                throw error("expected \")\" to close the \"(\" at column \(token.column)")
            }
            return (inner.node, try level(inner.depth + 1, token))
        }
        return try parseComparison()
    }

    /// Parses inside the `NOT` or `(` at `token`, refusing first if that is past the limit.
    private mutating func nested(_ token: PredicateToken, _ body: (inout Self) throws -> Parsed)
        throws -> Parsed
    {
        open += 1
        defer { open -= 1 }
        _ = try level(open + 1, token)
        return try body(&self)
    }

    private mutating func parseComparison() throws -> Parsed {
        if case .keyword(let k) = current.kind, ["ANY", "ALL", "SOME", "NONE"].contains(k) {
            throw error(
                "\(k) applies to to-many relationships, which string predicates do not support")
        }
        let lhsToken = current
        let lhs = try parseOperand()
        let opToken = current
        if accept(keyword: "BETWEEN") {
            let rangeToken = current
            let range = try parseOperand()
            switch range {
            case .list(let bounds) where bounds.count == 2:
                positions.append(PredicatePosition(lhs: lhsToken, rhs: rangeToken))
                return (
                    .between(lhs, lower: .value(bounds[0]), upper: .value(bounds[1])),
                    try level(1 + hops(lhs), lhsToken)
                )
            default:
                throw error("BETWEEN needs two bounds, such as {1, 10}", at: opToken)
            }
        }
        let op: FilterOperator
        switch current.kind {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        case .keyword("BEGINSWITH"): op = .beginsWith
        case .keyword("ENDSWITH"): op = .endsWith
        case .keyword("CONTAINS"): op = .contains
        case .keyword("IN"): op = .in
        case .keyword(let k) where k == "LIKE" || k == "MATCHES":
            throw error("\(k) is not supported; use BEGINSWITH, ENDSWITH or CONTAINS")
        case .end:
            throw error("the predicate ends where an operator (==, <, CONTAINS, …) was expected")
        default:
            throw error(
                "expected an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, IN, BETWEEN)"
            )
        }
        advance()
        var caseInsensitive = false
        var diacriticInsensitive = false
        if case .symbol(let s) = current.kind, s.hasPrefix("[") {
            caseInsensitive = s.contains("c")
            diacriticInsensitive = s.contains("d")
            advance()
        }
        let rhsToken = current
        let rhs = try parseOperand()
        if op == .in, case .value(let v) = rhs, !v.isNull {
            throw error("IN needs a list, such as {\"a\", \"b\"} or %@ with an array", at: rhsToken)
        }
        positions.append(PredicatePosition(lhs: lhsToken, rhs: rhsToken))
        let depth = try level(1 + max(hops(lhs), hops(rhs)), hops(lhs) > 0 ? lhsToken : rhsToken)
        return (
            .compare(
                lhs, op, rhs, caseInsensitive: caseInsensitive,
                diacriticInsensitive: diacriticInsensitive), depth
        )
    }

    /// The relationships a key path operand follows (its dots): binding nests a level for each.
    private func hops(_ operand: FilterOperand) -> Int {
        guard case .key(let path) = operand else { return 0 }
        return path.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) }
    }

    private mutating func parseOperand() throws -> FilterOperand {
        let token = current
        switch token.kind {
        case .identifier(let name):
            advance()
            return .key(name.hasPrefix("self.") ? String(name.dropFirst(5)) : name)
        case .string(let s):
            advance()
            return .value(.string(s))
        case .integer(let v):
            advance()
            return .value(.integer(v))
        case .double(let v):
            advance()
            return .value(.double(v))
        case .keyword("TRUE"), .keyword("YES"):
            advance()
            return .value(.bool(true))
        case .keyword("FALSE"), .keyword("NO"):
            advance()
            return .value(.bool(false))
        case .keyword("NIL"), .keyword("NULL"):
            advance()
            return .value(.null)
        case .argument(let kind):
            advance()
            return try argument(kind, token)
        case .symbol("{"):
            advance()
            var items: [AttributeValue] = []
            if !accept(symbol: "}") {
                repeat {
                    let itemToken = current
                    // Refused before it is parsed: a list in a list would recurse.
                    guard itemToken.kind != .symbol("{"),
                        case .value(let v) = try parseOperand()
                    else {
                        throw error("a list {…} holds constants only", at: itemToken)
                    }
                    items.append(v)
                } while accept(symbol: ",")
                guard accept(symbol: "}") else {
                    throw error("expected \",\" or \"}\" in the list")
                }
            }
            return .list(items)
        case .end:
            throw error("the predicate ends where a value or key path was expected")
        default:
            throw error("expected a key path, a value or %@")
        }
    }

    private mutating func argument(_ kind: Character, _ token: PredicateToken) throws
        -> FilterOperand
    {
        guard nextArgument < arguments.count else {
            throw error("%\(kind) has no argument (only \(arguments.count) given)", at: token)
        }
        let raw = arguments[nextArgument]
        nextArgument += 1
        switch kind {
        case "K":
            guard let key = raw as? String else {
                throw error("%K needs a String key path argument", at: token)
            }
            return .key(key)
        case "d", "i":
            guard let raw, let v = raw as? any BinaryInteger, let i = Int64(exactly: v) else {
                throw error("%d needs an integer argument", at: token)
            }
            return .value(.integer(i))
        default:
            if let id = raw as? PersistentIdentifier { return .identifier(id) }
            if let object = raw as? any ModelObject {
                let id = object.persistentModelID
                guard !id.isTemporary else {
                    throw error(
                        "the argument is a \(object.entityName) that is not inserted in a context, so no relationship reaches it",
                        at: token)
                }
                return .identifier(id)
            }
            if let list = raw as? [Any?] {
                return .list(try list.map { try constant($0, token) })
            }
            if let list = raw as? [Any] {
                return .list(try list.map { try constant($0, token) })
            }
            return .value(try constant(raw, token))
        }
    }

    private func constant(_ raw: Any?, _ token: PredicateToken) throws -> AttributeValue {
        guard let raw else { return .null }
        if raw is PersistentIdentifier || raw is any ModelObject {
            throw error(
                "a list holds values; compare a relationship with one object, as company == %@",
                at: token)
        }
        if let v = raw as? AttributeValue { return v }
        // Any stored type as it is stored: an enum as its raw value, a UInt64, a Decimal…
        if let v = StorableTypes.attributeValue(of: raw) { return v }
        for type in AttributeType.allCases {
            if let v = AttributeValue.converting(raw, to: type),
                !(type == .double && raw is any BinaryInteger)
            {
                return v
            }
        }
        throw error(
            "the argument \(raw) (\(Swift.type(of: raw))) is not a value of a type Logbook stores",
            at: token)
    }
}
