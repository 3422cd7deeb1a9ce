import Foundation

/// What a context learns once while planning fetches and reuses for every later one, so a
/// query repeated with new constants (a lookup in a loop) does not pay again for what depends
/// only on types: for each entity binding, a ``KeyPathResolver`` that remembers the key paths
/// it met by identity; for each predicate expression type, whether it has a direct
/// translation (a conformance check that costs more than the translation itself); and a
/// buffer a lookup encodes its index key into.
///
/// Nothing here depends on data, constants or pending changes: the translation runs again
/// on every fetch, with the predicate's own values, and planning and execution are untouched.
/// A binding is replaced when the schema changes, and the resolver is keyed by the binding's
/// identity (and keeps it alive), so no resolver outlives the schema it read.
///
/// Not thread-safe: one per context, used on the context's thread.
final class FetchPlanCache {
    // Unchecked exclusivity: used by one context's fetches, never overlapping.
    @exclusivity(unchecked) private var resolvers:
        [(binding: EntityBinding, resolver: KeyPathResolver)] = []
    @exclusivity(unchecked) private var directTypes:
        [ObjectIdentifier: (any DirectFilterTranslatable.Type)?] = [:]
    /// Room for the index key of a lookup, reused so a lookup in a loop allocates none.
    @exclusivity(unchecked) var keyBytes: [UInt8] = []

    /// The resolver of `binding`, made on first use.
    func resolver(for binding: EntityBinding) -> KeyPathResolver {
        for known in resolvers where known.binding === binding { return known.resolver }
        let resolver = KeyPathResolver(binding: binding)
        // A context meets a few entities; a long-lived one that meets many starts again.
        if resolvers.count >= 16 { resolvers.removeAll() }
        resolvers.append((binding, resolver))
        return resolver
    }

    /// The direct translation of expressions of `expression`'s type, if it has one.
    func directType(of expression: any StandardPredicateExpression<Bool>)
        -> (any DirectFilterTranslatable.Type)?
    {
        let type = Swift.type(of: expression)
        let key = ObjectIdentifier(type)
        if let known = directTypes[key] { return known }
        let found = type as? any DirectFilterTranslatable.Type
        // Expression types are a program's predicates: few, but bound the map all the same.
        if directTypes.count >= 256 { directTypes.removeAll() }
        directTypes[key] = .some(found)
        return found
    }
}

extension DirectFilterTranslatable {
    /// `expression` translated, when it is of this type (`nil` otherwise): the direct
    /// translation without a dynamic cast, for a caller that knows the type already.
    static func directNode<E>(of expression: E, _ t: DirectTranslation) -> FilterNode? {
        guard E.self == Self.self else { return nil }
        return withUnsafePointer(to: expression) {
            UnsafeRawPointer($0).assumingMemoryBound(to: Self.self).pointee.directNode(t)
        }
    }
}
