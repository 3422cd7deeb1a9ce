import Foundation

/// Turns a Foundation `#Predicate` into a ``FilterNode`` when every part of it is one we can
/// evaluate on stored values directly: attribute key paths, constants (of any stored type:
/// enums, composites…), `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, `nil`, `contains` on
/// a constant array, ranges (`(a...b).contains`), `starts(with:)`, `persistentModelID`, to-one
/// relationships compared with `nil` or followed with `?.` (`$0.company?.name == "Acme"`),
/// fields of composites (`$0.address.city`, `$0.address?.city`), and `contains`, `count` and
/// `isEmpty` of array and set attributes. Anything else returns `nil`, and the fetch evaluates
/// the predicate on objects instead (see ``PredicateInspection``).
struct PredicateTranslator {
    /// The resolver of each variable in scope: the predicate's input, and the objects a `?.`
    /// reaches.
    private var scopes: [PredicateExpressions.VariableID: KeyPathResolver]
    /// Variables bound to a composite attribute's value by a `?.` (`$0.address?.city`): the
    /// resolver of the object and the composite's stored position.
    private var composites: [PredicateExpressions.VariableID: (KeyPathResolver, Int)] = [:]
    /// The container's bindings by entity name, for the destinations of relationships.
    let binding: (String) -> EntityBinding?

    init(
        resolver: KeyPathResolver, variable: PredicateExpressions.VariableID,
        binding: @escaping (String) -> EntityBinding?
    ) {
        scopes = [variable: resolver]
        self.binding = binding
    }

    /// - Parameter cache: where the direct translation of each expression type is kept, so
    ///   that a repeated query skips the conformance check; without one, it is made each time.
    static func translate<Model: PersistentModel>(
        _ predicate: Predicate<Model>, resolver: KeyPathResolver,
        binding: @escaping (String) -> EntityBinding?, cache: FetchPlanCache? = nil
    ) -> FilterNode? {
        // The common shapes (attribute comparisons with constants, `&&`, `||`, `!`) are
        // translated through conditional conformances, found by one conformance check of the
        // whole expression's type instead of one dynamic cast per node and per constant.
        // Anything else takes the general walk below.
        let expression = predicate.expression
        let translation = DirectTranslation(resolver: resolver, variable: predicate.variable.key)
        if let cache {
            if let direct = cache.directType(of: expression) {
                func open<E: StandardPredicateExpression<Bool>>(_ e: E) -> FilterNode? {
                    direct.directNode(of: e, translation)
                }
                if let node = open(expression) { return node }
            }
        } else if let direct = expression as? any DirectFilterTranslatable,
            let node = direct.directNode(translation)
        {
            return node
        }
        return PredicateTranslator(
            resolver: resolver, variable: predicate.variable.key, binding: binding
        )
        .node(predicate.expression)
    }

    func node(_ expression: Any) -> FilterNode? {
        (expression as? any FilterTranslatable)?.filterNode(self)
    }

    /// What an expression yields as one side of a comparison.
    indirect enum Operand {
        case plain(FilterOperand)
        /// A value of the object a to-one relationship (stored field `slot`) reaches.
        case through(slot: Int, destination: String, Operand)
        /// The number of objects a to-many relationship reaches (`$0.courses.count`).
        case count(relationship: Int, destination: String)
    }

    func operand(_ expression: Any) -> Operand? {
        (expression as? any OperandTranslatable)?.filterOperand(self)
    }

    /// The resolver of the variable `expression` is, if it is one in scope.
    func resolver(of expression: Any) -> KeyPathResolver? {
        (expression as? any PredicateVariableMarker).flatMap { scopes[$0.variableID] }
    }

    /// The composite attribute `expression` yields (a key path to it, or a variable a `?.`
    /// bound to it): its object's resolver and stored position.
    func composite(_ expression: Any) -> (KeyPathResolver, Int)? {
        if let variable = expression as? any PredicateVariableMarker {
            return composites[variable.variableID]
        }
        guard let keyPath = expression as? any CompositeReachable else { return nil }
        return keyPath.compositeAttribute(self)
    }

    /// This translator with `variable` bound to the composite at `slot` of `resolver`'s entity.
    func entering(_ variable: PredicateExpressions.VariableID, composite: (KeyPathResolver, Int))
        -> PredicateTranslator
    {
        var inner = self
        inner.composites[variable] = composite
        return inner
    }

