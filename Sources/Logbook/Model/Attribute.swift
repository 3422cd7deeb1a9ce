/// Options of an ``Attribute``.
public enum AttributeOption: Sendable, Hashable {
    /// Record that fetches may index this attribute.
    case indexed
    /// No two objects of the entity may share a value (checked at save).
    case unique
}

/// A stored property of a ``PersistentModel`` class:
/// `@Attribute var salary: Int64 = 0`, `@Attribute(.unique) var email = ""`.
///
/// Reading it is a plain read. Assigning it, once the object is in a context, marks the object
/// changed there (and keeps the saved values for ``ModelContext/rollback()``); no other call is
/// needed. Only usable in classes conforming to ``PersistentModel``.
@propertyWrapper
public struct Attribute<Value: AttributeStorable> {
    /// The current value.
    var value: Value
    /// The object's state in its context; `nil` until inserted or fetched.
    var owner: ModelBacking?
    /// The attribute's position in its entity; set with `owner`.
    var slot: Int = -1
    /// Options given at the declaration.
    let options: Set<AttributeOption>

    /// An attribute starting at `wrappedValue`, with `options`.
    public init(wrappedValue: Value, _ options: AttributeOption...) {
        self.value = wrappedValue
        self.options = Set(options)
    }

    /// Reads and writes the value through the enclosing object, tracking changes.
    public static subscript<Model: PersistentModel>(
        _enclosingInstance object: Model,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Model, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Model, Attribute<Value>>
    ) -> Value {
        get {
            if let owner = object[keyPath: storageKeyPath].owner, owner.isProbe {
                owner.probedSlot = object[keyPath: storageKeyPath].slot
                owner.probedKeyPath = wrappedKeyPath
            }
            return object[keyPath: storageKeyPath].value
        }
        set {
            if let owner = object[keyPath: storageKeyPath].owner { owner.willChange() }
            object[keyPath: storageKeyPath].value = newValue
        }
    }

    /// The value. Inside a ``PersistentModel`` class Swift uses the enclosing-instance subscript
    /// above instead, so changes are tracked; elsewhere this is a plain stored value.
    public var wrappedValue: Value {
        get { value }
        set { value = newValue }
    }
}

/// Type-erased access to ``Attribute`` fields, for reflection.
protocol AttributeField {
    static func makeAccessor(name: String, offset: Int) -> any FieldAccessor
}

extension Attribute: AttributeField {
    static func makeAccessor(name: String, offset: Int) -> any FieldAccessor {
        TypedFieldAccessor<Value>(name: name, offset: offset)
    }
}
