/// The property of a composite attribute (`@Attribute var address = Address()`, a `Codable`
/// struct stored as structured fields): reads and writes the whole value as the flat list of
/// its fields' values (``StorableType/flatten(_:)``), or one field. Its
/// ``CompositeMarkerAccessor`` and ``CompositeFieldAccessor``s are the stored fields it makes.
protocol CompositeProperty: AnyObject, Sendable {
    var storable: StorableType { get }
    /// Whether each field is read and written in place (``DirectField``), not through `Codable`.
    var isDirect: Bool { get }
    /// Whether the composite is present (not `nil`).
    func isPresent(_ object: AnyObject) -> Bool
    /// The values of its fields (all `null` when absent); `nil` when the value does not convert.
    func fields(_ object: AnyObject) -> [AttributeValue]?
    /// Sets the composite: `nil` when `fields` is `nil` (false for a required one), else the
    /// value those fields make (false if they make none).
    func set(_ object: AnyObject, fields: [AttributeValue]?) -> Bool
    /// Field `index`'s value (`null` when the composite is absent).
    func field(_ object: AnyObject, _ index: Int) -> AttributeValue
    /// Writes field `index` of a present composite (one that is absent is first made from its
    /// starting fields, unless `value` is `null`); false if `value` does not fit.
    func setField(_ object: AnyObject, _ index: Int, _ value: AttributeValue) -> Bool
    /// Makes an absent composite present with its starting fields.
    func makePresent(_ object: AnyObject) -> Bool
    /// For field `index` of a composite that is never absent, held in place as one of the
    /// common kinds (a `String`, `Int64`, `Int`, `Double` or `Bool` that is not optional): its
    /// kind and its offset from the composite's start, so that ``EntityBinding`` reads and
    /// writes it as it does an attribute of that kind; `nil` otherwise.
    func inPlace(_ index: Int) -> (kind: FieldKind, offset: Int)?
    /// Reads field `index`'s (non-null) value from a record into the composite (made present
    /// first if it is absent).
    func decodeField(_ object: AnyObject, _ index: Int, _ r: inout ByteReader, shape: ValueShape)
        throws
}

/// A composite property of type `Value` (the struct, or an optional of it).
final class CompositeProperty_<Value>: CompositeProperty, @unchecked Sendable {  // immutable
    let storable: StorableType
    let valueOffset: Int
    let startingFields: [AttributeValue]
    /// The value a field written into an absent composite starts from, as `Value`.
    private let starting: Value?
    /// Each field in place, when proved to match the `Codable` path.
    private let direct: [DirectField]?
    private let optional: (any OptionalMarker.Type)?
    /// `optional == nil`, kept as a plain flag: comparing the optional metatype with `nil`
    /// looks up generic metadata, and a fetch asks once per field of every object.
    private let neverAbsent: Bool

    init(storable: StorableType, valueOffset: Int) {
        self.storable = storable
        self.valueOffset = valueOffset
        let inner = storable.unwrapped
        startingFields = inner.flatten(
            inner.placeholder.flatMap { inner.attributeValue(of: $0) } ?? .null)
        optional = storable.isOptional ? Value.self as? any OptionalMarker.Type : nil
        neverAbsent = optional == nil
        var start = 0
        let startingTree = inner.unflatten(startingFields, from: &start)
        let starting = storable.value(from: startingTree) as? Value
        self.starting = starting
        direct = starting.flatMap { Self.provedDirect(storable, starting: $0) }
    }

    var isDirect: Bool { direct != nil }

    func inPlace(_ index: Int) -> (kind: FieldKind, offset: Int)? {
        guard optional == nil, let direct, index < direct.count, !direct[index].optional else {
            return nil
        }
        let kind: FieldKind
        switch direct[index].scalar {
        case .string: kind = .string
        case .int64: kind = .int64
        case .int: kind = .int
        case .double: kind = .double
        case .bool: kind = .bool
        default: return nil
        }
        return (kind, direct[index].offset)
    }

    /// The composite's fields in place, if writing a value's fields there and reading them back
    /// give what `init(from:)` and `encode(to:)` give, for two values whose fields all differ
    /// and for the starting one.
    private static func provedDirect(_ storable: StorableType, starting: Value) -> [DirectField]? {
        let inner = storable.unwrapped
        guard let fields = DirectField.fields(of: inner), let (a, b) = inner.sentinels else {
            return nil
        }
        for tree in [a, b] {
            let flat = inner.flatten(tree)
            guard flat.count == fields.count, let decoded = storable.value(from: tree) as? Value
            else { return nil }
            var built = starting
            let wrote = withUnsafeMutableBytes(of: &built) { raw in
                zip(fields, flat).allSatisfy { $0.write(raw.baseAddress!, $1) }
            }
            var copy = decoded
            let read = withUnsafeBytes(of: &copy) { raw in fields.map { $0.read(raw.baseAddress!) }
            }
            guard wrote, read == flat,
                let encoded = storable.attributeValue(of: built),
                encoded == storable.attributeValue(of: decoded)
            else { return nil }
        }
        return fields
    }

