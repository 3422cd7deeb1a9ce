/// Binds a parsed string predicate to an entity: attribute names become stored-field
/// positions (a composite's fields by their dotted names, `address.city`; an array's or set's
/// size as `tags.@count`), key paths through a to-one relationship (`company.name`) become
/// ``FilterNode/related(slot:destination:node:whenMissing:)`` nodes, and every constant is
/// checked against the type of what it is compared with, so `salary == 'x'` is an error that
/// points at `'x'` rather than a comparison that is silently false, then converted to it (`0.1`
/// to a `Float` or the decimal 0.1). `tags CONTAINS 'x'` and `'x' IN tags` test an array's or
/// set's elements.
struct FilterBinder {
    /// Where relationships lead; `nil` when none may be followed (tools' decoded records).
    let schema: Schema?
    /// Where each comparison's operands are, in parse order (empty: unknown).
    let positions: [PredicatePosition]
    private var next = 0

    init(schema: Schema?, positions: [PredicatePosition]) {
        self.schema = schema
        self.positions = positions
    }

    /// `node` bound to `entity`.
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``,
    ///   ``LogbookError/predicateSyntax(message:line:column:)`` for a constant of the wrong
    ///   type, ``LogbookError/unsupportedPredicate(_:)`` for key paths that cannot be followed.
    mutating func bind(_ node: FilterNode, to entity: Entity) throws -> FilterNode {
        switch node {
        case .constant, .keyIn, .identifierIn, .related, .reachesAny, .reachCount, .linkCount:
            return node
        case .and(let a, let b):
            let left = try bind(a, to: entity)
            return .and(left, try bind(b, to: entity))
        case .or(let a, let b):
            let left = try bind(a, to: entity)
            return .or(left, try bind(b, to: entity))
        case .not(let a): return .not(try bind(a, to: entity))
        case .compare, .between:
            let position = next < positions.count ? positions[next] : nil
            next += 1
            return try bindLeaf(node, to: entity, position)
        }
    }

    /// What a key names in an entity.
    private enum Resolved {
        case attribute(Int, AttributeDescription)
        /// The number of elements of the array or set at a position.
        case count(Int)
        /// A to-one relationship: its stored slot and destination entity.
        case relationship(Int, String)
        /// A key path through a to-one relationship: its slot, destination and the rest.
        case through(Int, String, rest: String)
    }

    private func resolve(_ name: String, in entity: Entity) throws -> Resolved {
        let stored = entity.storedFields
        if let i = entity.attributeIndex(name) { return .attribute(i, entity.attributes[i]) }
        if name.hasSuffix(".@count"), let i = entity.attributeIndex(String(name.dropLast(7))) {
            guard entity.attributes[i].type.isCollection else {
                throw LogbookError.unsupportedPredicate(
                    "\(name) counts elements, and \(entity.name).\(entity.attributes[i].name) is a \(entity.attributes[i].declaredType), not an array or set"
                )
            }
            return .count(i)
        }
        if let relationship = entity.relationship(named: name) {
            guard !relationship.isToMany else { throw toMany(relationship, of: entity) }
            // Invariant: a to-one relationship is a stored field of its name.
            return .relationship(stored.attributeIndex(name)!, relationship.destination)
        }
        if let dot = name.firstIndex(of: ".") {
            let head = String(name[..<dot])
            let rest = String(name[name.index(after: dot)...])
            guard let relationship = entity.relationship(named: head) else {
                throw LogbookError.unknownAttribute(entity: entity.name, attribute: head)
            }
            guard !relationship.isToMany else { throw toMany(relationship, of: entity) }
            guard schema?.entity(named: relationship.destination) != nil else {
                throw LogbookError.unsupportedPredicate(
                    "the key path \(name) goes through a relationship, which these records cannot follow"
                )
            }
            return .through(stored.attributeIndex(head)!, relationship.destination, rest: rest)
        }
        throw LogbookError.unknownAttribute(entity: entity.name, attribute: name)
    }

