import Foundation

/// A comparison operator of a filter.
enum FilterOperator: Sendable, Hashable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, `in`
}

/// One side of a comparison: an attribute (by name until bound to an entity, then by
/// position among the stored fields), a constant, or a list of constants.
enum FilterOperand: Sendable, Hashable {
    case key(String)
    case attribute(Int)
    /// How many elements the array or set at stored position `Int` holds (`null` when it is).
    case count(Int)
    case value(AttributeValue)
    case list([AttributeValue])
    /// The object's own identifier (`persistentModelID`).
    case primaryKey
    /// An object given as a constant: a model object or a ``PersistentIdentifier``; `nil` for
    /// an object not inserted anywhere, which nothing reaches.
    case identifier(PersistentIdentifier?)
    /// Objects given as constants, after IN.
    case identifiers([PersistentIdentifier])
}

/// Where a filter reads attribute values from.
protocol FilterValues {
    func value(forKey key: String) throws -> AttributeValue
    func value(at index: Int) -> AttributeValue
    /// Whether attribute `index` equals `constant`, when this can be told without building the
    /// value; `nil` to compare the values.
    func equals(at index: Int, _ constant: AttributeValue) -> Bool?
    /// The object's primary key (0 where there is none, as for tools' decoded records).
    var primaryKey: UInt64 { get }
}

extension FilterValues {
    func equals(at index: Int, _ constant: AttributeValue) -> Bool? { nil }
    var primaryKey: UInt64 { 0 }
}

