/// A parsed `--where` filter over the three employee fields, for stores that cannot evaluate
/// string predicates themselves (the in-memory repository).
///
/// Grammar (`&&`/`AND` binds tighter than `||`/`OR`; keywords in any case):
/// ```
/// filter     := conjunction (("||" | "OR") conjunction)*
/// conjunction:= comparison (("&&" | "AND") comparison)*
/// comparison := field op literal        // e.g. salary > 1000000, name == 'Ann'
/// field      := "name" | "designation" | "salary"
/// op         := "==" | "=" | "!=" | "<" | "<=" | ">" | ">="
/// literal    := digits | '…' | "…"
/// ```
struct EmployeeFilter: Sendable {
    private struct Comparison: Sendable {
        var field: EmployeeSortKey
        var op: String
        var number: Int64?
        var text: String?
    }

    /// Disjunction of conjunctions of comparisons.
    private var alternatives: [[Comparison]]

    /// - Throws: ``EmployeesError/invalidFilter(filter:reason:)`` naming the first problem.
    init(parsing source: String) throws(EmployeesError) {
        var tokens: [String]
        do {
            tokens = try Self.tokenize(source)
        } catch let reason {
            throw .invalidFilter(filter: source, reason: reason.message)
        }
        var alternatives: [[Comparison]] = [[]]
        while true {
            guard tokens.count >= 3 else {
                throw .invalidFilter(filter: source, reason: "expected `field operator value`")
            }
            let (fieldName, op, literal) = (tokens[0], tokens[1], tokens[2])
            tokens.removeFirst(3)
            guard let field = EmployeeSortKey(rawValue: fieldName) else {
                throw .invalidFilter(
                    filter: source,
                    reason: "unknown field \"\(fieldName)\" (use name, designation or salary)")
            }
            guard ["==", "=", "!=", "<", "<=", ">", ">="].contains(op) else {
                throw .invalidFilter(filter: source, reason: "unknown operator \"\(op)\"")
            }
            var comparison = Comparison(field: field, op: op)
            if field == .salary {
                guard let number = Int64(literal) else {
                    throw .invalidFilter(filter: source, reason: "salary compares with a number")
                }
                comparison.number = number
            } else {
                guard literal.first == "'" || literal.first == "\"" else {
                    throw .invalidFilter(
                        filter: source, reason: "\(fieldName) compares with a quoted string")
                }
                comparison.text = String(literal.dropFirst().dropLast())
            }
            alternatives[alternatives.count - 1].append(comparison)
            guard let joiner = tokens.first else { break }
            tokens.removeFirst()
            switch joiner.lowercased() {
            case "&&", "and": break
            case "||", "or": alternatives.append([])
            default:
                throw .invalidFilter(filter: source, reason: "unexpected \"\(joiner)\"")
            }
        }
        self.alternatives = alternatives
    }

    /// Whether `record` passes the filter.
    func matches(_ record: EmployeeRecord) -> Bool {
        alternatives.contains { $0.allSatisfy { Self.evaluate($0, on: record) } }
    }

    private static func evaluate(_ comparison: Comparison, on record: EmployeeRecord) -> Bool {
        let order: Int
        switch comparison.field {
        case .salary:
            let value = comparison.number ?? 0
            order = record.salary < value ? -1 : (record.salary == value ? 0 : 1)
        case .name, .designation:
            let field = comparison.field == .name ? record.name : record.designation
            let value = comparison.text ?? ""
            order = field < value ? -1 : (field == value ? 0 : 1)
        }
        switch comparison.op {
        case "==", "=": return order == 0
        case "!=": return order != 0
        case "<": return order < 0
        case "<=": return order <= 0
        case ">": return order > 0
        default: return order >= 0
        }
    }

    private struct TokenError: Error { var message: String }

    /// Words, operators and quoted strings (kept with their quotes).
    private static func tokenize(_ source: String) throws(TokenError) -> [String] {
        var tokens: [String] = []
        var index = source.startIndex
        while index < source.endIndex {
            let character = source[index]
            if character == " " || character == "\t" {
                index = source.index(after: index)
            } else if character == "'" || character == "\"" {
                guard let close = source[source.index(after: index)...].firstIndex(of: character)
                else { throw TokenError(message: "unterminated string") }
                tokens.append(String(source[index...close]))
                index = source.index(after: close)
            } else if "=!<>&|".contains(character) {
                var end = source.index(after: index)
                while end < source.endIndex, "=&|".contains(source[end]) {
                    end = source.index(after: end)
                }
                tokens.append(String(source[index..<end]))
                index = end
            } else if character.isLetter || character.isNumber || character == "_"
                || character == "-"
            {
                var end = source.index(after: index)
                while end < source.endIndex,
                    source[end].isLetter || source[end].isNumber || source[end] == "_"
                {
                    end = source.index(after: end)
                }
                tokens.append(String(source[index..<end]).replacingUnderscores())
                index = end
            } else {
                throw TokenError(message: "unexpected character \"\(character)\"")
            }
        }
        return tokens
    }
}

extension String {
    /// `1_000_000` → `1000000` for numbers; words are left alone.
    fileprivate func replacingUnderscores() -> String {
        guard first?.isNumber == true || first == "-" else { return self }
        return String(filter { $0 != "_" })
    }
}
