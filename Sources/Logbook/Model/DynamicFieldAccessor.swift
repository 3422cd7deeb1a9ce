/// A field whose value is converted from a Swift value, which can fail.
protocol ConvertedField {
    /// Whether the object's value converts to a stored value.
    func converts(_ object: AnyObject) -> Bool
}

/// A ``FieldAccessor`` for an `Attribute<Value>` whose type is stored through a
/// ``StorableType`` rather than ``AttributeStorable``: an enum, an array or set, a wrapper of
/// one value, or an optional of one.
final class DynamicFieldAccessor<Value>: FieldAccessor, ConvertedField {
    let name: String
    let valueOffset: Int
    let ownerOffset: Int
    let entryOffset: Int
    let infoOffset: Int
    let storable: StorableType
    let attribute: AttributeDescription
    private let shape: ValueShape
    /// For an enum without payloads, the value read and written in place.
    private let direct: DirectField?
    var kind: FieldKind { .other }
    var type: AttributeType { attribute.type }
    var isOptional: Bool { attribute.isOptional }
    var valueType: Any.Type { Value.self }
    var sentinels: (AttributeValue, AttributeValue)? { storable.sentinels }

    /// `nil` if the wrapper's layout cannot be determined.
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
        self.storable = storable
        var attribute = storable.description
        attribute.name = name
        self.attribute = attribute
        shape = ValueShape(attribute)
        if case .raw = storable.unwrapped.kind, let scalar = DirectScalar(storable.unwrapped) {
            direct = DirectField(scalar: scalar, optional: storable.isOptional, offset: 0)
        } else {
            direct = nil
        }
    }

    @inline(__always)
    private func value(_ object: AnyObject) -> UnsafeMutablePointer<Value> {
        unsafeBitCast(object, to: UnsafeMutableRawPointer.self).advanced(by: valueOffset)
            .assumingMemoryBound(to: Value.self)
    }

    /// The stored value, or `nil` when the value does not convert (a custom `Encodable` that
    /// writes other fields than it reads: ``EntityBinding/conversionFailure(_:)`` reports it).
    func convert(_ object: AnyObject) -> AttributeValue? {
        if let direct { return direct.read(UnsafeRawPointer(value(object))) }
        return storable.attributeValue(of: value(object).pointee)
    }

    func read(_ object: AnyObject) -> AttributeValue { convert(object) ?? .null }

    func converts(_ object: AnyObject) -> Bool { convert(object) != nil }

    func write(_ object: AnyObject, _ newValue: AttributeValue) -> Bool {
        if let direct { return direct.write(UnsafeMutableRawPointer(value(object)), newValue) }
        guard let made = storable.value(from: newValue) as? Value else { return false }
        value(object).pointee = made
        return true
    }

    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool {
        let v = read(object)
        if v.isNull { return false }
        w.value(v, as: shape)
        return true
    }

    func decode(_ r: inout ByteReader, into object: AnyObject) throws {
        if let direct {
            try direct.decode(&r, into: UnsafeMutableRawPointer(value(object)))
            return
        }
        guard write(object, try r.value(shape)) else { throw ByteReader.Truncated() }
    }

    func holds(_ result: Any, in object: AnyObject) -> Bool {
        guard let v = result as? Value else { return false }
        return storable.attributeValue(of: v) == convert(object)
    }
}