    private func toMany(_ relationship: RelationshipDescription, of entity: Entity)
        -> LogbookError
    {
        .unsupportedPredicate(
            "\(entity.name).\(relationship.name) is a to-many relationship; predicates follow to-one relationships only (fetch \(relationship.destination) by its inverse instead)"
        )
    }

    private func bindLeaf(_ node: FilterNode, to entity: Entity, _ position: PredicatePosition?)
        throws -> FilterNode
    {
        var node = node
        var position = position
        // `'x' IN tags`: the collection holds the value.
        if case .compare(let value, .in, .key(let name), let c, let d) = node,
            case .attribute(_, let attribute)? = try? resolve(name, in: entity),
            attribute.type.isCollection
        {
            node = .compare(
                .key(name), .contains, value, caseInsensitive: c, diacriticInsensitive: d)
            position = position.map {
                PredicatePosition(
                    lhsLine: $0.rhsLine, lhsColumn: $0.rhsColumn, rhsLine: $0.lhsLine,
                    rhsColumn: $0.lhsColumn)
            }
        }
        // The operands, with which is a key.
        let operands: [FilterOperand]
        switch node {
        case .compare(let l, _, let r, _, _): operands = [l, r]
        case .between(let v, let lo, let hi): operands = [v, lo, hi]
        default: return node
        }
        let keyed = operands.indices.filter {
            if case .key = operands[$0] { return true } else { return false }
        }
        try checkLists(node, in: entity, position)
        if let decided = try constantComparison(node, operands, position) { return decided }
        var resolved: [Int: Resolved] = [:]
        for i in keyed {
            guard case .key(let name) = operands[i] else { continue }
            resolved[i] = try resolve(name, in: entity)
        }
        // A key path through a relationship: the comparison is made on the destination.
        if let (i, through) = resolved.first(where: {
            if case .through = $0.value { return true } else { return false }
        }) {
            guard keyed.count == 1, case .through(let slot, let destination, let rest) = through,
                let target = schema?.entity(named: destination)
            else {
                throw LogbookError.unsupportedPredicate(
                    "a comparison through a relationship must compare it with constants")
            }
            if let schema, let d = schema.entities.firstIndex(where: { $0.name == destination }),
                !schema.descendants(of: d).isEmpty
            {
                throw LogbookError.unsupportedPredicate(
                    "\(destination) has sub-entities, so a string predicate cannot compare through a relationship to it; use #Predicate"
                )
            }
            var inner = operands
            inner[i] = .key(rest)
            let innerNode = rebuilt(node, inner)
            var missing = operands
            missing[i] = .value(.null)
            let whenMissing = (try? rebuilt(node, missing).evaluate(NoValues())) ?? false
            let binder = FilterBinder(schema: schema, positions: [])
            let bound = try binder.bindLeaf(innerNode, to: target, position)
            return .related(
                slot: slot, destination: destination, node: bound, whenMissing: whenMissing)
        }
        var bound = operands
        for (i, what) in resolved {
            switch what {
            case .attribute(let index, _), .relationship(let index, _): bound[i] = .attribute(index)
            case .count(let index): bound[i] = .count(index)
            case .through: break
            }
        }
        try check(node, operands, resolved, entity, position)
        // Constants take the type of what they are compared with (checked above).
        var op: FilterOperator = .equal
        if case .compare(_, let o, _, _, _) = node { op = o }
        for (k, what) in resolved.sorted(by: { $0.key < $1.key }) {
            guard case .attribute(_, let attribute) = what else { continue }
            let target =
                op == .contains && attribute.type.isCollection
                ? (attribute.members.first ?? attribute) : attribute
            for c in bound.indices where c != k {
                switch bound[c] {
                case .value(let v): bound[c] = .value(Self.converted(v, to: target))
                case .list(let vs): bound[c] = .list(vs.map { Self.converted($0, to: target) })
                default: continue
                }
            }
        }
        return rebuilt(node, bound)
    }

