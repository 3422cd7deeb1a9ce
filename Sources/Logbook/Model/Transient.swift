/// A stored property of a ``PersistentModel`` class that is not stored in the store:
/// `@Transient var isSelected = false`.
///
/// Every other stored property of a model class must be an ``Attribute`` or a
/// ``Relationship``; a plain `var` makes ``ModelContainer`` refuse the class, so that no value
/// is silently left out of the store. A transient value starts at its initial value in every
/// object a context builds (fetched objects included) and is never tracked or saved.
@propertyWrapper
public struct Transient<Value> {
    /// The value.
    public var wrappedValue: Value

    /// A transient property starting at `wrappedValue`.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}

extension Transient: Sendable where Value: Sendable {}

/// Marks ``Transient`` fields for reflection.
protocol TransientField {}

extension Transient: TransientField {}