    /// This translator with `variable` bound to objects of `destination`.
    func entering(_ variable: PredicateExpressions.VariableID, destination: String)
        -> PredicateTranslator?
    {
        guard let target = binding(destination), target.layout != nil else { return nil }
        var inner = self
        inner.scopes[variable] = KeyPathResolver(binding: target)
        return inner
    }

    /// A comparison of two operands; through a relationship, the comparison is made on what
    /// it reaches (and is `op` applied to `nil` when it reaches nothing).
    func compare(_ lhs: Any, _ op: FilterOperator, _ rhs: Any) -> FilterNode? {
        guard let l = operand(lhs), let r = operand(rhs) else { return nil }
        return compare(l, op, r)
    }

    func compare(_ l: Operand, _ op: FilterOperator, _ r: Operand) -> FilterNode? {
        // A whole composite compared with a composite value: evaluated on objects.
        for case .plain(.value(.composite(let c))) in [l, r] where !c.fields.isEmpty {
            return nil
        }
        switch (l, r) {
        case (.plain(let a), .plain(let b)):
            return .compare(a, op, b, caseInsensitive: false, diacriticInsensitive: false)
        case (.through(let slot, let destination, let inner), .plain(let b)):
            guard let node = compare(inner, op, .plain(b)) else { return nil }
            return .related(
                slot: slot, destination: destination, node: node,
                whenMissing: Self.missing(op, b, nullOnLeft: true))
        case (.plain(let a), .through(let slot, let destination, let inner)):
            guard let node = compare(.plain(a), op, inner) else { return nil }
            return .related(
                slot: slot, destination: destination, node: node,
                whenMissing: Self.missing(op, a, nullOnLeft: false))
        case (.count(let r, let destination), .plain(.value(.integer(let n)))):
            return .reachCount(relationship: r, destination: destination, op, Int(n))
        case (.plain(.value(.integer(let n))), .count(let r, let destination)):
            let flipped: FilterOperator? =
                switch op {
                case .equal, .notEqual: op
                case .less: .greater
                case .lessOrEqual: .greaterOrEqual
                case .greater: .less
                case .greaterOrEqual: .lessOrEqual
                default: nil
                }
            return flipped.map {
                .reachCount(relationship: r, destination: destination, $0, Int(n))
            }
        case (.through, .through), (.count, _), (_, .count):
            return nil
        }
    }

    /// The comparison's result when the relationship reaches nothing (the value is `nil`).
    private static func missing(_ op: FilterOperator, _ other: FilterOperand, nullOnLeft: Bool)
        -> Bool
    {
        let node: FilterNode =
            nullOnLeft
            ? .compare(
                .value(.null), op, other, caseInsensitive: false, diacriticInsensitive: false)
            : .compare(
                other, op, .value(.null), caseInsensitive: false, diacriticInsensitive: false)
        return
            (try? node.evaluate(
                ArrayFilterValues(values: [], entity: Entity(name: "", attributes: []))))
            ?? false
    }

    /// The to-many relationship an expression reads (`$0.courses`), or `nil`.
    func toMany(_ expression: Any) -> (relationship: Int, destination: String)? {
        (expression as? any ToManyTranslatable)?.toMany(self)
    }

    /// The hops of a chain of to-one relationships (`$0.company`, `$0.company?.parent`), or `nil`.
    func relationshipPath(_ expression: Any) -> [(slot: Int, destination: String)]? {
        (expression as? any RelationshipPathTranslatable)?.relationshipPath(self)
    }
}

protocol FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode?
}

protocol OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> PredicateTranslator.Operand?
}

protocol RelationshipPathTranslatable {
    func relationshipPath(_ t: PredicateTranslator) -> [(slot: Int, destination: String)]?
}

/// Marks a predicate's variables.
protocol PredicateVariableMarker {
    var variableID: PredicateExpressions.VariableID { get }
}

extension PredicateExpressions.Variable: PredicateVariableMarker {
    var variableID: PredicateExpressions.VariableID { key }
}

extension PredicateExpressions.KeyPath: OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> PredicateTranslator.Operand? {
        if let many = Root.Output.self as? any ToManyCollection.Type,
            keyPath == many.countKeyPath, let (r, destination) = t.toMany(root)
        {
            return .count(relationship: r, destination: destination)
        }
        guard let resolver = t.resolver(of: root) else {
            // A field of a composite (`$0.address.city`), or an array's `count`.
            if let (resolver, slot) = t.composite(root),
                let field = resolver.compositeField(keyPath, of: slot)
            {
                return .plain(.attribute(field))
            }
            if case .plain(.attribute(let i))? = t.operand(root),
                let resolver = t.attributeResolver(root),
                resolver.collectionMember(keyPath, of: i) == .count
            {
                return .plain(.count(i))
            }
            return nil
        }
        if resolver.isIdentifier(keyPath) { return .plain(.primaryKey) }
        if let index = resolver.attributeIndex(keyPath) { return .plain(.attribute(index)) }
        // A to-one relationship itself (compared with nil).
        if let (slot, _) = resolver.toOne(keyPath) { return .plain(.attribute(slot)) }
        return nil
    }
}

