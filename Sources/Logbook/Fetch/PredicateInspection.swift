import Foundation

/// Tells whether a `#Predicate` that ``PredicateTranslator`` could not translate can be
/// evaluated on a scratch object (an unregistered object holding a record's values), by
/// walking its expression tree for the key paths it applies.
///
/// A scratch object answers attribute reads, and whatever is computed from them, exactly; it
/// does not answer relationships (it has no context, so every relationship reads as empty),
/// `persistentModelID`, `modelContext` or `isDeleted`. A predicate that touches any of those
/// is evaluated on the context's own objects instead, where they are answered as they are
/// for the app.
enum PredicateInspection {
    /// Whether every key path the predicate applies to its input reads attributes only, and
    /// it follows nothing to another model object.
    static func readsOnlyAttributes<Model: PersistentModel>(
        _ predicate: Predicate<Model>, resolver: KeyPathResolver
    ) -> Bool {
        var safe = true
        visit(predicate.expression, input: predicate.variable.key, resolver, &safe)
        return safe
    }

    private static func visit(
        _ expression: Any, input: PredicateExpressions.VariableID, _ resolver: KeyPathResolver,
        _ safe: inout Bool
    ) {
        guard safe else { return }
        if let keyPath = expression as? any KeyPathExpressionInspectable {
            if keyPath.rootIsModelVariable {
                guard keyPath.rootVariable == input,
                    resolver.reads(keyPath.inspectedKeyPath) == .attributes
                else {
                    safe = false
                    return
                }
            }
        }
        for child in Mirror(reflecting: expression).children
        where child.value is any PredicateExpression {
            visit(child.value, input: input, resolver, &safe)
        }
    }
}

/// What the inspection needs of a `PredicateExpressions.KeyPath`.
protocol KeyPathExpressionInspectable {
    var inspectedKeyPath: AnyKeyPath { get }
    /// The variable the key path is applied to, if it is applied to one.
    var rootVariable: PredicateExpressions.VariableID? { get }
    /// Whether it is applied to a variable holding model objects.
    var rootIsModelVariable: Bool { get }
}

extension PredicateExpressions.KeyPath: KeyPathExpressionInspectable {
    var inspectedKeyPath: AnyKeyPath { keyPath }
    var rootVariable: PredicateExpressions.VariableID? {
        (root as? any PredicateVariableMarker)?.variableID
    }
    var rootIsModelVariable: Bool { Root.Output.self is any ModelObject.Type }
}
