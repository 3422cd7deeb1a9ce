import Foundation

/// Turns a Foundation `#Predicate` into a ``FilterNode`` when every part of it is one we can
/// evaluate on stored values directly (attribute key paths, constants, `==`, `!=`, `<`, `<=`,
/// `>`, `>=`, `&&`, `||`, `!`, `nil`). Anything else returns `nil`, and the fetch evaluates the
/// predicate on a scratch object instead — same results, more time.
struct PredicateTranslator {
    let resolver: KeyPathResolver

    func translate<Model>(_ predicate: Predicate<Model>) -> FilterNode? {
        (predicate.expression as? any FilterTranslatable)?.filterNode(self)
    }

    func node(_ expression: Any) -> FilterNode? {
        (expression as? any FilterTranslatable)?.filterNode(self)
    }

    func operand(_ expression: Any) -> FilterOperand? {
        (expression as? any OperandTranslatable)?.filterOperand(self)
    }

    func compare(_ lhs: Any, _ op: FilterOperator, _ rhs: Any) -> FilterNode? {
        guard let l = operand(lhs), let r = operand(rhs) else { return nil }
        return .compare(l, op, r, caseInsensitive: false, diacriticInsensitive: false)
    }
}

protocol FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode?
}

protocol OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> FilterOperand?
}

/// Marks the predicate's input variable.
protocol PredicateVariableMarker {}

extension PredicateExpressions.Variable: PredicateVariableMarker {}

extension PredicateExpressions.KeyPath: OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> FilterOperand? {
        guard root is any PredicateVariableMarker, let index = t.resolver.attributeIndex(keyPath)
        else { return nil }
        return .attribute(index)
    }
}

extension PredicateExpressions.Value: OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> FilterOperand? {
        guard let storable = value as? any AttributeStorable else { return nil }
        return .value(storable.attributeValue)
    }
}

extension PredicateExpressions.NilLiteral: OperandTranslatable {
    func filterOperand(_ t: PredicateTranslator) -> FilterOperand? { .value(.null) }
}

extension PredicateExpressions.Equal: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? { t.compare(lhs, .equal, rhs) }
}

extension PredicateExpressions.NotEqual: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? { t.compare(lhs, .notEqual, rhs) }
}

extension PredicateExpressions.Comparison: FilterTranslatable {
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        switch op {
        case .lessThan: return t.compare(lhs, .less, rhs)
        case .lessThanOrEqual: return t.compare(lhs, .lessOrEqual, rhs)
        case .greaterThan: return t.compare(lhs, .greater, rhs)
        case .greaterThanOrEqual: return t.compare(lhs, .greaterOrEqual, rhs)
        @unknown default: return nil
        }
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
