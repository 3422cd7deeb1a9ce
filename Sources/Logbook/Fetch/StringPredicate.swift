/// A predicate in the Core Data format subset, parsed once and evaluated many times:
/// `salary > %@ AND name BEGINSWITH[c] "k"`.
///
/// Supported: `== = != <> < <= > >=`, `AND OR NOT` (and `&& || !`), parentheses,
/// `BEGINSWITH ENDSWITH CONTAINS` with `[c]` (case-insensitive) and `[d]`
/// (diacritic-insensitive), `IN {…}` or `IN %@` (an array), `BETWEEN {lo, hi}`,
/// `TRUEPREDICATE`/`FALSEPREDICATE`, constants (strings in single or double quotes, numbers,
/// `TRUE`/`FALSE`/`YES`/`NO`, `NIL`/`NULL`) and arguments `%@` (any value or array), `%d`
/// (integer), `%K` (key path). Comparisons with `nil`: `==`/`!=` work; ordering is false.
///
/// Nesting is limited to ``maximumDepth`` levels, so that no text, however hostile, can exhaust
/// the stack; past it the parser throws a syntax error pointing at where the limit is crossed.
///
/// Usable without a store: tools evaluate it on decoded records (``evaluate(_:)``).
/// Immutable, `Sendable`.
public struct StringPredicate: Sendable, CustomStringConvertible {
    /// How many levels a predicate may nest: each `NOT`, each pair of parentheses, each level
    /// of `AND` or `OR`, and each `.` of a key path (a relationship followed) is one, and a
    /// comparison is one. A chain of one operator, `a OR b OR c …`, is kept as a balanced tree:
    /// n terms are ⌈log₂ n⌉ levels, so a chain of a million terms is 20. A list `{…}` holds
    /// constants, never another list.
    public static let maximumDepth = 100

    /// The text it was parsed from.
    public let format: String
    let root: FilterNode
    /// Where each comparison's operands are in `format`, for errors found when binding.
    let positions: [PredicatePosition]

    /// Parses `format`, substituting `arguments` for `%@`, `%d`, `%K` in order.
    /// - Throws: ``LogbookError/predicateSyntax(message:line:column:)`` pointing at the problem,
    ///   also for a predicate nested deeper than ``maximumDepth``.
    public init(_ format: String, _ arguments: Any?...) throws {
        try self.init(format: format, arguments: arguments)
    }

    /// Parses `format` with an array of arguments.
    /// - Throws: ``LogbookError/predicateSyntax(message:line:column:)``.
    public init(format: String, arguments: [Any?]) throws {
        self.format = format
        (root, positions) = try PredicateParser.parse(format, arguments: arguments)
    }

    /// Whether a record's values (by attribute name, as ``RecordDecoder`` gives them) satisfy
    /// the predicate.
    /// - Throws: ``LogbookError/unsupportedPredicate(_:)`` for a key the values lack or an
    ///   operator that does not apply to the values' types.
    public func evaluate(_ values: [String: AttributeValue]) throws -> Bool {
        try root.evaluate(DictionaryFilterValues(values: values))
    }

    /// Checks the predicate's key paths against `entity`.
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``,
    ///   ``LogbookError/unsupportedPredicate(_:)``.
    public func validate(for entity: Entity) throws {
        _ = try bound(to: entity, schema: nil)
    }

    /// The filter bound to `entity`, following relationships through `schema`.
    func bound(to entity: Entity, schema: Schema?) throws -> FilterNode {
        var binder = FilterBinder(schema: schema, positions: positions)
        return try binder.bind(root, to: entity)
    }

    public var description: String { format }
}