    /// `value` as a value of `attribute` where it converts (``AttributeValue/converted(to:)``),
    /// else as it is.
    private static func converted(_ value: AttributeValue, to attribute: AttributeDescription)
        -> AttributeValue
    {
        if attribute.type.isCollection || attribute.type == .composite { return value }
        return value.converted(to: attribute.type) ?? value
    }

    /// Throws if a list (`{…}`, or `%@` with an array) is anywhere but right of `IN`, or if
    /// the right of `IN` cannot be a list (a key naming an attribute that is not an array or
    /// set, or a to-one relationship): refused when binding, not when a plan first evaluates the
    /// comparison (which it may never do).
    private func checkLists(_ node: FilterNode, in entity: Entity, _ position: PredicatePosition?)
        throws
    {
        guard case .compare(let lhs, let op, let rhs, _, _) = node else { return }
        let left: Bool
        var message = "a list {…} is only allowed after IN or BETWEEN"
        if case .list = lhs {
            left = true
        } else if case .list = rhs, op != .in {
            left = false
        } else if op == .in, !mayBeList(rhs, in: entity) {
            left = false
            message = "IN needs a list on its right, such as {1, 2} or %@ with an array"
        } else {
            return
        }
        guard let position else { throw LogbookError.unsupportedPredicate(message) }
        throw LogbookError.predicateSyntax(
            message: message, line: left ? position.lhsLine : position.rhsLine,
            column: left ? position.lhsColumn : position.rhsColumn)
    }

    /// Whether `operand`, right of `IN`, may be a list when the comparison is evaluated: a list,
    /// objects (a fetch resolves them), or a key, unless it names an attribute of `entity` that
    /// is not an array or set, or a to-one relationship (a key through a relationship is checked
    /// at its destination; an unknown key is refused when resolved).
    private func mayBeList(_ operand: FilterOperand, in entity: Entity) -> Bool {
        switch operand {
        case .list, .identifiers: return true
        case .key(let name):
            switch try? resolve(name, in: entity) {
            case .attribute(_, let attribute)?: return attribute.type.isCollection
            case .relationship?, .count?: return false
            case .through?, nil: return true
            }
        case .attribute, .count, .value, .primaryKey, .identifier: return false
        }
    }

    /// A comparison of constants only (`1 < 'B'`), decided now: its answer, or its error, must
    /// not depend on whether a plan evaluates it for some object or finds none to evaluate it
    /// for. `nil` if an operand is not a constant.
    /// - Throws: ``LogbookError/predicateSyntax(message:line:column:)`` at the comparison, for
    ///   constants that do not compare.
    private func constantComparison(
        _ node: FilterNode, _ operands: [FilterOperand], _ position: PredicatePosition?
    ) throws -> FilterNode? {
        for operand in operands {
            switch operand {
            case .value, .list: continue
            default: return nil
            }
        }
        do {
            return .constant(try node.evaluate(NoValues()))
        } catch LogbookError.unsupportedPredicate(let reason) {
            guard let position else { throw LogbookError.unsupportedPredicate(reason) }
            throw LogbookError.predicateSyntax(
                message: reason, line: position.lhsLine, column: position.lhsColumn)
        }
    }

    private func rebuilt(_ node: FilterNode, _ operands: [FilterOperand]) -> FilterNode {
        switch node {
        case .compare(_, let op, _, let c, let d):
            return .compare(
                operands[0], op, operands[1], caseInsensitive: c, diacriticInsensitive: d)
        case .between: return .between(operands[0], lower: operands[1], upper: operands[2])
        default: return node
        }
    }

