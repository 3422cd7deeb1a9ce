import Foundation

// `#Predicate<Employee> { $0.company == acme }`: a to-one relationship compared with a model.
// Foundation's `#Predicate` can only capture values that are `Codable` and `Sendable`, which
// models are not; these overloads, which the macro's expansion picks for a captured model,
// capture the model's identifier instead.

extension PredicateExpressions {
    /// A model captured by `#Predicate`: it stands for the identifier the model has when the
    /// predicate is made (a model not yet inserted has a temporary identifier, which no stored
    /// object has, so it matches nothing).
    public struct ModelValue<Model: PersistentModel>: PredicateExpression {
        /// What the model stands for.
        public let identifier: PersistentIdentifier

        /// The captured identifier.
        public func evaluate(_ bindings: PredicateBindings) throws -> PersistentIdentifier {
            identifier
        }
    }

    /// Whether a to-one relationship reaches a given object (`==`), or not (`!=`): compared by
    /// identifier, so an object of any context with the same ``PersistentIdentifier`` matches.
    /// A relationship that reaches nothing equals no object.
    public struct RelationshipIdentity<Related: PredicateExpression, Model: PersistentModel>:
        PredicateExpression
    where Related.Output == Model? {
        /// The relationship (`$0.company`, `$0.company?.parent`).
        public let related: Related
        /// The object's identifier.
        public let identifier: PersistentIdentifier
        /// `true` for `==`, `false` for `!=`.
        public let isEqual: Bool

        /// Whether the relationship reaches the object (`==`) or not (`!=`).
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            (try related.evaluate(bindings)?.persistentModelID == identifier) == isEqual
        }
    }

    /// Captures a model in `#Predicate` by its identifier (see ``ModelValue``).
    public static func build_Arg<Model: PersistentModel>(_ model: Model) -> ModelValue<Model> {
        ModelValue(identifier: model.persistentModelID)
    }

    /// `$0.company == acme`.
    public static func build_Equal<Related: PredicateExpression, Model: PersistentModel>(
        lhs: Related, rhs: ModelValue<Model>
    ) -> RelationshipIdentity<Related, Model> {
        RelationshipIdentity(related: lhs, identifier: rhs.identifier, isEqual: true)
    }

    /// `acme == $0.company`.
    public static func build_Equal<Related: PredicateExpression, Model: PersistentModel>(
        lhs: ModelValue<Model>, rhs: Related
    ) -> RelationshipIdentity<Related, Model> {
        RelationshipIdentity(related: rhs, identifier: lhs.identifier, isEqual: true)
    }

    /// `$0.company != acme`.
    public static func build_NotEqual<Related: PredicateExpression, Model: PersistentModel>(
        lhs: Related, rhs: ModelValue<Model>
    ) -> RelationshipIdentity<Related, Model> {
        RelationshipIdentity(related: lhs, identifier: rhs.identifier, isEqual: false)
    }

    /// `acme != $0.company`.
    public static func build_NotEqual<Related: PredicateExpression, Model: PersistentModel>(
        lhs: ModelValue<Model>, rhs: Related
    ) -> RelationshipIdentity<Related, Model> {
        RelationshipIdentity(related: rhs, identifier: lhs.identifier, isEqual: false)
    }
}

extension PredicateExpressions.ModelValue: Sendable, Codable, StandardPredicateExpression {}

extension PredicateExpressions.RelationshipIdentity: Sendable where Related: Sendable {}
extension PredicateExpressions.RelationshipIdentity: Codable where Related: Codable {}
extension PredicateExpressions.RelationshipIdentity: StandardPredicateExpression
where Related: StandardPredicateExpression {}

extension PredicateExpressions.RelationshipIdentity: FilterTranslatable {
    /// The relationship's stored key compared with the object's (what the planner and the
    /// relationship's index answer).
    func filterNode(_ t: PredicateTranslator) -> FilterNode? {
        guard let relationship = t.operand(related) else { return nil }
        return t.compare(
            relationship, isEqual ? .equal : .notEqual, .plain(.identifier(identifier)))
    }
}

extension PredicateExpressions {
    /// Whether a to-many relationship reaches a given object (`$0.courses.contains(math)`),
    /// compared by identifier as ``RelationshipIdentity`` is.
    public struct RelationshipMembership<Related: PredicateExpression, Model: PersistentModel>:
        PredicateExpression
    where Related.Output: Sequence, Related.Output.Element == Model {
        /// The to-many relationship (`$0.courses`).
        public let related: Related
        /// The object's identifier.
        public let identifier: PersistentIdentifier

        /// Whether the relationship reaches the object.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try related.evaluate(bindings).contains { $0.persistentModelID == identifier }
        }
    }

    /// `$0.courses.contains(math)`.
    public static func build_contains<Related: PredicateExpression, Model: PersistentModel>(
        _ related: Related, _ element: ModelValue<Model>
    ) -> RelationshipMembership<Related, Model>
    where Related.Output: Sequence, Related.Output.Element == Model {
        RelationshipMembership(related: related, identifier: element.identifier)
    }
}

extension PredicateExpressions.RelationshipMembership: Sendable where Related: Sendable {}
extension PredicateExpressions.RelationshipMembership: Codable where Related: Codable {}
extension PredicateExpressions.RelationshipMembership: StandardPredicateExpression
where Related: StandardPredicateExpression {}