/// An expression that may read a to-many relationship.
protocol ToManyTranslatable {
    func toMany(_ t: PredicateTranslator) -> (relationship: Int, destination: String)?
}

extension PredicateExpressions.KeyPath: ToManyTranslatable {
    func toMany(_ t: PredicateTranslator) -> (relationship: Int, destination: String)? {
        t.resolver(of: root)?.toMany(keyPath)
    }
}

/// The array of a to-many relationship, whose `count` and `isEmpty` predicates can test.
protocol ToManyCollection {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Array: ToManyCollection where Element: PersistentModel {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension PredicateExpressions.RelationshipMembership: FilterTranslatable {
    /// `$0.courses.contains(math)`.
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard let (r, destination) = t.toMany(related) else { return nil }
        guard identifier.entityName == destination, !identifier.isTemporary else {
            return .constant(false)
        }
        return .reachesAny(
            relationship: r, destination: destination, node: .identifierIn([identifier.primaryKey]))
    }
}

extension PredicateExpressions.SequenceContainsWhere: FilterTranslatable {
    /// `$0.courses.contains { $0.title == "Math" }`.
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard let (r, destination) = t.toMany(sequence),
            let inner = t.entering(variable.key, destination: destination),
            let node = inner.node(test)
        else { return nil }
        return .reachesAny(relationship: r, destination: destination, node: node)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: FilterTranslatable {
    /// `$0.courses.allSatisfy { … }`: no reached object fails the test.
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard let (r, destination) = t.toMany(sequence),
            let inner = t.entering(variable.key, destination: destination),
            let node = inner.node(test)
        else { return nil }
        return .not(.reachesAny(relationship: r, destination: destination, node: .not(node)))
    }
}

/// A key path expression that may reach a composite attribute.
protocol CompositeReachable {
    func compositeAttribute(_ t: PredicateTranslator) -> (KeyPathResolver, Int)?
}

extension PredicateExpressions.KeyPath: CompositeReachable {
    /// `$0.address` or `$0.address.geo`: the composite attribute it reads, if it reads one.
    func compositeAttribute(_ t: PredicateTranslator) -> (KeyPathResolver, Int)? {
        let reached: (KeyPathResolver, Int)?
        if let resolver = t.resolver(of: root) {
            reached = resolver.attributeIndex(keyPath).map { (resolver, $0) }
        } else if let (resolver, slot) = t.composite(root) {
            reached = resolver.compositeField(keyPath, of: slot).map { (resolver, $0) }
        } else {
            reached = nil
        }
        guard let (resolver, i) = reached, resolver.isComposite(i) else { return nil }
        return (resolver, i)
    }
}

/// What a key path expression's root reaches: the resolver of the object it reads.
protocol AttributeRootResolvable {
    func attributeResolver(_ t: PredicateTranslator) -> KeyPathResolver?
}

extension PredicateExpressions.KeyPath: AttributeRootResolvable {
    func attributeResolver(_ t: PredicateTranslator) -> KeyPathResolver? {
        t.resolver(of: root) ?? t.composite(root)?.0
    }
}

extension PredicateTranslator {
    /// The resolver of the object whose attribute `expression` (a key path) reads.
    func attributeResolver(_ expression: Any) -> KeyPathResolver? {
        (expression as? any AttributeRootResolvable)?.attributeResolver(self)
    }
}

extension PredicateExpressions.KeyPath: FilterTranslatable where Output == Bool {
    /// `$0.active` (a Bool attribute), `$0.tags.isEmpty` or `$0.courses.isEmpty`.
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        if let many = Root.Output.self as? any ToManyCollection.Type,
            keyPath == many.isEmptyKeyPath, let (r, destination) = t.toMany(root)
        {
            return .reachCount(relationship: r, destination: destination, .equal, 0)
        }
        if let resolver = t.attributeResolver(root) ?? t.resolver(of: root),
            case .plain(.attribute(let i))? = t.operand(root),
            resolver.collectionMember(keyPath, of: i) == .isEmpty
        {
            return .compare(
                .count(i), .equal, .value(.integer(0)), caseInsensitive: false,
                diacriticInsensitive: false)
        }
        guard case .plain(let operand)? = filterOperand(t) else { return nil }
        return .compare(
            operand, .equal, .value(.bool(true)), caseInsensitive: false,
            diacriticInsensitive: false)
    }
}