/// The tree both string predicates and translated `#Predicate`s become: evaluated against a
/// record's values without building an object.
indirect enum FilterNode: Sendable, Hashable {
    case constant(Bool)
    case and(FilterNode, FilterNode)
    case or(FilterNode, FilterNode)
    case not(FilterNode)
    /// `caseInsensitive` and `diacriticInsensitive` are the `[c]` and `[d]` modifiers.
    case compare(
        FilterOperand, FilterOperator, FilterOperand, caseInsensitive: Bool,
        diacriticInsensitive: Bool)
    case between(FilterOperand, lower: FilterOperand, upper: FilterOperand)
    /// The to-one relationship at stored field `slot` reaches an object of `destination` that
    /// satisfies `node`, or reaches none and `whenMissing` is true. A fetch resolves it into
    /// ``keyIn(_:_:)`` (through a fetch of the destination) before evaluating anything.
    case related(slot: Int, destination: String, node: FilterNode, whenMissing: Bool)
    /// Stored field `field` (an integer: a to-one relationship's key) is one of `keys`, or
    /// (links: the storing side of a many-to-many) holds one of `keys`.
    case keyIn(Int, Set<UInt64>)
    /// The object's primary key is one of `keys`.
    case identifierIn(Set<UInt64>)
    /// The to-many relationship `relationship` (its position among the entity's
    /// relationships) reaches an object of `destination` that satisfies `node`. A fetch
    /// resolves it into ``keyIn(_:_:)`` or ``identifierIn(_:)`` before evaluating anything.
    case reachesAny(relationship: Int, destination: String, node: FilterNode)
    /// The number of objects the to-many relationship `relationship` reaches, compared with
    /// `count` by `op`. A fetch resolves it into ``linkCount(_:_:_:)`` or ``identifierIn(_:)``.
    case reachCount(relationship: Int, destination: String, FilterOperator, Int)
    /// The number of links stored field `field` holds, compared with `count` by `op`.
    case linkCount(Int, FilterOperator, Int)

    /// The same filter with attribute names replaced by positions in `entity` (see
    /// ``FilterBinder``; no relationships can be followed without a schema).
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``,
    ///   ``LogbookError/unsupportedPredicate(_:)``, ``LogbookError/predicateSyntax(message:line:column:)``.
    func bound(to entity: Entity) throws -> FilterNode {
        var binder = FilterBinder(schema: nil, positions: [])
        return try binder.bind(self, to: entity)
    }

    /// Marks in `mask` every attribute position the filter reads.
    func markAttributes(_ mask: inout [Bool]) {
        func mark(_ o: FilterOperand) {
            switch o {
            case .attribute(let i), .count(let i): if i < mask.count { mask[i] = true }
            default: break
            }
        }
        switch self {
        case .constant: break
        case .and(let a, let b), .or(let a, let b):
            a.markAttributes(&mask)
            b.markAttributes(&mask)
        case .not(let a): a.markAttributes(&mask)
        case .compare(let l, _, let r, _, _):
            mark(l)
            mark(r)
        case .between(let v, let lo, let hi):
            mark(v)
            mark(lo)
            mark(hi)
        case .related(let slot, _, _, _): mark(.attribute(slot))
        case .keyIn(let field, _), .linkCount(let field, _, _): mark(.attribute(field))
        case .identifierIn, .reachesAny, .reachCount: break
        }
    }

    /// Whether the values satisfy the filter.
    /// - Throws: ``LogbookError/unsupportedPredicate(_:)`` when an operator does not apply to
    ///   the values' types; key lookup errors of `values`.
    func evaluate<Values: FilterValues>(_ values: Values) throws -> Bool {
        switch self {
        case .constant(let b): return b
        case .and(let a, let b): return try a.evaluate(values) && b.evaluate(values)
        case .or(let a, let b): return try a.evaluate(values) || b.evaluate(values)
        case .not(let a): return try !a.evaluate(values)
        case .compare(let l, let op, let r, let c, let d):
            if !c && !d && (op == .equal || op == .notEqual), case .attribute(let i) = l,
                case .value(let v) = r,
                let equal = values.equals(at: i, v)
            {
                return equal == (op == .equal)
            }
            if op == .in {
                let lhs = try Self.resolve(l, values)
                guard case .list(let items) = r else {
                    throw LogbookError.unsupportedPredicate(
                        "IN needs a list on its right, such as {1, 2} or %@ with an array")
                }
                return items.contains { Self.equal(lhs, $0, c, d) }
            }
            return try Self.compare(Self.resolve(l, values), op, Self.resolve(r, values), c, d)
        case .between(let v, let lo, let hi):
            let value = try Self.resolve(v, values)
            return try Self.compare(value, .greaterOrEqual, Self.resolve(lo, values), false, false)
                && Self.compare(value, .lessOrEqual, Self.resolve(hi, values), false, false)
        case .related(_, let destination, _, _):
            throw LogbookError.unsupportedPredicate(
                "a comparison through a relationship to \(destination) can only be evaluated by a fetch"
            )
        case .keyIn(let field, let keys):
            switch values.value(at: field) {
            case .integer(let key): return keys.contains(UInt64(bitPattern: key))
            case .data(let links):
                return LinkList.keys(links)?.contains(where: keys.contains) ?? false
            default: return false
            }
        case .identifierIn(let keys):
            return keys.contains(values.primaryKey)
        case .reachesAny(_, let destination, _), .reachCount(_, let destination, _, _):
            throw LogbookError.unsupportedPredicate(
                "a test of a to-many relationship to \(destination) can only be evaluated by a fetch"
            )
        case .linkCount(let field, let op, let count):
            let links = LinkList.keys(values.value(at: field))?.count ?? 0
            return try Self.compare(
                .integer(Int64(links)), op, .integer(Int64(count)), false, false)
        }
    }

    @inline(__always)
    private static func resolve<Values: FilterValues>(_ o: FilterOperand, _ values: Values) throws
        -> AttributeValue
    {
        switch o {
        case .attribute(let i): return values.value(at: i)
        case .count(let i):
            guard case .array(let items) = values.value(at: i) else { return .null }
            return .integer(Int64(items.count))
        case .value(let v): return v
        case .key(let k): return try values.value(forKey: k)
        case .list:
            throw LogbookError.unsupportedPredicate(
                "a list {…} is only allowed after IN or BETWEEN")
        case .primaryKey: return .integer(Int64(bitPattern: values.primaryKey))
        case .identifier(let id):
            // A key no object has, for an object not inserted anywhere.
            return .integer(Int64(bitPattern: id?.primaryKey ?? 0))
        case .identifiers:
            throw LogbookError.unsupportedPredicate(
                "a list of objects can only be compared by a fetch")
        }
    }

    private static func fold(_ s: String, _ c: Bool, _ d: Bool) -> String {
        var options: String.CompareOptions = []
        if c { options.insert(.caseInsensitive) }
        if d { options.insert(.diacriticInsensitive) }
        return options.isEmpty ? s : s.folding(options: options, locale: nil)
    }

    @inline(__always)
    private static func equal(_ a: AttributeValue, _ b: AttributeValue, _ c: Bool, _ d: Bool)
        -> Bool
    {
        if c || d, case .string(let x) = a, case .string(let y) = b {
            return fold(x, c, d) == fold(y, c, d)
        }
        return AttributeValue.equal(a, b)
    }

    private static func compare(
        _ a: AttributeValue, _ op: FilterOperator, _ b: AttributeValue, _ c: Bool, _ d: Bool
    ) throws -> Bool {
        switch op {
        case .equal: return equal(a, b, c, d)
        case .notEqual: return !equal(a, b, c, d)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if a.isNull || b.isNull || a.isBinaryNaN || b.isBinaryNaN { return false }
            let comparable =
                a.type == b.type || (a.type?.isNumeric == true && b.type?.isNumeric == true)
            guard comparable else {
                throw LogbookError.unsupportedPredicate(
                    "cannot order \(a.type?.description ?? "nil") against \(b.type?.description ?? "nil") (\(a) and \(b))"
                )
            }
            var result = AttributeValue.compare(a, b)
            if c || d, case .string(let x) = a, case .string(let y) = b {
                result = AttributeValue.compare(.string(fold(x, c, d)), .string(fold(y, c, d)))
            }
            switch op {
            case .less: return result == .orderedAscending
            case .lessOrEqual: return result != .orderedDescending
            case .greater: return result == .orderedDescending
            default: return result != .orderedAscending
            }
        case .contains where a.type == .array:
            // An array or set holding an element equal to `b`.
            guard case .array(let items) = a else { return false }
            return items.contains { equal($0, b, c, d) }
        case .beginsWith, .endsWith, .contains:
            if a.isNull || b.isNull { return false }
            guard case .string(let x) = a, case .string(let y) = b else {
                throw LogbookError.unsupportedPredicate(
                    "BEGINSWITH, ENDSWITH and CONTAINS compare strings, not \(a) and \(b)")
            }
            let s = fold(x, c, d)
            let t = fold(y, c, d)
            switch op {
            case .beginsWith: return s.hasPrefix(t)
            case .endsWith: return s.hasSuffix(t)
            default: return t.isEmpty || s.contains(t)
            }
        case .in:
            return false
        }
    }
}

extension AttributeValue {
    /// Whether this is a double's or float's NaN, which no ordering comparison holds for (as
    /// in Swift).
    var isBinaryNaN: Bool {
        switch self {
        case .double(let d): return d.isNaN
        case .float(let f): return f.isNaN
        default: return false
        }
    }
}

/// Values of a record decoded in attribute order.
struct ArrayFilterValues: FilterValues {
    let values: [AttributeValue]
    let entity: Entity
    var primaryKey: UInt64 = 0
    func value(forKey key: String) throws -> AttributeValue {
        guard let i = entity.attributeIndex(key) else {
            throw LogbookError.unknownAttribute(entity: entity.name, attribute: key)
        }
        return values[i]
    }
    @inline(__always) func value(at index: Int) -> AttributeValue { values[index] }
}

/// Values by attribute name, as tools decode them.
struct DictionaryFilterValues: FilterValues {
    let values: [String: AttributeValue]
    func value(forKey key: String) throws -> AttributeValue {
        guard let v = values[key] else {
            throw LogbookError.unsupportedPredicate("the record has no attribute \"\(key)\"")
        }
        return v
    }
    func value(at index: Int) -> AttributeValue { .null }
}