    /// Throws if a constant cannot be compared with the key it meets.
    private func check(
        _ node: FilterNode, _ operands: [FilterOperand], _ resolved: [Int: Resolved],
        _ entity: Entity, _ position: PredicatePosition?
    ) throws {
        var op: FilterOperator = .equal
        if case .compare(_, let o, _, _, _) = node { op = o }
        if case .between = node { op = .greaterOrEqual }
        // Keys left to right, so that the error reported does not depend on a dictionary's order
        // (which differs between two stores in one process).
        for (k, what) in resolved.sorted(by: { $0.key < $1.key }) {
            for (c, constant) in operands.enumerated() where c != k {
                // The constant's position: the right operand's, or the left's when the key is right.
                let line = c == 0 ? position?.lhsLine : position?.rhsLine
                let column = c == 0 ? position?.lhsColumn : position?.rhsColumn
                func fail(_ message: String) -> LogbookError {
                    guard let line, let column else { return .unsupportedPredicate(message) }
                    return .predicateSyntax(message: message, line: line, column: column)
                }
                let keyName: String
                if case .key(let name) = operands[k] { keyName = name } else { keyName = "?" }
                switch what {
                case .relationship(_, let destination):
                    guard op == .equal || op == .notEqual else {
                        throw fail(
                            "\(keyName) is a relationship; compare it with == or != to nil or an object"
                        )
                    }
                    switch constant {
                    case .value(.null): continue
                    case .identifier(let id):
                        if let id, id.entityName != destination {
                            throw fail("\(keyName) reaches \(destination), not \(id)")
                        }
                    default:
                        throw fail(
                            "\(keyName) is a relationship to \(destination); compare it with nil or an object (%@)"
                        )
                    }
                case .count:
                    if case .value(let v) = constant, v.type != .integer, !v.isNull {
                        throw fail("\(keyName) is a number of elements, not \(v)")
                    }
                    continue
                case .attribute(_, let attribute):
                    // CONTAINS on an array or set compares with its elements.
                    let collection = attribute.type.isCollection && op == .contains
                    let type =
                        collection
                        ? (attribute.members.first?.type ?? attribute.type) : attribute.type
                    let values: [AttributeValue]
                    switch constant {
                    case .value(let v): values = [v]
                    case .list(let vs): values = vs
                    case .identifier:
                        throw fail(
                            "\(keyName) holds \(type) values; an object compares only with a relationship"
                        )
                    case .key(let other):
                        if case .attribute(_, let description)? = resolved[c],
                            case let otherType = description.type,
                            !Self.comparable(type, otherType)
                        {
                            throw fail(
                                "\(keyName) (\(type)) cannot be compared with \(other) (\(otherType))"
                            )
                        }
                        continue
                    default: continue
                    }
                    if [.beginsWith, .endsWith, .contains].contains(op) && !collection
                        && !type.isText
                    {
                        throw fail(
                            "\(keyName) holds \(attribute.declaredType) values; BEGINSWITH, ENDSWITH and CONTAINS compare strings (and CONTAINS an array's elements)"
                        )
                    }
                    for value in values {
                        guard let found = value.type, !Self.accepts(type, found) else { continue }
                        throw fail("\(keyName) holds \(type) values, not the \(found) \(value)")
                    }
                case .through: continue
                }
            }
        }
    }

    /// Whether a constant of type `found` compares meaningfully with a field of type `type`.
    static func accepts(_ type: AttributeType, _ found: AttributeType) -> Bool {
        comparable(type, found)
    }

    private static func comparable(_ a: AttributeType, _ b: AttributeType) -> Bool {
        a == b || (a.isNumeric && b.isNumeric) || (a.isText && b.isText)
            || (a.isCollection && b == .array) || (a == .array && b.isCollection)
    }
}

/// Values of no object: what a comparison through a relationship sees when it reaches none.
private struct NoValues: FilterValues {
    func value(forKey key: String) throws -> AttributeValue { .null }
    func value(at index: Int) -> AttributeValue { .null }
}