    @inline(__always)
    private func value(_ object: AnyObject) -> UnsafeMutablePointer<Value> {
        unsafeBitCast(object, to: UnsafeMutableRawPointer.self).advanced(by: valueOffset)
            .assumingMemoryBound(to: Value.self)
    }

    func isPresent(_ object: AnyObject) -> Bool {
        guard let optional else { return true }
        return !optional.isNil(UnsafeRawPointer(value(object)))
    }

    func fields(_ object: AnyObject) -> [AttributeValue]? {
        if let direct {
            guard isPresent(object) else { return Array(repeating: .null, count: direct.count) }
            let base = UnsafeRawPointer(value(object))
            return direct.map { $0.read(base) }
        }
        guard let tree = storable.attributeValue(of: value(object).pointee) else { return nil }
        return storable.unwrapped.flatten(tree)
    }

    func set(_ object: AnyObject, fields: [AttributeValue]?) -> Bool {
        guard let fields else {
            guard storable.isOptional, let none = storable.value(from: .null) as? Value else {
                return false
            }
            value(object).pointee = none
            return true
        }
        if let direct, fields.count == direct.count {
            // Checked whole first, so that a value that does not fit changes nothing.
            guard let base = isPresent(object) ? value(object).pointee : starting else {
                return false
            }
            var candidate = base
            let wrote = withUnsafeMutableBytes(of: &candidate) { raw in
                zip(direct, fields).allSatisfy { $0.write(raw.baseAddress!, $1) }
            }
            guard wrote else { return false }
            value(object).pointee = candidate
            return true
        }
        var start = 0
        let tree = storable.unwrapped.unflatten(fields, from: &start)
        guard let made = storable.value(from: tree) as? Value else { return false }
        value(object).pointee = made
        return true
    }

    func field(_ object: AnyObject, _ index: Int) -> AttributeValue {
        if let direct, index < direct.count {
            guard isPresent(object) else { return .null }
            return direct[index].read(UnsafeRawPointer(value(object)))
        }
        guard let fields = fields(object), index < fields.count else { return .null }
        return fields[index]
    }

    func setField(_ object: AnyObject, _ index: Int, _ newValue: AttributeValue) -> Bool {
        if !isPresent(object) {
            if newValue.isNull { return true }
            guard makePresent(object) else { return false }
        }
        if let direct, index < direct.count {
            return direct[index].write(UnsafeMutableRawPointer(value(object)), newValue)
        }
        guard var fields = fields(object), index < fields.count else { return false }
        fields[index] = newValue
        return set(object, fields: fields)
    }

    func decodeField(_ object: AnyObject, _ index: Int, _ r: inout ByteReader, shape: ValueShape)
        throws
    {
        if let direct, index < direct.count {
            guard makePresent(object) else { throw ByteReader.Truncated() }
            try direct[index].decode(
                &r, into: unsafeBitCast(object, to: UnsafeMutableRawPointer.self) + valueOffset)
            return
        }
        guard setField(object, index, try r.value(shape)) else { throw ByteReader.Truncated() }
    }

    func makePresent(_ object: AnyObject) -> Bool {
        // Not through `isPresent`: the typed pointer it makes costs a metadata lookup a call.
        if neverAbsent { return true }
        return makeAbsentPresent(object)
    }

    /// ``makePresent(_:)`` of a composite that may be absent. Apart, so that the common case
    /// looks up no metadata: this body's `Value?` does, on entry, wherever it returns.
    @inline(never)
    private func makeAbsentPresent(_ object: AnyObject) -> Bool {
        if isPresent(object) { return true }
        guard let starting else { return false }
        value(object).pointee = starting
        return true
    }
}

/// The marker accessor of a composite property, seen without its value type.
protocol CompositeMarkerField {
    var compositeProperty: any CompositeProperty { get }
}

/// The marker of a composite property, seen without its value type.
protocol CompositeMarker {
    /// The composite's type (not optional), or `nil` for a field that is not a composite.
    var composite: StorableType? { get }
}