extension PredicateExpressions.KeyPath: RelationshipPathTranslatable {
    func relationshipPath(_ t: PredicateTranslator) -> [(slot: Int, destination: String)]? {
        guard let resolver = t.resolver(of: root), let hop = resolver.toOne(keyPath) else {
            return nil
        }
        return [hop]
    }
}

extension PredicateExpressions.OptionalFlatMap: RelationshipPathTranslatable {
    func relationshipPath(_ t: PredicateTranslator) -> [(slot: Int, destination: String)]? {
        guard let path = t.relationshipPath(wrapped), let last = path.last,
            let inner = t.entering(variable.key, destination: last.destination),
            let next = inner.relationshipPath(transform)
        else { return nil }
        return path + next
    }
}

extension PredicateExpressions.OptionalFlatMap: OperandTranslatable {
    /// `$0.company?.name`: a value of the object the relationship reaches; `$0.address?.city`:
    /// a field of an optional composite (`null` when the composite is).
    func filterOperand(_ t: PredicateTranslator) -> PredicateTranslator.Operand? {
        if let composite = t.composite(wrapped) {
            return t.entering(variable.key, composite: composite).operand(transform)
        }
        guard let path = t.relationshipPath(wrapped), let last = path.last,
            let inner = t.entering(variable.key, destination: last.destination),
            let value = inner.operand(transform)
        else { return nil }
        return path.reversed().reduce(value) { operand, hop in
            .through(slot: hop.slot, destination: hop.destination, operand)
        }
    }
}

extension PredicateExpressions.OptionalFlatMap {
    /// `$0.company.flatMap { $0.name == "A" }` with what it is when the relationship reaches
    /// nothing.
    func relatedNode(_ t: PredicateTranslator, whenMissing: Bool) -> FilterNode? {
        guard let path = t.relationshipPath(wrapped), let last = path.last,
            let inner = t.entering(variable.key, destination: last.destination),
            let node = inner.node(transform)
        else { return nil }
        return path.reversed().reduce(node) { node, hop in
            .related(
                slot: hop.slot, destination: hop.destination, node: node, whenMissing: whenMissing)
        }
    }
}

/// A `Bool?` made by following a relationship, as `OptionalFlatMap` is.
protocol OptionalBoolTranslatable {
    func relatedNode(_ t: PredicateTranslator, whenMissing: Bool) -> FilterNode?
}

extension PredicateExpressions.OptionalFlatMap: OptionalBoolTranslatable {}

extension PredicateExpressions.NilCoalesce: FilterTranslatable {
    /// `x ?? false` over a `Bool?` from a relationship (what `if let` also becomes).
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard let optional = lhs as? any OptionalBoolTranslatable,
            let fallback = (rhs as? PredicateExpressions.Value<Bool>)?.value
        else { return nil }
        return optional.relatedNode(t, whenMissing: fallback)
    }
}

extension PredicateExpressions.Value: OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> PredicateTranslator.Operand? {
        if let id = value as? PersistentIdentifier { return .plain(.identifier(id)) }
        if let optional = value as? any OptionalProtocol, optional.isNone {
            return .plain(.value(.null))
        }
        if let id = value as? PersistentIdentifier? { return .plain(.identifier(id)) }
        if let storable = value as? any AttributeStorable {
            return .plain(.value(storable.attributeValue))
        }
        // An enum, an array, a composite…: as it is stored.
        guard let converted = StorableTypes.attributeValue(of: value) else { return nil }
        return .plain(.value(converted))
    }
}

extension PredicateExpressions.NilLiteral: OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> PredicateTranslator.Operand? {
        .plain(.value(.null))
    }
}

extension PredicateExpressions.Equal: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        if let node = t.compare(lhs, .equal, rhs) { return node }
        // `$0.company.flatMap { … } == true` / `== false`.
        if let optional = lhs as? any OptionalBoolTranslatable,
            let wanted = (rhs as? PredicateExpressions.Value<Bool?>)?.value ?? nil
        {
            return optional.relatedNode(t, whenMissing: false).map {
                wanted ? $0 : Self.negated($0)
            }
        }
        return nil
    }

    /// `related(…, node)` with `node` negated inside (what is true when the value is `false`).
    private static func negated(_ node: FilterNode) -> FilterNode {
        guard case .related(let slot, let destination, let inner, let missing) = node else {
            return .not(node)
        }
        return .related(
            slot: slot, destination: destination, node: negated(inner), whenMissing: missing)
    }
}

