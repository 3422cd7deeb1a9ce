/// Options of an ``Attribute``.
public enum AttributeOption: Sendable, Hashable {
    /// Record that fetches may index this attribute.
    case indexed
    /// No two objects of the entity may share a value (checked at save).
    case unique
    /// Keep a full-text index of the attribute (a `String`): ``ModelContext/search(_:)-(SearchDescriptor<Model>)``
    /// finds objects by the words it holds, ranked by relevance.
    case searchable
}

/// A stored property of a ``PersistentModel`` class:
/// `@Attribute var salary: Int64 = 0`, `@Attribute(.unique) var email = ""`.
///
/// It holds the built-in types (``AttributeStorable``), enums with a storable raw value, arrays
/// and sets of storable values, `Codable` structs (stored as structured fields that predicates,
/// sorts and indexes reach: `address.city`), and optionals of all of these. A type that cannot
/// be stored is refused when the container is created
/// (``LogbookError/unstorableAttribute(entity:attribute:type:reason:)``).
///
/// Reading it is a plain read. Assigning it, once the object is in a context, marks the object
/// changed there (and keeps the saved value for ``ModelContext/rollback()``); no other call is
/// needed. Only usable in classes conforming to ``PersistentModel``.
@propertyWrapper
public struct Attribute<Value> {
    /// The current value.
    @usableFromInline var value: Value
    /// The context's object table; set only in the object's first field (its anchor), so an
    /// object holds one reference to its state however many attributes it has.
    @usableFromInline var owner: ObjectTable?
    /// The object's entry in that table; -1 until registered.
    @usableFromInline var entry: Int32 = -1
    /// Position, flags and the anchor's offset (``FieldInfo``).
    @usableFromInline var info: UInt32

    /// An attribute starting at `wrappedValue`.
    @inlinable
    public init(wrappedValue: Value) {
        self.value = wrappedValue
        self.info = 0
    }

    /// An attribute starting at `wrappedValue`, with one option (no array is made: model
    /// objects are built for every fetched record).
    @inlinable
    public init(wrappedValue: Value, _ option: AttributeOption) {
        self.value = wrappedValue
        self.info = FieldInfo.bits(of: option)
    }

    /// An attribute starting at `wrappedValue`, with `options`.
    public init(wrappedValue: Value, _ options: AttributeOption...) {
        self.value = wrappedValue
        self.info = options.reduce(0) { $0 | FieldInfo.bits(of: $1) }
    }

    /// An attribute starting at `wrappedValue`, with `options`, that earlier versions of the
    /// model called `originalName`: SwiftData's `@Attribute(originalName:)`. Opening a store of
    /// such a version renames it, keeping its values, without rewriting a record.
    public init(wrappedValue: Value, _ options: AttributeOption..., originalName: String) {
        self.value = wrappedValue
        self.info =
            options.reduce(0) { $0 | FieldInfo.bits(of: $1) }
            | OriginalNames.slotBits(of: originalName)
    }

    /// Reads and writes the value through the enclosing object, tracking changes.
    // One access to the wrapper each way, so the storage key path folds to plain field accesses
    // once inlined. The wrapped key path is never used, so it is never made: making it cost
    // about 60 instructions and a release at every read.
    @inlinable
    public static subscript<Model: PersistentModel>(
        _enclosingInstance object: Model,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Model, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Model, Attribute<Value>>
    ) -> Value {
        @inline(__always) get {
            let info = object[keyPath: storageKeyPath].info
            if _slowPath(info & FieldInfo.slowReadBits != 0) {
                // A probe's read reports itself; a value not fetched yet is faulted in first.
                FieldInfo.slowRead(object, info: info, entry: object[keyPath: storageKeyPath].entry)
            }
            if info & FieldInfo.adopted != 0 {
                FieldInfo.observe(object, info: info, entry: object[keyPath: storageKeyPath].entry)
            }
            return object[keyPath: storageKeyPath].value
        }
        @inline(__always) set {
            // Tells the object's table (which keeps the saved value at the first change), then
            // stores. No call runs inside an access to the field, so with whole-module
            // optimization the app's reads of it need no dynamic exclusivity check.
            let info = object[keyPath: storageKeyPath].info
            if info & FieldInfo.adopted != 0 {
                FieldInfo.willChange(
                    object, info: info, entry: object[keyPath: storageKeyPath].entry)
            }
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

extension Attribute: CustomReflectable {
    /// The value alone: the bookkeeping fields are the context's, not the app's.
    /// A value a partial fetch left out shows as not fetched (reflection faults nothing in).
    public var customMirror: Mirror {
        info & FieldInfo.unfetched != 0
            ? Mirror(self, children: ["value": "<not fetched>"])
            : Mirror(self, children: ["value": value])
    }
}

/// Type-erased access to ``Attribute`` fields, for reflection.
protocol AttributeField {
    /// The stored fields of the property `name` at `offset` of `prototype` (an instance made
    /// with `init()`): one, or a composite's marker and fields; `nil` if the wrapper's layout
    /// cannot be determined.
    /// - Throws: ``StorableTypes/Refusal`` if the property's type cannot be stored.
    static func makeAccessors(name: String, offset: Int, prototype: AnyObject) throws
        -> [any FieldAccessor]?
}

/// An ``Attribute`` of an ``AttributeStorable`` type: read and written without conversions.
protocol TypedAttributeField {
    static func makeTypedAccessor(name: String, offset: Int) throws -> (any FieldAccessor)?
}

extension Attribute: TypedAttributeField where Value: AttributeStorable {
    static func makeTypedAccessor(name: String, offset: Int) throws -> (any FieldAccessor)? {
        if let optional = Value.self as? any OptionalMarker.Type,
            optional.wrappedType is any OptionalMarker.Type
        {
            throw StorableTypes.Refusal(reason: "an optional of an optional cannot be stored")
        }
        switch Value.attributeType {
        case .array, .set, .composite:
            throw StorableTypes.Refusal(
                reason:
                    "it conforms to AttributeStorable with the type \(Value.attributeType), which needs members; remove the conformance and Logbook stores it"
            )
        default: return TypedFieldAccessor<Value>(name: name, offset: offset)
        }
    }
}

extension Attribute: AttributeField {
    static func makeAccessors(name: String, offset: Int, prototype: AnyObject) throws
        -> [any FieldAccessor]?
    {
        if let typed = Self.self as? any TypedAttributeField.Type {
            return try typed.makeTypedAccessor(name: name, offset: offset).map { [$0] }
        }
        guard let valueOffset = MemoryLayout<Self>.offset(of: \Self.value) else { return nil }
        let template = unsafeBitCast(prototype, to: UnsafeRawPointer.self)
            .advanced(by: offset + valueOffset).assumingMemoryBound(to: Value.self).pointee
        let storable = try StorableTypes.shape(of: Value.self, template: template)
        guard storable.fieldLayout != nil else {
            return DynamicFieldAccessor<Value>(name: name, offset: offset, storable: storable)
                .map { [$0] }
        }
        guard
            let marker = CompositeMarkerAccessor<Value>(
                name: name, offset: offset, storable: storable)
        else { return nil }
        var accessors: [any FieldAccessor] = [marker]
        let types = storable.unwrapped.flatSwiftTypes(optional: storable.isOptional)
        for (i, (attribute, type)) in zip(marker.fieldAttributes, types).enumerated() {
            accessors.append(
                CompositeFieldAccessor(
                    marker: marker, index: i, attribute: attribute,
                    fieldType: StorableTypes.known(type), valueType: type))
        }
        return accessors
    }
}