/// The first stored field of a composite property: its marker, `.composite(.present)` or
/// `null` (absent), which takes no bytes in a record. It owns the property's wrapper.
final class CompositeMarkerAccessor<Value>: FieldAccessor, CompositeMarker, ConvertedField,
    CompositeMarkerField
{
    let name: String
    let valueOffset: Int
    let ownerOffset: Int
    let entryOffset: Int
    let infoOffset: Int
    let property: any CompositeProperty
    let attribute: AttributeDescription
    var kind: FieldKind { .composite }
    var type: AttributeType { .composite }
    var isOptional: Bool { attribute.isOptional }
    var valueType: Any.Type { Value.self }
    /// Two whole values (composites with all their fields).
    var sentinels: (AttributeValue, AttributeValue)? { property.storable.unwrapped.sentinels }

    init?(name: String, offset: Int, storable: StorableType) {
        typealias Wrapper = Attribute<Value>
        guard let value = MemoryLayout<Wrapper>.offset(of: \Wrapper.value),
            let owner = MemoryLayout<Wrapper>.offset(of: \Wrapper.owner),
            let entry = MemoryLayout<Wrapper>.offset(of: \Wrapper.entry),
            let info = MemoryLayout<Wrapper>.offset(of: \Wrapper.info)
        else { return nil }
        self.name = name
        valueOffset = offset + value
        ownerOffset = offset + owner
        entryOffset = offset + entry
        infoOffset = offset + info
        property = CompositeProperty_<Value>(storable: storable, valueOffset: valueOffset)
        attribute = AttributeDescription(
            name, .composite, optional: storable.isOptional,
            typeName: storable.unwrapped.description.typeName)
    }

    var composite: StorableType? { property.storable.unwrapped }
    var compositeProperty: any CompositeProperty { property }

    /// The stored fields after the marker, named `name.field`.
    var fieldAttributes: [AttributeDescription] {
        property.storable.unwrapped.flatFields(prefix: name, optional: isOptional)
    }

    func read(_ object: AnyObject) -> AttributeValue {
        property.isPresent(object) ? .composite(.present) : .null
    }

    func converts(_ object: AnyObject) -> Bool { property.fields(object) != nil }

    /// `null` clears the composite; a present marker makes an absent one from its starting
    /// fields; a composite with fields sets them all.
    func write(_ object: AnyObject, _ value: AttributeValue) -> Bool {
        switch value {
        case .null: return property.set(object, fields: nil)
        case .composite(let composite) where composite.fields.isEmpty:
            return property.makePresent(object)
        case .composite:
            return property.set(object, fields: property.storable.unwrapped.flatten(value))
        default: return false
        }
    }

    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool {
        property.isPresent(object)
    }

    /// The marker takes no bytes: reading it makes an absent composite present, as writing
    /// `.composite(.present)` does, without making that value.
    func decode(_ r: inout ByteReader, into object: AnyObject) throws {
        guard property.makePresent(object) else { throw ByteReader.Truncated() }
    }

    func holds(_ result: Any, in object: AnyObject) -> Bool {
        guard let v = result as? Value, let tree = property.storable.attributeValue(of: v) else {
            return false
        }
        return property.storable.unwrapped.flatten(tree) == property.fields(object)
    }
}

/// Field `index` (in ``StorableType/flatten(_:)`` order) of a composite property, stored as
/// an attribute of its own (`address.city`). Reading it converts the whole composite, writing
/// it rebuilds it; a record's fields are decoded together by ``EntityBinding``.
final class CompositeFieldAccessor: FieldAccessor, CompositeMarker {
    let name: String
    let valueOffset: Int
    let ownerOffset: Int
    let entryOffset: Int
    let infoOffset: Int
    let property: any CompositeProperty
    let index: Int
    let attribute: AttributeDescription
    /// The field's own type, as Swift sees it through a key path (`String`, or `String?` when
    /// the field or a composite around it is optional).
    let valueType: Any.Type
    let fieldType: StorableType?
    private let shape: ValueShape
    /// `.composite`, or the kind of a field held in place (``CompositeProperty/inPlace(_:)``),
    /// whose ``valueOffset`` is then the field's own.
    let kind: FieldKind
    var type: AttributeType { attribute.type }
    var isOptional: Bool { attribute.isOptional }
    var adoptsWrapper: Bool { false }
    /// A nested composite's type, for the marker of one.
    var composite: StorableType? { attribute.type == .composite ? fieldType?.unwrapped : nil }
    var sentinels: (AttributeValue, AttributeValue)? {
        if attribute.type == .composite { return nil }  // a nested composite's marker
        return fieldType?.unwrapped.sentinels
    }

    init(
        marker: CompositeMarkerAccessor<some Any>, index: Int, attribute: AttributeDescription,
        fieldType: StorableType?, valueType: Any.Type
    ) {
        name = attribute.name
        let inPlace = marker.property.inPlace(index)
        kind = inPlace?.kind ?? .composite
        valueOffset = marker.valueOffset + (inPlace?.offset ?? 0)
        ownerOffset = marker.ownerOffset
        entryOffset = marker.entryOffset
        infoOffset = marker.infoOffset
        property = marker.property
        self.index = index
        self.attribute = attribute
        self.fieldType = fieldType
        self.valueType = valueType
        shape = ValueShape(attribute)
    }

    func read(_ object: AnyObject) -> AttributeValue { property.field(object, index) }

    /// Writing a field of an absent composite makes it from its starting fields (writing `null`
    /// there changes nothing).
    func write(_ object: AnyObject, _ value: AttributeValue) -> Bool {
        property.setField(object, index, value)
    }

    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool {
        let v = read(object)
        if v.isNull { return false }
        w.value(v, as: shape)
        return true
    }

    func decode(_ r: inout ByteReader, into object: AnyObject) throws {
        try property.decodeField(object, index, &r, shape: shape)
    }

    func holds(_ result: Any, in object: AnyObject) -> Bool {
        guard let fieldType, let v = fieldType.attributeValue(of: result) else { return false }
        return v == read(object)
    }
}