extension PredicateExpressions.NotEqual: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? { t.compare(lhs, .notEqual, rhs) }
}

extension PredicateExpressions.ComparisonOperator {
    /// The filter's comparison for this operator (`nil` for one this library does not know).
    var filterOperator: FilterOperator? {
        switch self {
        case .lessThan: return .less
        case .lessThanOrEqual: return .lessOrEqual
        case .greaterThan: return .greater
        case .greaterThanOrEqual: return .greaterOrEqual
        @unknown default: return nil
        }
    }
}

extension PredicateExpressions.Comparison: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        op.filterOperator.flatMap { t.compare(lhs, $0, rhs) }
    }
}

extension PredicateExpressions.Conjunction: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard let l = t.node(lhs), let r = t.node(rhs) else { return nil }
        return .and(l, r)
    }
}

extension PredicateExpressions.Disjunction: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard let l = t.node(lhs), let r = t.node(rhs) else { return nil }
        return .or(l, r)
    }
}

extension PredicateExpressions.Negation: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? { t.node(wrapped).map { .not($0) } }
}

extension PredicateExpressions.Value: FilterTranslatable where Output == Bool {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? { .constant(value) }
}

extension PredicateExpressions.SequenceContains: FilterTranslatable {
    /// `["a", "b"].contains($0.name)`: IN; `$0.tags.contains("a")`: CONTAINS.
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        if case .plain(.attribute(let i))? = t.operand(sequence),
            case .plain(.value(let v))? = t.operand(self.element)
        {
            return .compare(
                .attribute(i), .contains, .value(v), caseInsensitive: false,
                diacriticInsensitive: false)
        }
        guard let values = (sequence as? any ConstantSequence)?.elements,
            case .plain(let element)? = t.operand(self.element)
        else { return nil }
        let ids = values.compactMap { $0 as? PersistentIdentifier }
        if !values.isEmpty && ids.count == values.count {
            return .compare(
                element, .in, .identifiers(ids), caseInsensitive: false,
                diacriticInsensitive: false)
        }
        let converted = values.compactMap { StorableTypes.attributeValue(of: $0) }
        guard converted.count == values.count else { return nil }
        return .compare(
            element, .in, .list(converted), caseInsensitive: false, diacriticInsensitive: false)
    }
}

/// A constant array in a predicate (`Value<[T]>`).
protocol ConstantSequence {
    var elements: [Any] { get }
}

extension PredicateExpressions.Value: ConstantSequence where Output: Sequence {
    var elements: [Any] { value.map { $0 as Any } }
}

extension PredicateExpressions.RangeExpressionContains: FilterTranslatable {
    /// `(a...b).contains($0.salary)`: BETWEEN; `(a..<b)`: `>= a && < b`.
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard case .plain(let element)? = t.operand(self.element) else { return nil }
        if let closed = range as? any ConstantRange, let (lower, upper) = closed.bounds(t) {
            return closed.isClosed
                ? .between(element, lower: lower, upper: upper)
                : .and(
                    .compare(
                        element, .greaterOrEqual, lower, caseInsensitive: false,
                        diacriticInsensitive: false),
                    .compare(
                        element, .less, upper, caseInsensitive: false, diacriticInsensitive: false))
        }
        return nil
    }
}

/// A range of two constants in a predicate.
protocol ConstantRange {
    var isClosed: Bool { get }
    func bounds(_ t: PredicateTranslator) -> (FilterOperand, FilterOperand)?
}

extension PredicateExpressions.ClosedRange: ConstantRange {
    var isClosed: Bool { true }
    func bounds(_ t: PredicateTranslator) -> (FilterOperand, FilterOperand)? {
        guard case .plain(let l)? = t.operand(lower), case .plain(let u)? = t.operand(upper)
        else { return nil }
        return (l, u)
    }
}

extension PredicateExpressions.Range: ConstantRange {
    var isClosed: Bool { false }
    func bounds(_ t: PredicateTranslator) -> (FilterOperand, FilterOperand)? {
        guard case .plain(let l)? = t.operand(lower), case .plain(let u)? = t.operand(upper)
        else { return nil }
        return (l, u)
    }
}

