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
    @usableFromInline var value: Value
    /// The object's state in its context; `nil` until inserted or fetched.
    @usableFromInline var owner: ModelBacking?
    /// The attribute's position in its entity; set with `owner`.
    @usableFromInline var slot: Int32 = -1
    /// Options given at the declaration: bit 0 indexed, bit 1 unique.
    @usableFromInline let optionBits: UInt8

    /// An attribute starting at `wrappedValue`.
    @inlinable
    public init(wrappedValue: Value) {
        self.value = wrappedValue
        self.optionBits = 0
    }

    /// An attribute starting at `wrappedValue`, with one option (no array is made: model
    /// objects are built for every fetched record).
    @inlinable
    public init(wrappedValue: Value, _ option: AttributeOption) {
        self.value = wrappedValue
        self.optionBits = option == .indexed ? 1 : 2
    }

    /// An attribute starting at `wrappedValue`, with `options`.
    public init(wrappedValue: Value, _ options: AttributeOption...) {
        self.value = wrappedValue
        var bits: UInt8 = 0
        for option in options { bits |= option == .indexed ? 1 : 2 }
        self.optionBits = bits
    }

    /// Tells the owner (which keeps the saved values at the first change), then stores.
    @inlinable
    mutating func assign(_ newValue: Value) {
        if let owner { owner.willChange() }
        value = newValue
    }

    /// Options given at the declaration.
    var options: Set<AttributeOption> {
        var result = Set<AttributeOption>()
        if optionBits & 1 != 0 { result.insert(.indexed) }
        if optionBits & 2 != 0 { result.insert(.unique) }
        return result
    }

    /// Reads and writes the value through the enclosing object, tracking changes.
    @inlinable
    public static subscript<Model: PersistentModel>(
        _enclosingInstance object: Model,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Model, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Model, Attribute<Value>>
    ) -> Value {
        get {
            let storage = object[keyPath: storageKeyPath]
            if let owner = storage.owner, owner.isProbe {
                owner.noteProbe(slot: Int(storage.slot), keyPath: wrappedKeyPath)
            }
            return storage.value
        }
        set {
            object[keyPath: storageKeyPath].assign(newValue)
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
    static func makeAccessor(name: String, offset: Int) -> (any FieldAccessor)?
}

extension Attribute: AttributeField {
    static func makeAccessor(name: String, offset: Int) -> (any FieldAccessor)? {
        TypedFieldAccessor<Value>(name: name, offset: offset)
    }
}