extension PredicateExpressions.SequenceStartsWith: FilterTranslatable {
    /// `$0.name.starts(with: "A")`: BEGINSWITH.
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard case .plain(let element)? = t.operand(base),
            case .plain(.value(.string(let text)))? = t.operand(prefix)
        else { return nil }
        return .compare(
            element, .beginsWith, .value(.string(text)), caseInsensitive: false,
            diacriticInsensitive: false)
    }
}

// MARK: - Direct translation

/// What the direct translation of a predicate knows: the resolver of its one variable. It
/// gives the same nodes as ``PredicateTranslator`` for the shapes it covers, and `nil`
/// (the general walk then runs) for anything else, such as a key path through a relationship.
struct DirectTranslation {
    let resolver: KeyPathResolver
    let variable: PredicateExpressions.VariableID
}

/// An expression whose whole subtree translates without dynamic casts.
protocol DirectFilterTranslatable {
    func directNode(_ t: DirectTranslation) -> FilterNode?
}

/// An operand whose whole subtree translates without dynamic casts.
protocol DirectOperandTranslatable {
    func directOperand(_ t: DirectTranslation) -> FilterOperand?
}

extension DirectTranslation {
    @inline(__always)
    func compare(
        _ l: some DirectOperandTranslatable, _ op: FilterOperator,
        _ r: some DirectOperandTranslatable
    ) -> FilterNode? {
        guard let a = l.directOperand(self), let b = r.directOperand(self) else { return nil }
        return .compare(a, op, b, caseInsensitive: false, diacriticInsensitive: false)
    }
}

extension PredicateExpressions.KeyPath: DirectOperandTranslatable
where Root: PredicateVariableMarker {
    /// As ``PredicateExpressions/KeyPath/filterOperand(_:)`` for the predicate's own variable.
    func directOperand(_ t: DirectTranslation) -> FilterOperand? {
        guard root.variableID == t.variable else { return nil }
        return t.resolver.operand(keyPath)
    }
}

extension PredicateExpressions.Value: DirectOperandTranslatable where Output: AttributeStorable {
    /// A stored type's constant (`nil` of an optional one is `null`), as
    /// ``PredicateExpressions/Value/filterOperand(_:)`` gives it.
    func directOperand(_ t: DirectTranslation) -> FilterOperand? { .value(value.attributeValue) }
}

extension PredicateExpressions.NilLiteral: DirectOperandTranslatable {
    func directOperand(_ t: DirectTranslation) -> FilterOperand? { .value(.null) }
}

extension PredicateExpressions.Equal: DirectFilterTranslatable
where LHS: DirectOperandTranslatable, RHS: DirectOperandTranslatable {
    func directNode(_ t: DirectTranslation) -> FilterNode? { t.compare(lhs, .equal, rhs) }
}

extension PredicateExpressions.NotEqual: DirectFilterTranslatable
where LHS: DirectOperandTranslatable, RHS: DirectOperandTranslatable {
    func directNode(_ t: DirectTranslation) -> FilterNode? { t.compare(lhs, .notEqual, rhs) }
}

extension PredicateExpressions.Comparison: DirectFilterTranslatable
where LHS: DirectOperandTranslatable, RHS: DirectOperandTranslatable {
    func directNode(_ t: DirectTranslation) -> FilterNode? {
        op.filterOperator.flatMap { t.compare(lhs, $0, rhs) }
    }
}

extension PredicateExpressions.Conjunction: DirectFilterTranslatable
where LHS: DirectFilterTranslatable, RHS: DirectFilterTranslatable {
    func directNode(_ t: DirectTranslation) -> FilterNode? {
        guard let l = lhs.directNode(t), let r = rhs.directNode(t) else { return nil }
        return .and(l, r)
    }
}

extension PredicateExpressions.Disjunction: DirectFilterTranslatable
where LHS: DirectFilterTranslatable, RHS: DirectFilterTranslatable {
    func directNode(_ t: DirectTranslation) -> FilterNode? {
        guard let l = lhs.directNode(t), let r = rhs.directNode(t) else { return nil }
        return .or(l, r)
    }
}

extension PredicateExpressions.Negation: DirectFilterTranslatable
where Wrapped: DirectFilterTranslatable {
    func directNode(_ t: DirectTranslation) -> FilterNode? {
        wrapped.directNode(t).map { .not($0) }
    }
}

extension PredicateExpressions.Value: DirectFilterTranslatable where Output == Bool {
    func directNode(_ t: DirectTranslation) -> FilterNode? { .constant(value) }
}
